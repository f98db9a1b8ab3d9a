package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestLastTurnTriageOfferedAtNextStart (broken 3): with triage.ask_model,
// what triage found after a session's last turn, which no prompt
// followed, is offered once by the next session start in the project,
// then never again.
func TestLastTurnTriageOfferedAtNextStart(t *testing.T) {
	for _, budget := range []int{6000, 1000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) { lastTurnTriage(t, budget) })
	}
}

// lastTurnTriage is the test at a budget: the offer is a section of the
// block, within the person's budget, shown whole or not at all.
func lastTurnTriage(t *testing.T, budget int) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	storetest.Mkfile(t, e.GlobalConfig(), fmt.Sprintf("triage:\n  enabled: true\n  ask_model: true\nbudget_chars: %d\n", budget))
	storetest.Mkfile(t, e.GlobalMemory(), "## Notes\n"+strings.Repeat("- a fact of the user's global memory, to fill the block\n", 12))
	dead := proc.Info{PID: 4194301}
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC).Format(time.RFC3339)
	tr := filepath.Join(e.ClaudeDir, "projects", p.Key, "s1.jsonl")
	answer := "We decided to use Postgres for the queue because it already runs in production and the team knows it."
	storetest.Mkfile(t, tr, fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"which queue should we use?"},"timestamp":%q,"cwd":%q}`+"\n"+
		`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":%q}]},"timestamp":%q}`+"\n", at, repo, answer, at))
	Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "s1", TranscriptPath: tr, Process: dead})
	res, err := session.EndTurn(context.Background(), e, session.Turn{SessionID: "s1", TranscriptPath: tr, Cwd: repo, Process: dead, LastAssistantMessage: answer}, time.Time{})
	if err != nil || res.Checkpoint == nil || len(res.Checkpoint.State.TriagePending) == 0 {
		t.Fatalf("the test wants triage pending after the last turn: %v %+v", err, res.Checkpoint)
	}
	// No prompt follows; the next session starts.
	b := Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "s2"}).Block
	block := b.Text
	if b.Chars > budget {
		t.Fatalf("the block is %d characters, over the budget of %d", b.Chars, budget)
	}
	offered := strings.Contains(block, `about the end of an earlier session in this project ("which queue should we use?")`)
	if budget < 1500 {
		if strings.Contains(block, "memory triage") || strings.Contains(block, "record create") {
			t.Fatalf("a budget too small for the offer shows part of it:\n%s", block)
		}
		return
	}
	if !offered || !strings.Contains(block, "record create --category decision") || !strings.Contains(block, "update it instead") {
		t.Fatalf("the next start does not offer the findings whole:\n%s", block)
	}
	if again := Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "s3"}).Block.Text; strings.Contains(again, "memory triage") {
		t.Fatalf("the findings were offered twice:\n%s", again)
	}
}

// TestTriageWaitsForThePersonByDefault (issue 51, finding 7): triage is on
// without a word of config, and what it finds reaches no model: the
// session's next prompt carries nothing of it, and the next session start
// says once, in one line of what waits for the user, that something may
// be worth keeping — never the record create command.
func TestTriageWaitsForThePersonByDefault(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	dead := proc.Info{PID: 4194301}
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC).Format(time.RFC3339)
	tr := filepath.Join(e.ClaudeDir, "projects", p.Key, "s1.jsonl")
	answer := "We decided to use Postgres for the queue because it already runs in production and the team knows it."
	storetest.Mkfile(t, tr, fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"which queue should we use?"},"timestamp":%q,"cwd":%q}`+"\n"+
		`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":%q}]},"timestamp":%q}`+"\n", at, repo, answer, at))
	Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "s1", TranscriptPath: tr, Process: dead})
	res, err := session.EndTurn(context.Background(), e, session.Turn{SessionID: "s1", TranscriptPath: tr, Cwd: repo, Process: dead, LastAssistantMessage: answer}, time.Time{})
	if err != nil || res.Checkpoint == nil || !slices.Contains(res.Checkpoint.State.TriageFired, "decision") {
		t.Fatalf("triage found no decision with the default config: %v %+v", err, res.Checkpoint)
	}
	pr, err := Prompt(context.Background(), e, PromptRequest{Cwd: repo, SessionID: "s1", Prompt: "and the cache?"})
	if err != nil || strings.Contains(pr.Context, "triage") || strings.Contains(pr.Context, "record create") {
		t.Fatalf("the next prompt carries triage to the model: %v\n%s", err, pr.Context)
	}
	block := Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "s2"}).Block.Text
	want := `1 thing from the last session here ("which queue should we use?") may be worth keeping as a project record (decision) — /ccmem keep lists it for the user to keep or dismiss`
	if !strings.Contains(block, "# Waiting for the user\n"+want) || strings.Contains(block, "record create") || strings.Contains(block, "memory triage") {
		t.Fatalf("the next start does not say, in one line, that something waits:\n%s", block)
	}
	if again := Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "s3"}).Block.Text; strings.Contains(again, "worth keeping") {
		t.Fatalf("said twice:\n%s", again)
	}
}
