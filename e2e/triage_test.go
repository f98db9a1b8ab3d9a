package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
)

const triageMarker = "ccmem memory triage"

// occurrences counts how often s appears in the texts of a request: a
// request carries the whole conversation, so a note given once shows once.
func occurrences(r scriptapi.MessagesRequest, s string) int {
	n := 0
	for _, t := range r.Texts() {
		n += strings.Count(t, s)
	}
	return n
}

// TestTriageNeverCostsTheAnswer: with triage on, a turn whose reply holds a
// decision with its rationale still prints the model's real answer in
// `claude -p`; what triage found reaches the model with the session's
// next prompt (a --resume'd turn), exactly once, never again after.
func TestTriageNeverCostsTheAnswer(t *testing.T) {
	const answer = "We decided to use Postgres for the job queue because it already runs in every environment."
	w := newWorld(t, func(r scriptapi.MessagesRequest) scriptapi.Reply {
		texts := r.Texts()
		if len(texts) > 0 && strings.Contains(texts[len(texts)-1], "Stop hook feedback") {
			return scriptapi.Reply{Text: "the Stop hook made me answer again"}
		}
		if occurrences(r, triageMarker) > 0 {
			return scriptapi.Reply{Text: "Redis for the cache. (Noted the queue decision.)"}
		}
		return scriptapi.Reply{Text: answer}
	})
	w.write(filepath.Join(w.home, ".claude", "ccmem", "config.yaml"), "triage:\n  enabled: true\n")

	out := w.claude("--output-format", "json", "-p", "which queue should we use?")
	var res struct {
		SessionID string `json:"session_id"`
		Result    string `json:"result"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &res); err != nil {
		t.Fatalf("claude printed %q: %v", out, err)
	}
	if res.Result != answer {
		t.Fatalf("claude -p printed %q, want the model's answer %q", res.Result, answer)
	}
	for _, r := range w.api.MessageRequests() {
		if occurrences(r, triageMarker) > 0 {
			t.Fatal("triage reached the model within the answered turn; it must wait for the next prompt")
		}
	}

	// The next prompt of the session carries the decision, once.
	n := len(w.api.MessageRequests())
	w.claude("-p", "and for the cache?", "--resume", res.SessionID)
	reqs := w.api.MessageRequests()
	if len(reqs) <= n {
		t.Fatal("the resumed turn did not reach the model")
	}
	last := reqs[len(reqs)-1]
	if got := occurrences(last, triageMarker); got != 1 {
		t.Fatalf("the resumed turn's request carries the triage note %d times, want 1", got)
	}
	var note string
	for _, text := range last.Texts() {
		if i := strings.Index(text, triageMarker); i >= 0 {
			note = text[i:]
		}
	}
	for _, want := range []string{"decision — the conversation holds a decision with its reasons", "record create --category decision", "We decided to use Postgres", "Answer the user's prompt first"} {
		if !strings.Contains(note, want) {
			t.Errorf("the note lacks %q:\n%s", want, note)
		}
	}
	if strings.Contains(note, "runbook —") || strings.Contains(note, "preference —") {
		t.Errorf("categories that did not cross their threshold fired:\n%s", note)
	}

	// A further turn: the note is in the history once, not given again.
	w.claude("-p", "anything else?", "--resume", res.SessionID)
	reqs = w.api.MessageRequests()
	if got := occurrences(reqs[len(reqs)-1], triageMarker); got != 1 {
		t.Fatalf("after another turn the conversation holds the note %d times, want 1 (given once)", got)
	}
	data, err := os.ReadFile(filepath.Join(w.projectDir(), "checkpoints", res.SessionID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var cp struct {
		State struct {
			TriageFired   []string          `json:"triage_fired"`
			TriagePending []json.RawMessage `json:"triage_pending"`
		} `json:"state"`
	}
	json.Unmarshal(data, &cp)
	if strings.Join(cp.State.TriageFired, ",") != "decision" || len(cp.State.TriagePending) != 0 {
		t.Fatalf("triage state: fired %v, pending %d", cp.State.TriageFired, len(cp.State.TriagePending))
	}
}
