package e2e

import (
	"encoding/json"
	"errors"
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

// TestTriageNeverCostsTheAnswer: with triage asking the model
// (triage.ask_model), a turn whose reply holds a
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
	w.write(filepath.Join(w.home, ".claude", "ccmem", "config.yaml"), "triage:\n  enabled: true\n  ask_model: true\n")

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
	// What asking the model costs: the note, in every request of the
	// session from the prompt that carried it on (docs/benchmarks.md).
	carrying := 0
	for _, r := range reqs[n:] {
		if occurrences(r, triageMarker) > 0 {
			carrying++
		}
	}
	t.Logf("triage cost, asking the model: a note of %d characters (~%d tokens) in %d requests of the session's %d turns after the decision, before any record the model writes",
		len(note), len(note)/4, carrying, 2)
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

// TestTriageWaitsForThePerson: triage is on by default and costs a session
// nothing: with no config, a turn that holds a decision prints the
// model's own answer in `claude -p`, no request of the session carries
// anything of triage, and only the next session's start-up block says,
// in one line, that something may be worth keeping (its cost, logged for
// docs/benchmarks.md). The person keeps it with `ccmem triage keep`.
func TestTriageWaitsForThePerson(t *testing.T) {
	const answer = "We decided to use Postgres for the job queue because it already runs in every environment."
	w := newWorld(t, func(r scriptapi.MessagesRequest) scriptapi.Reply {
		switch {
		case occurrences(r, "what next?") > 0:
			return scriptapi.Reply{Text: "Write the tests."}
		case occurrences(r, "and for the cache?") > 0:
			return scriptapi.Reply{Text: "Redis for the cache."}
		}
		return scriptapi.Reply{Text: answer}
	})
	out := w.claude("--output-format", "json", "-p", "which queue should we use?")
	var res struct {
		Result string `json:"result"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &res); err != nil || res.Result != answer {
		t.Fatalf("claude -p printed %q (%v), want the model's answer %q", out, err, answer)
	}
	w.claude("-p", "and for the cache?", "--continue")
	for _, r := range w.api.MessageRequests() {
		for _, text := range r.Texts() {
			for _, s := range []string{triageMarker, "may be worth keeping", "record create --category"} {
				if i := strings.Index(text, s); i >= 0 {
					t.Fatalf("triage reached the model in the session it found something in: %q", text[max(0, i-200):min(len(text), i+200)])
				}
			}
		}
	}
	list, err := w.ccmem("triage")
	if err != nil || !strings.Contains(list, "decision") || !strings.Contains(list, "We decided to use Postgres for the job queue") {
		t.Fatalf("ccmem triage: %v\n%s", err, list)
	}

	// The next session: one line in its start-up block, nothing more.
	n := len(w.api.MessageRequests())
	w.claude("-p", "what next?")
	blocks := w.injected(n)
	if len(blocks) == 0 {
		t.Fatal("the next session got no start-up block")
	}
	var line string
	for _, l := range strings.Split(blocks[0], "\n") {
		if strings.Contains(l, "worth keeping") {
			line = l
		}
	}
	if !strings.Contains(line, "may be worth keeping as a project record (decision) — /ccmem keep") || strings.Contains(blocks[0], "record create --category") {
		t.Fatalf("the next start-up block does not say, in one line, that something waits:\n%s", blocks[0])
	}
	carrying := 0
	for _, r := range w.api.MessageRequests()[n:] {
		if occurrences(r, line) > 0 {
			carrying++
		}
	}
	t.Logf("triage cost, waiting for the person: 0 characters in the session it found something in; one line of %d characters (~%d tokens) in the next session's start-up block, in its %d request(s)",
		len(line), len(line)/4, carrying)

	// Kept by the person: a project record.
	var found struct {
		Findings []struct {
			ID string `json:"id"`
		} `json:"findings"`
	}
	js, err := w.ccmem("triage", "--json")
	if err := errors.Join(err, json.Unmarshal([]byte(js), &found)); err != nil || len(found.Findings) != 1 {
		t.Fatalf("ccmem triage --json: %v\n%s", err, js)
	}
	if out, err := w.ccmem("triage", "keep", found.Findings[0].ID); err != nil || !strings.Contains(out, "kept "+found.Findings[0].ID+" as decision/") {
		t.Fatalf("ccmem triage keep: %v\n%s", err, out)
	}
	recs, _ := filepath.Glob(filepath.Join(w.project, ".claude", "memory", "records", "decision", "*.json"))
	if len(recs) != 1 {
		t.Fatalf("records after keeping: %v", recs)
	}
}
