package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/memory/turn"
	"github.com/ccmem/ccmem/pkg/session"

	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestLastTurnTriageOfferedAtNextStart (broken 3): what triage found after
// a session's last turn, which no prompt followed, is offered once by the
// next session start in the project, then never again.
func TestLastTurnTriageOfferedAtNextStart(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	storetest.Mkfile(t, e.GlobalConfig(), "triage:\n  enabled: true\n")
	dead := proc.Info{PID: 4194301}
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC).Format(time.RFC3339)
	tr := filepath.Join(e.ClaudeDir, "projects", p.Key, "s1.jsonl")
	answer := "We decided to use Postgres for the queue because it already runs in production and the team knows it."
	storetest.Mkfile(t, tr, fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"which queue should we use?"},"timestamp":%q,"cwd":%q}`+"\n"+
		`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":%q}]},"timestamp":%q}`+"\n", at, repo, answer, at))
	Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "s1", TranscriptPath: tr, Process: dead})
	res, err := turn.Capture(context.Background(), e, turn.Request{Turn: session.Turn{SessionID: "s1", TranscriptPath: tr, Cwd: repo, Process: dead, LastAssistantMessage: answer}})
	if err != nil || res.Checkpoint == nil || len(res.Checkpoint.State.TriagePending) == 0 {
		t.Fatalf("the test wants triage pending after the last turn: %v %+v", err, res.Checkpoint)
	}
	// No prompt follows; the next session starts.
	block := Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "s2"}).Block.Text
	if !strings.Contains(block, `about the end of an earlier session in this project ("which queue should we use?")`) || !strings.Contains(block, "record create --category decision") {
		t.Fatalf("the next start does not offer the findings:\n%s", block)
	}
	if again := Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "s3"}).Block.Text; strings.Contains(again, "memory triage") {
		t.Fatalf("the findings were offered twice:\n%s", again)
	}
}
