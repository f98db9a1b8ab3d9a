// Package mcp is a Model Context Protocol server over stdio, as small as
// ccmem needs: tools only (initialize, ping, tools/list, tools/call), one
// JSON-RPC 2.0 message per line. The official Go SDK
// (github.com/modelcontextprotocol/go-sdk) does this and much more, but
// linked into ccmem it adds about 2.5 ms to every start of the binary and
// 6 MB to its size, and the status line starts ccmem after every message;
// so ccmem speaks the protocol itself, and its tests check it against the
// SDK's client.
package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// Versions are the protocol versions this server speaks, newest first.
var Versions = []string{"2025-06-18", "2025-03-26", "2024-11-05"}

// Tool is one tool the server offers.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Call runs the tool with its arguments (a JSON object) and returns
	// its text; an error is reported to the model as the tool's failure.
	Call func(ctx context.Context, args json.RawMessage) (string, error) `json:"-"`
}

// Server answers one client.
type Server struct {
	Name, Version string
	// Instructions tell the client what the server is for.
	Instructions string
	Tools        []Tool
}

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// maxMessage bounds one incoming message.
const maxMessage = 16 << 20

// Serve reads requests from in and writes responses to out until in ends
// or ctx is done. Requests are answered in order.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var mu sync.Mutex
	send := func(r response) error {
		r.JSONRPC = "2.0"
		data, err := json.Marshal(r)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		_, err = out.Write(append(data, '\n'))
		return err
	}
	for ctx.Err() == nil {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			if r, ok := s.handle(ctx, line); ok {
				if werr := send(r); werr != nil {
					return werr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// readLine reads one line, refusing to hold more than maxMessage of it.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(line)+len(chunk) <= maxMessage {
			line = append(line, chunk...)
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

// handle answers one message; ok is false for a notification (no answer).
func (s *Server) handle(ctx context.Context, line []byte) (response, bool) {
	var req request
	if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '{' {
		// null, a number, a batch: no request object, so no id to answer
		// to but null (JSON-RPC 2.0, section 5).
		if json.Valid(t) {
			return response{ID: json.RawMessage("null"), Error: &rpcError{codeInvalidRequest, "invalid request: a message must be a JSON object"}}, true
		}
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return response{ID: json.RawMessage("null"), Error: &rpcError{codeParse, "parse error: " + err.Error()}}, true
	}
	notification := len(req.ID) == 0 || string(req.ID) == "null"
	if req.Method == "" {
		if notification {
			return response{}, false // a response from the client: ignored
		}
		return response{ID: req.ID, Error: &rpcError{codeInvalidRequest, "no method"}}, true
	}
	result, rerr := s.call(ctx, req)
	if notification {
		return response{}, false
	}
	if rerr != nil {
		return response{ID: req.ID, Error: rerr}, true
	}
	return response{ID: req.ID, Result: result}, true
}

// callTool runs one tool call; a panic in it (a bug, or input nobody
// foresaw) fails that call, not the server the session relies on.
func callTool(ctx context.Context, t Tool, args json.RawMessage) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = "", fmt.Errorf("%s failed: internal error (%v)", t.Name, r)
		}
	}()
	return t.Call(ctx, args)
}

func (s *Server) call(ctx context.Context, req request) (any, *rpcError) {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		version := Versions[0]
		if slices.Contains(Versions, p.ProtocolVersion) {
			version = p.ProtocolVersion
		}
		return map[string]any{
			"protocolVersion": version,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
			"serverInfo":      map[string]any{"name": s.Name, "version": s.Version},
			"instructions":    s.Instructions,
		}, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		return map[string]any{"tools": s.Tools}, nil
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, &rpcError{codeInvalidParams, "tools/call: " + err.Error()}
		}
		i := slices.IndexFunc(s.Tools, func(t Tool) bool { return t.Name == p.Name })
		if i < 0 {
			return nil, &rpcError{codeInvalidParams, fmt.Sprintf("unknown tool %q", p.Name)}
		}
		if len(p.Arguments) == 0 || string(p.Arguments) == "null" {
			p.Arguments = json.RawMessage("{}")
		}
		text, err := callTool(ctx, s.Tools[i], p.Arguments)
		isError := err != nil
		if isError {
			text = err.Error()
		}
		return map[string]any{"content": []map[string]any{{"type": "text", "text": text}}, "isError": isError}, nil
	case "notifications/initialized", "notifications/cancelled":
		return nil, nil
	}
	return nil, &rpcError{codeMethodNotFound, fmt.Sprintf("method %q not found", req.Method)}
}
