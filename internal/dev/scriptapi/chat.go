package scriptapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// OpenAI's Chat Completions API, as opencode (1.18.33) calls it through a
// provider of npm "@ai-sdk/openai-compatible" whose baseURL is this
// server's URL + "/v1": POST /v1/chat/completions, streamed. A new
// session asks for a title first (a system message about titles, no
// tools); scripts see the turns only.

// ChatRequest is the part of a Chat Completions request scripts read.
type ChatRequest struct {
	Messages []ChatMessage `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// ChatMessage is one message of a request: its content is a string or a
// list of parts.
type ChatMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls,omitempty"`
}

// Text is the message's text, its parts' joined by newlines.
func (m ChatMessage) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var out []string
	for _, p := range parts {
		if p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// Texts are the texts of the request's messages of a role ("" for all),
// in order.
func (r ChatRequest) Texts(role string) []string {
	var out []string
	for _, m := range r.Messages {
		if role == "" || m.Role == role {
			if t := m.Text(); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// ToolOutputs are the results of the tool calls so far, in order: what a
// command printed, or the error the client gave the model instead.
func (r ChatRequest) ToolOutputs() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m.Text())
		}
	}
	return out
}

// isTitle tells opencode's request for a session's title: no tools, a
// system message about titles.
func (r ChatRequest) isTitle() bool {
	if len(r.Tools) > 0 {
		return false
	}
	for _, t := range r.Texts("system") {
		if strings.Contains(t, "title generator") {
			return true
		}
	}
	return false
}

// ChatScript chooses the reply to a turn; a Reply's one tool, when it has
// any, is a shell command (Tools[0].Input["command"]).
type ChatScript func(req ChatRequest) Reply

// SetChatScript replaces the script of the Chat Completions endpoint.
func (s *Server) SetChatScript(script ChatScript) {
	s.mu.Lock()
	s.chat = script
	s.mu.Unlock()
}

// ChatRequests returns the decoded turns so far, title requests left out.
func (s *Server) ChatRequests() []ChatRequest {
	var out []ChatRequest
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost && r.Path == "/v1/chat/completions" {
			var req ChatRequest
			if json.Unmarshal(r.Body, &req) == nil && !req.isTitle() {
				out = append(out, req)
			}
		}
	}
	return out
}

// serveChat answers one Chat Completions request with server-sent events.
func (s *Server) serveChat(w http.ResponseWriter, id int, body []byte) {
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
		return
	}
	reply := Reply{Text: "ok"}
	switch {
	case req.isTitle():
		reply = Reply{Text: "Scripted title"}
	default:
		s.mu.Lock()
		script := s.chat
		s.mu.Unlock()
		if script != nil {
			reply = script(req)
		}
	}
	chunk := func(delta map[string]any, finish any) []byte {
		data, _ := json.Marshal(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", id), "object": "chat.completion.chunk", "created": 1764288000, "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		return data
	}
	w.Header().Set("Content-Type", "text/event-stream")
	var first []byte
	finish := "stop"
	if len(reply.Tools) > 0 {
		cmd, _ := reply.Tools[0].Input["command"].(string)
		args, _ := json.Marshal(map[string]any{"command": cmd, "description": "a scripted call"})
		first = chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_%d", id), "type": "function",
			"function": map[string]any{"name": "bash", "arguments": string(args)}}}}, nil)
		finish = "tool_calls"
	} else {
		first = chunk(map[string]any{"role": "assistant", "content": reply.Text}, nil)
	}
	last, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", id), "object": "chat.completion.chunk", "created": 1764288000, "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
	fmt.Fprintf(w, "data: %s\n\ndata: %s\n\ndata: [DONE]\n\n", first, last)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
