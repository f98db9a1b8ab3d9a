package scriptapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Google's Gemini API, as Gemini CLI (0.61.0) calls it with
// GOOGLE_GEMINI_BASE_URL set: POST /v1beta/models/<model>:streamGenerateContent?alt=sse
// for the turns (one server-sent event is enough), and
// …:generateContent for its model router's classifier, which asks for
// JSON filling a schema. The same Server answers it, so one test can
// drive Claude Code and Gemini CLI.

// GeminiRequest is the part of a Gemini request scripts read.
type GeminiRequest struct {
	Contents []GeminiContent `json:"contents"`
	// Stream is set on a turn (streamGenerateContent), not on the
	// router's classifier.
	Stream bool `json:"-"`
}

// GeminiContent is one entry of a request's history.
type GeminiContent struct {
	Role  string       `json:"role"`
	Parts []GeminiPart `json:"parts"`
}

// GeminiPart is one part of an entry: text, a call the model made, or
// the response to one.
type GeminiPart struct {
	Text             string          `json:"text,omitempty"`
	FunctionCall     json.RawMessage `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"functionResponse,omitempty"`
}

// Texts are the texts of the request's entries of a role ("" for all),
// in order, a part each.
func (r GeminiRequest) Texts(role string) []string {
	var out []string
	for _, c := range r.Contents {
		if role == "" || c.Role == role {
			for _, p := range c.Parts {
				if p.Text != "" {
					out = append(out, p.Text)
				}
			}
		}
	}
	return out
}

// ToolOutputs are what the request says each tool call gave: its output,
// or the error Gemini gave the model instead ("Tool execution blocked: …").
func (r GeminiRequest) ToolOutputs() []string {
	var out []string
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse == nil {
				continue
			}
			if e, ok := p.FunctionResponse.Response["error"]; ok {
				out = append(out, fmt.Sprint(e))
			} else {
				out = append(out, fmt.Sprint(p.FunctionResponse.Response["output"]))
			}
		}
	}
	return out
}

// GeminiScript chooses the reply to a Gemini turn; a Reply's one tool,
// when it has any, is a shell command (Tools[0].Input["command"]).
type GeminiScript func(req GeminiRequest) Reply

// SetGeminiScript replaces the script of the Gemini endpoint.
func (s *Server) SetGeminiScript(script GeminiScript) {
	s.mu.Lock()
	s.gemini = script
	s.mu.Unlock()
}

// isGemini tells a request to the Gemini API's generate endpoints.
func isGemini(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1beta/models/") &&
		(strings.HasSuffix(r.URL.Path, ":streamGenerateContent") || strings.HasSuffix(r.URL.Path, ":generateContent"))
}

// GeminiRequests returns the decoded Gemini turns so far (the router's
// classifier left out).
func (s *Server) GeminiRequests() []GeminiRequest {
	var out []GeminiRequest
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, ":streamGenerateContent") {
			var req GeminiRequest
			if json.Unmarshal(r.Body, &req) == nil {
				req.Stream = true
				out = append(out, req)
			}
		}
	}
	return out
}

// serveGemini answers one Gemini request.
func (s *Server) serveGemini(w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		GeminiRequest
		GenerationConfig struct {
			ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
			ResponseSchema     json.RawMessage `json:"responseSchema"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"error": map[string]any{"code": 400, "message": err.Error()}})
		return
	}
	stream := strings.HasSuffix(r.URL.Path, ":streamGenerateContent")
	var parts []any
	switch {
	case !stream && (len(req.GenerationConfig.ResponseJSONSchema) > 0 || len(req.GenerationConfig.ResponseSchema) > 0):
		// The model router's classifier: a plain answer routes the turn.
		parts = []any{map[string]any{"text": `{"complexity_reasoning":"scripted","complexity_score":10}`}}
	default:
		s.mu.Lock()
		script := s.gemini
		s.mu.Unlock()
		reply := Reply{Text: "ok"}
		if script != nil {
			req.Stream = stream
			reply = script(req.GeminiRequest)
		}
		parts = []any{map[string]any{"text": reply.Text}}
		if len(reply.Tools) > 0 {
			cmd, _ := reply.Tools[0].Input["command"].(string)
			parts = []any{map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
				"args": map[string]any{"command": cmd, "description": "a scripted call"}}}}
		}
	}
	answer := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-2.5-flash",
	}
	if !stream {
		writeJSON(w, answer)
		return
	}
	data, _ := json.Marshal(answer)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\n\n", data)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
