package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
)

// TestDigestKeepsTheFailureAndItsFix: a command that fails, a file
// written, the same command passing — with the real client, the episode's
// digest holds the failure with its error line and the fix naming the
// file that changed in between, and the turn's conclusion.
func TestDigestKeepsTheFailureAndItsFix(t *testing.T) {
	w := newWorld(t, nil)
	marker := filepath.Join(w.project, "config", "ready.flag")
	check := "test -f config/ready.flag || { echo 'error: config/ready.flag is missing' >&2; exit 3; }"
	var done atomic.Bool
	w.api.SetScript(func(r scriptapi.MessagesRequest) scriptapi.Reply {
		if done.Load() {
			return scriptapi.Reply{Text: "ok"}
		}
		switch toolResults(r) {
		case 0:
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": check, "description": "check the flag"}}}}
		case 1:
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Write", Input: map[string]any{"file_path": marker, "content": "ready\n"}}}}
		case 2:
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": check, "description": "check the flag"}}}}
		}
		return scriptapi.Reply{Text: "The check passes now: config/ready.flag was missing, so I created it."}
	})
	sid := w.runJSON("-p", "make the readiness check pass")
	done.Store(true)
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
		Digest struct {
			Notes []struct {
				Kind, Cmd, Text string
				Turn            int
			} `json:"notes"`
			Commands []string `json:"commands"`
		} `json:"digest"`
	}
	if err := json.Unmarshal(data, &ep); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, n := range ep.Digest.Notes {
		kinds[n.Kind] += n.Text + "\n"
	}
	if !strings.Contains(kinds["failure"], "config/ready.flag is missing") ||
		!strings.Contains(kinds["fix"], "config/ready.flag") ||
		!strings.Contains(kinds["answer"], "The check passes now") ||
		len(ep.Digest.Commands) != 1 {
		t.Fatalf("digest:\n%s", data)
	}
	w.sameAsLive(w.importAll(), sid)
}
