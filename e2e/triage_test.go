package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/scriptapi"
)

const triageMarker = "ccmem memory triage"

// carries tells whether the newest text of a request holds s: a block
// shows up as the instruction of the turn it starts (later requests carry
// it too, in their history).
func carries(r scriptapi.MessagesRequest, s string) bool {
	texts := r.Texts()
	return len(texts) > 0 && strings.Contains(texts[len(texts)-1], s)
}

// TestTriageBlocksOnceForADecision: with triage enabled, a turn whose reply
// holds a decision with its rationale gets one Stop block asking to save a
// decision record; the model's next turn happens; the Stop after it
// (stop_hook_active) and a further turn of the same session never block.
func TestTriageBlocksOnceForADecision(t *testing.T) {
	w := newWorld(t, func(r scriptapi.MessagesRequest) scriptapi.Reply {
		texts := r.Texts()
		last := ""
		if len(texts) > 0 {
			last = texts[len(texts)-1]
		}
		if strings.Contains(last, triageMarker) {
			return scriptapi.Reply{Text: "Saved the decision as a record."}
		}
		return scriptapi.Reply{Text: "We decided to use Postgres for the job queue because it already runs in every environment."}
	})
	w.write(filepath.Join(w.home, ".claude", "ccmem", "config.yaml"), "triage:\n  enabled: true\n")

	sid := w.runJSON("-p", "which queue should we use?")
	count := func() (blocked, after int) {
		reqs := w.api.MessageRequests()
		seen := false
		for _, r := range reqs {
			if carries(r, triageMarker) {
				blocked++
				seen = true
			} else if seen {
				after++
			}
		}
		return
	}
	var block string
	for _, r := range w.api.MessageRequests() {
		for _, t := range r.Texts() {
			if strings.Contains(t, triageMarker) {
				block = t
			}
		}
	}
	if block == "" {
		t.Fatal("no request carried the triage block: the Stop hook did not block")
	}
	for _, want := range []string{"decision — this turn holds a decision with its reasons", "record create --category decision", "We decided to use Postgres"} {
		if !strings.Contains(block, want) {
			t.Errorf("the block lacks %q:\n%s", want, block)
		}
	}
	if strings.Contains(block, "runbook") || strings.Contains(block, "preference —") {
		t.Errorf("categories that did not cross their threshold fired:\n%s", block)
	}
	n := len(w.api.MessageRequests())
	if blocked, _ := count(); blocked != 1 {
		t.Fatalf("%d requests carried the block, want exactly 1 (the model's next turn)", blocked)
	}

	// The same session goes on: more decision language, no second block.
	w.claude("-p", "and for the cache?", "--resume", sid)
	if len(w.api.MessageRequests()) <= n {
		t.Fatal("the resumed turn did not reach the model")
	}
	if blocked, _ := count(); blocked != 1 {
		t.Fatalf("the decision category fired again in the same session (%d blocks)", blocked)
	}
	data, err := os.ReadFile(filepath.Join(w.projectDir(), "checkpoints", sid+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var cp struct {
		State struct {
			TriageFired []string `json:"triage_fired"`
		} `json:"state"`
	}
	json.Unmarshal(data, &cp)
	if strings.Join(cp.State.TriageFired, ",") != "decision" {
		t.Fatalf("triage_fired = %v", cp.State.TriageFired)
	}
}
