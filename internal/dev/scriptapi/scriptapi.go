// Package scriptapi is a scripted stand-in for the Anthropic Messages API,
// served on 127.0.0.1 only, so end-to-end tests can run the real Claude Code
// offline and deterministically, and inspect every request it sends.
package scriptapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ToolUse asks the client to run one tool.
type ToolUse struct {
	Name  string
	Input map[string]any
}

// Reply is one scripted assistant message.
type Reply struct {
	// Text is the assistant's text (sent before any tool use).
	Text string
	// Tools are tool calls; with any, the stop reason is "tool_use".
	Tools []ToolUse
	// Delay holds the reply back, to catch the client mid-turn.
	Delay time.Duration
}

// Request is one recorded API call.
type Request struct {
	Method string
	Path   string
	Body   []byte
}

// Messages decodes a recorded /v1/messages body.
func (r Request) Messages() (MessagesRequest, error) {
	var m MessagesRequest
	err := json.Unmarshal(r.Body, &m)
	return m, err
}

// MessagesRequest is the part of a Messages API request the scripts read.
type MessagesRequest struct {
	Model    string    `json:"model"`
	Stream   bool      `json:"stream"`
	System   any       `json:"system"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools"`
}

// Tool is one tool a request offers the model.
type Tool struct {
	Name string `json:"name"`
}

// HasTool tells whether the request offers the tool named name.
func (m MessagesRequest) HasTool(name string) bool {
	for _, t := range m.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// OpensWith tells whether the first message of the request holds text
// containing s: a subagent's requests open with the prompt it was given.
func (m MessagesRequest) OpensWith(s string) bool {
	if len(m.Messages) == 0 {
		return false
	}
	for _, b := range m.Messages[0].Blocks() {
		if b.Type == "text" && strings.Contains(b.Text, s) {
			return true
		}
	}
	return false
}

// Message is one message of a request.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Block is one content block of a message.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

// Blocks returns the message's content as blocks (a string becomes one text block).
func (m Message) Blocks() []Block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []Block{{Type: "text", Text: s}}
	}
	var bs []Block
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// Texts returns every text block of every message, in order.
func (m MessagesRequest) Texts() []string {
	var out []string
	for _, msg := range m.Messages {
		for _, b := range msg.Blocks() {
			if b.Type == "text" {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// Script chooses the reply to a Messages request. The number of tool results
// in the request tells a script how far the turn has gone.
type Script func(req MessagesRequest) Reply

// Server is a running stand-in.
type Server struct {
	URL string

	srv       *http.Server
	ln        net.Listener
	script    Script
	responses ResponsesScript
	gemini    GeminiScript
	chat      ChatScript

	mu       sync.Mutex
	requests []Request
	n        int
}

// Start serves script on a random port of 127.0.0.1.
func Start(script Script) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, script: script}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// SetScript replaces the script for the requests to come; nil answers
// every request "ok".
func (s *Server) SetScript(script Script) {
	s.mu.Lock()
	s.script = script
	s.mu.Unlock()
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// MessageRequests returns the decoded /v1/messages requests received so far.
func (s *Server) MessageRequests() []MessagesRequest {
	var out []MessagesRequest
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost && strings.HasPrefix(r.Path, "/v1/messages") && !strings.Contains(r.Path, "count_tokens") {
			if m, err := r.Messages(); err == nil {
				out = append(out, m)
			}
		}
	}
	return out
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Body: body})
	s.n++
	id := s.n
	s.mu.Unlock()

	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 10 + len(body)/4})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		s.serveResponses(w, id, body)
	case isGemini(r):
		s.serveGemini(w, r, body)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.serveChat(w, id, body)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSON(w, map[string]any{"object": "list", "data": []any{}})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		var req MessagesRequest
		if err := json.Unmarshal(body, &req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": err.Error()}})
			return
		}
		s.mu.Lock()
		script := s.script
		s.mu.Unlock()
		reply := Reply{Text: "ok"} // no script: every turn ends at once
		if script != nil {
			reply = script(req)
		}
		if reply.Delay > 0 {
			select {
			case <-time.After(reply.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if req.Stream {
			stream(w, id, req.Model, reply)
		} else {
			writeJSON(w, message(id, req.Model, reply))
		}
	default:
		w.WriteHeader(http.StatusNotFound)
		writeJSON(w, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "scriptapi: no such endpoint"}})
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func stopReason(r Reply) string {
	if len(r.Tools) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func contentBlocks(id int, r Reply) []map[string]any {
	var out []map[string]any
	if r.Text != "" || len(r.Tools) == 0 {
		out = append(out, map[string]any{"type": "text", "text": r.Text})
	}
	for i, t := range r.Tools {
		in := t.Input
		if in == nil {
			in = map[string]any{}
		}
		out = append(out, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", id, i), "name": t.Name, "input": in})
	}
	return out
}

func usage() map[string]any {
	return map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

func message(id int, model string, r Reply) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("msg_%d", id), "type": "message", "role": "assistant", "model": model,
		"content": contentBlocks(id, r), "stop_reason": stopReason(r), "stop_sequence": nil, "usage": usage(),
	}
}

// stream writes the reply as the Messages API's server-sent events.
func stream(w http.ResponseWriter, id int, model string, r Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	var buf bytes.Buffer
	event := func(name string, data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
	}
	start := message(id, model, Reply{})
	start["content"] = []any{}
	start["stop_reason"] = nil
	event("message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range contentBlocks(id, r) {
		switch b["type"] {
		case "text":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			input, _ := json.Marshal(b["input"])
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stopReason(r), "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{"type": "message_stop"})
	_, _ = w.Write(buf.Bytes())
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
