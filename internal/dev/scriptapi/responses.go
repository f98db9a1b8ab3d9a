package scriptapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// OpenAI's Responses API, as Codex CLI (0.169.0) calls it with a custom
// provider (wire_api = "responses"): POST /v1/responses, streamed as three
// server-sent events (response.created, one output item, completed). The
// same Server answers it, so one test can drive Claude Code and Codex.

// ResponsesRequest is the part of a /v1/responses request scripts read.
type ResponsesRequest struct {
	Model string          `json:"model"`
	Input []ResponsesItem `json:"input"`
}

// ResponsesItem is one item of a request's input.
type ResponsesItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Name   string `json:"name"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// Text is the item's text, its parts joined.
func (it ResponsesItem) Text() string {
	var parts []string
	for _, c := range it.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// Texts are the texts of the request's messages of a role ("" for all),
// in order.
func (r ResponsesRequest) Texts(role string) []string {
	var out []string
	for _, it := range r.Input {
		if it.Type == "message" && (role == "" || it.Role == role) {
			out = append(out, it.Text())
		}
	}
	return out
}

// ToolOutputs are the outputs of the tool calls the request carries.
func (r ResponsesRequest) ToolOutputs() []string {
	var out []string
	for _, it := range r.Input {
		if it.Type == "function_call_output" {
			out = append(out, it.Output)
		}
	}
	return out
}

// ResponsesScript chooses the reply to a Responses request; a Reply's one
// tool, when it has any, is a shell command (Tools[0].Input["command"]).
type ResponsesScript func(req ResponsesRequest) Reply

// SetResponsesScript replaces the script of the Responses endpoint.
func (s *Server) SetResponsesScript(script ResponsesScript) {
	s.mu.Lock()
	s.responses = script
	s.mu.Unlock()
}

// ResponsesRequests returns the decoded /v1/responses requests so far.
func (s *Server) ResponsesRequests() []ResponsesRequest {
	var out []ResponsesRequest
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost && r.Path == "/v1/responses" {
			var req ResponsesRequest
			if json.Unmarshal(r.Body, &req) == nil {
				out = append(out, req)
			}
		}
	}
	return out
}

// serveResponses answers one /v1/responses request.
func (s *Server) serveResponses(w http.ResponseWriter, id int, body []byte) {
	var req ResponsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"error": map[string]any{"message": err.Error()}})
		return
	}
	s.mu.Lock()
	script := s.responses
	s.mu.Unlock()
	reply := Reply{Text: "ok"}
	if script != nil {
		reply = script(req)
	}
	item := map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d", id),
		"content": []any{map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}}}
	if len(reply.Tools) > 0 {
		cmd, _ := reply.Tools[0].Input["command"].(string)
		args, _ := json.Marshal(map[string]string{"cmd": cmd})
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", id), "call_id": fmt.Sprintf("call_%d", id),
			"name": "exec_command", "arguments": string(args)}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name string, v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	rid := fmt.Sprintf("resp_%d", id)
	event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": rid}})
	event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": rid, "usage": map[string]any{
		"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": 5,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}})
}
