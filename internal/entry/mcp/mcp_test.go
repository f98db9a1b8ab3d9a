package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccmem/ccmem/internal/entry/mcp"
)

func testServer() *mcp.Server {
	return &mcp.Server{Name: "ccmem", Version: "test", Instructions: "memory",
		Tools: []mcp.Tool{
			{Name: "echo", Description: "says it back",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
				Call: func(ctx context.Context, args json.RawMessage) (string, error) {
					var in struct{ Text string }
					if err := json.Unmarshal(args, &in); err != nil {
						return "", err
					}
					if in.Text == "fail" {
						return "", errors.New("it failed")
					}
					if in.Text == "panic" {
						var m []int
						_ = m[len(in.Text)] // a bug in a tool: out of range
					}
					return "echo: " + in.Text, nil
				}},
		}}
}

// TestWithTheSDKClient: the official Go SDK's client connects, lists the
// tools and calls them; a failing tool is a tool error, not a protocol one.
func TestWithTheSDKClient(t *testing.T) {
	ctx := context.Background()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	done := make(chan error, 1)
	go func() { done <- testServer().Serve(ctx, sr, sw); sw.Close() }()

	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult(); got.ServerInfo.Name != "ccmem" || got.Capabilities.Tools == nil {
		t.Fatalf("initialize: %+v", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "echo" {
		t.Fatalf("tools/list: %+v %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "echo: hi" {
		t.Fatalf("tools/call: %+v %v", res, err)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "fail"}})
	if err != nil || !res.IsError || res.Content[0].(*sdk.TextContent).Text != "it failed" {
		t.Fatalf("a failing tool: %+v %v", res, err)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope"}); err == nil {
		t.Fatal("an unknown tool should be a protocol error")
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	cw.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// TestBadInput: garbage gets a parse error and the server goes on; a
// notification gets no answer; an unknown method is reported.
func TestBadInput(t *testing.T) {
	in := strings.NewReader("not json\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":7,"method":"resources/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}` + "\n")
	var out strings.Builder
	if err := testServer().Serve(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 answers, got %q", lines)
	}
	for i, want := range []string{`"code":-32700`, `"id":7,"error":{"code":-32601`, `"protocolVersion":"2025-06-18"`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("answer %d %s lacks %s", i, lines[i], want)
		}
	}
}

// TestNoMessageGoesUnanswered: a message that is not a request object
// (null, a number, an array) gets an Invalid Request error with id null,
// and a tool that panics fails its call while the server goes on.
func TestNoMessageGoesUnanswered(t *testing.T) {
	in := strings.NewReader("null\n42\n[]\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"panic"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
	var out strings.Builder
	if err := testServer().Serve(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("want 5 answers, got %q", lines)
	}
	for i, want := range []string{`"id":null,"error":{"code":-32600`, `"id":null,"error":{"code":-32600`, `"id":null,"error":{"code":-32600`,
		`"id":1,"result":{"content":[{"text":"echo failed: internal error`, `"id":2,"result":{}`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("answer %d %s lacks %s", i, lines[i], want)
		}
	}
}
