package e2e

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
)

// TestDeniedCallIsDeclined: a tool call the real client refuses (a
// headless run that was not granted the tool) is recorded as declined,
// not as a tool error, and does not make the session BAD.
func TestDeniedCallIsDeclined(t *testing.T) {
	w := newWorld(t, func(r scriptapi.MessagesRequest) scriptapi.Reply {
		if toolResults(r) == 0 {
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "WebFetch", Input: map[string]any{"url": "https://example.com/changelog", "prompt": "summarise"}}}}
		}
		return scriptapi.Reply{Text: "I could not fetch it; the changelog stays as it is."}
	})
	sid := w.runJSON("-p", "read the upstream changelog and summarise it")
	w.claude("-p", "anything new in the inbox?") // the next start archives it
	eps := w.episodesOf(sid)
	if len(eps) != 1 {
		t.Fatalf("episodes of the session: %v", eps)
	}
	data, err := os.ReadFile(eps[0])
	if err != nil {
		t.Fatal(err)
	}
	var ep struct {
		ToolErrors int            `json:"tool_errors"`
		Declined   int            `json:"declined"`
		Tools      map[string]int `json:"tools"`
		Friction   struct {
			Class string `json:"class"`
		} `json:"friction"`
	}
	if err := json.Unmarshal(data, &ep); err != nil {
		t.Fatal(err)
	}
	if ep.Tools["WebFetch"] != 1 || ep.ToolErrors != 0 || ep.Declined != 1 || ep.Friction.Class == "BAD" {
		t.Fatalf("tools %v, tool_errors %d, declined %d, class %s:\n%s", ep.Tools, ep.ToolErrors, ep.Declined, ep.Friction.Class, data)
	}
}
