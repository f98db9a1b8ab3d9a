package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
)

// TestRejectedCallIsDeclined runs the interactive client under tmux: the
// model asks to run a command, the person says no at the permission
// prompt (Esc) and asks for something else. The session's episode counts
// one declined call, no tool error, and is not BAD.
func TestRejectedCallIsDeclined(t *testing.T) {
	w := newWorld(t, func(r scriptapi.MessagesRequest) scriptapi.Reply {
		if occurrences(r, "use make clean instead") > 0 {
			return scriptapi.Reply{Text: "Understood, I will use make clean next time."}
		}
		if toolResults(r) == 0 {
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": "rm -rf build", "description": "remove the build folder"}}}}
		}
		return scriptapi.Reply{Text: "ok"}
	})
	// 2.1.330 starts in auto mode, which runs the command unasked: the
	// project asks for the mode that asks.
	w.write(filepath.Join(w.project, ".claude", "settings.json"), `{"permissions": {"defaultMode": "default"}}`)
	tm := w.tmux()
	tm.waitFor("the prompt", func(s string) bool { return strings.Contains(s, "? for shortcuts") || strings.Contains(s, "❯") })
	const goal = "clean the build folder"
	tm.send(goal)
	tm.waitFor("the permission prompt", func(s string) bool { return strings.Contains(s, "rm -rf build") && strings.Contains(s, "No") })
	tm.run("send-keys", "-t", "cc", "Escape")
	tm.waitFor("the refusal", func(s string) bool {
		return strings.Contains(s, "Interrupted") || strings.Contains(s, "doesn't want") || strings.Contains(s, "rejected")
	})
	tm.send("use make clean instead")
	tm.waitFor("the reply", func(s string) bool { return strings.Contains(s, "I will use make clean") })
	w.waitForTranscript("I will use make clean", 20*time.Second)
	tm.send("/clear") // ends the conversation: its episode is written now
	var eps []string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && len(eps) == 0; time.Sleep(200 * time.Millisecond) {
		eps, _ = filepath.Glob(filepath.Join(w.projectDir(), "episodes", "*.json"))
	}
	tm.send("anything new?") // the next conversation's start archives it, if /clear did not
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && len(eps) == 0; time.Sleep(200 * time.Millisecond) {
		eps, _ = filepath.Glob(filepath.Join(w.projectDir(), "episodes", "*.json"))
	}
	if len(eps) != 1 {
		t.Fatalf("episodes: %v", eps)
	}
	data, err := os.ReadFile(eps[0])
	if err != nil {
		t.Fatal(err)
	}
	var ep struct {
		SessionID  string         `json:"session_id"`
		Goal       string         `json:"goal"`
		Tools      map[string]int `json:"tools"`
		ToolErrors int            `json:"tool_errors"`
		Declined   int            `json:"declined"`
		Turns      int            `json:"turns"`
		Friction   struct {
			Class string `json:"class"`
		} `json:"friction"`
	}
	if err := json.Unmarshal(data, &ep); err != nil {
		t.Fatal(err)
	}
	if ep.Goal != goal || ep.Tools["Bash"] != 1 || ep.ToolErrors != 0 || ep.Declined != 1 || ep.Friction.Class == "BAD" {
		t.Fatalf("goal %q, tools %v, tool_errors %d, declined %d, class %s:\n%s", ep.Goal, ep.Tools, ep.ToolErrors, ep.Declined, ep.Friction.Class, data)
	}
	w.sameAsLive(w.importAll(), ep.SessionID)
}
