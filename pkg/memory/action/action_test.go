package action

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/provenance/provenancetest"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

func guardWorld(t *testing.T) (store.Env, string, store.Project) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "feedback", "dry-run.md"), "---\nname: dry-run\ndescription: Never run database migrations without --dry-run first\ntype: feedback\n---\nA migration dropped a column in production once.\n")
	provenancetest.Entries(t, e, filepath.Join(e.LearnedDir(), "feedback", "dry-run.md"))
	storetest.Mkfile(t, store.RepoMemory(repo), "## Build\n- Do not edit generated files in api/gen/, run make generate\n")
	return e, repo, p
}

// TestBeforeToolGivesTheRuleOnce: a command a rule bears on is given the
// rule, once a session; a command none bears on, a tool not watched, and
// a session with guard off get nothing.
func TestBeforeToolGivesTheRuleOnce(t *testing.T) {
	e, repo, _ := guardWorld(t)
	memory.Start(context.Background(), e, memory.StartRequest{Cwd: repo, Source: "startup", SessionID: "s1"})
	before := func(sid string, req ToolRequest) string {
		req.SessionID, req.Cwd = sid, repo
		res, err := BeforeTool(context.Background(), e, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Context
	}
	got := before("s1", ToolRequest{Tool: "Bash", Command: "npm run migrate"})
	if !strings.Contains(got, "Never run database migrations without --dry-run first") || !strings.Contains(got, "learned feedback, ~/.claude/ccmem/learned/feedback/dry-run.md") {
		t.Fatalf("the rule was not given:\n%s", got)
	}
	if again := before("s1", ToolRequest{Tool: "Bash", Command: "npm run migrate -- --dry-run"}); again != "" {
		t.Fatalf("the rule came twice in one session:\n%s", again)
	}
	if other := before("s2", ToolRequest{Tool: "Bash", Command: "npm run migrate"}); other == "" {
		t.Fatal("another session was not given the rule")
	}
	if got := before("s1", ToolRequest{Tool: "Write", Path: filepath.Join(repo, "api", "gen", "client.go")}); !strings.Contains(got, "Do not edit generated files in api/gen/") {
		t.Fatalf("a file a rule names was not given it:\n%s", got)
	}
	for _, quiet := range []ToolRequest{{Tool: "Bash", Command: "ls -la"}, {Tool: "Edit", Path: filepath.Join(repo, "cart.go")}, {Tool: "Read", Path: filepath.Join(repo, "api", "gen", "client.go")}} {
		if got := before("s3", quiet); got != "" {
			t.Errorf("%+v: nothing bears on it, got:\n%s", quiet, got)
		}
	}
	storetest.Mkfile(t, e.GlobalConfig(), "guard:\n  enabled: false\n")
	if got := before("s4", ToolRequest{Tool: "Bash", Command: "npm run migrate"}); got != "" {
		t.Fatalf("guard off, still:\n%s", got)
	}
}

// TestAfterFailureFindsTheEarlierFix: a failure whose error an earlier
// session fixed (another path, another line number) is given what fixed
// it; an error never fixed gets nothing.
func TestAfterFailureFindsTheEarlierFix(t *testing.T) {
	e, repo, p := guardWorld(t)
	at := time.Date(2026, 10, 7, 10, 0, 0, 0, time.UTC)
	path := writeEpisode(t, e, p, "old", "the worker tests hang", at,
		episode.Note{Turn: 1, Kind: "prompt", Text: "pytest hangs on the worker tests"},
		episode.Note{Turn: 2, Kind: "failure", Cmd: "pytest tests/worker", Text: "E   kombu.exceptions.OperationalError: [Errno 111] Connection refused (/home/ana/src/api/tests/worker/conftest.py:41)"},
		episode.Note{Turn: 3, Kind: "fix", Cmd: "CELERY_TASK_ALWAYS_EAGER=1 pytest tests/worker", Text: "failed at turn 2; succeeded run as `CELERY_TASK_ALWAYS_EAGER=1 pytest tests/worker` instead of `pytest tests/worker`"},
		episode.Note{Turn: 3, Kind: "answer", Text: "The worker fixture needs CELERY_TASK_ALWAYS_EAGER=1, or it waits for a broker."},
	)
	memory.Start(context.Background(), e, memory.StartRequest{Cwd: repo, Source: "startup", SessionID: "now"})
	fail := func(cmd, errText string) string {
		res, err := AfterFailure(context.Background(), e, ToolRequest{SessionID: "now", Cwd: repo, Tool: "Bash", Command: cmd, Error: errText})
		if err != nil {
			t.Fatal(err)
		}
		return res.Context
	}
	got := fail("pytest tests/worker -x", "Exit code 1\nE   kombu.exceptions.OperationalError: [Errno 111] Connection refused (/Users/bo/api/tests/worker/conftest.py:44)")
	for _, want := range []string{"2026-10-07", "succeeded run as `CELERY_TASK_ALWAYS_EAGER=1 pytest tests/worker`", "needs CELERY_TASK_ALWAYS_EAGER=1", path + " (turn 3)"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if strings.Count(got, "\n") > 0 {
		t.Errorf("more than one line:\n%s", got)
	}
	if again := fail("pytest tests/worker -x", "Exit code 1\nE   kombu.exceptions.OperationalError: [Errno 111] Connection refused"); again != "" {
		t.Errorf("the same fix came twice in a session:\n%s", again)
	}
	if other := fail("go build ./...", "Exit code 1\nmain.go:3:2: undefined: frobnicate"); other != "" {
		t.Errorf("an error never fixed got:\n%s", other)
	}
}

// TestSubagentBlock: a subagent starts with the user's feedback and the
// project's rules, within its budget.
func TestSubagentBlock(t *testing.T) {
	e, repo, _ := guardWorld(t)
	res, err := Subagent(context.Background(), e, SubagentRequest{SessionID: "s1", Cwd: repo, AgentType: "general-purpose"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# ccmem: the user's standing rules", "- Never run database migrations without --dry-run first", "- Do not edit generated files in api/gen/"} {
		if !strings.Contains(res.Context, want) {
			t.Errorf("no %q in:\n%s", want, res.Context)
		}
	}
	storetest.Mkfile(t, e.GlobalConfig(), "guard:\n  subagent_chars: 0\n")
	if res, _ := Subagent(context.Background(), e, SubagentRequest{SessionID: "s1", Cwd: repo}); res.Context != "" {
		t.Fatalf("subagent_chars 0, still:\n%s", res.Context)
	}
}

// TestHoldsOnlyThePersonsForbiddingRuleOnce: the person's rule that
// forbids a command holds the first such call of each session — from the
// session's first call on, before it has a checkpoint — and lets the next
// run; a rule marked advisory, the repository's rule and guard.hold off
// hold nothing; the command the rule prescribes is never held.
func TestHoldsOnlyThePersonsForbiddingRuleOnce(t *testing.T) {
	e, repo, _ := guardWorld(t)
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "feedback", "payments.md"),
		"---\nname: payments\ndescription: Never run go test directly; run make test-payments\nmetadata:\n  type: feedback\n---\n")
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "feedback", "lint.md"),
		"---\nname: lint\ndescription: Never run golangci-lint by hand; CI runs it\nadvisory: true\nmetadata:\n  type: feedback\n---\n")
	storetest.Mkfile(t, store.RepoMemory(repo), "## Rules\n- Never run make deploy from a laptop\n")
	provenancetest.Entries(t, e, filepath.Join(e.LearnedDir(), "feedback", "payments.md"), filepath.Join(e.LearnedDir(), "feedback", "lint.md"))
	before := func(sid, command string) ToolResult {
		res, err := BeforeTool(context.Background(), e, ToolRequest{SessionID: sid, Cwd: repo, Tool: "Bash", Command: command})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := before("s1", "go test ./internal/payments/")
	if !strings.Contains(first.Hold, "Never run go test directly; run make test-payments") || !strings.Contains(first.Hold, "learned feedback, ~/.claude/ccmem/learned/feedback/payments.md") {
		t.Fatalf("the first forbidden call was not held: %+v", first)
	}
	if again := before("s1", "go test -run TestRefund ./internal/payments/"); again.Hold != "" || again.Context != "" {
		t.Fatalf("held or told twice in one session: %+v", again)
	}
	if other := before("s2", "go test ./..."); other.Hold == "" {
		t.Fatal("another session's first call was not held")
	}
	for _, free := range []string{"make test-payments", "golangci-lint run ./...", "make deploy"} {
		if res := before("s3", free); res.Hold != "" {
			t.Errorf("%q was held: %s", free, res.Hold)
		}
	}
	// A hold that cannot be decided within the hook's budget (a starved
	// CPU: the client may already have let the call run) says nothing and
	// spends nothing: the session's next such call is held (issue 47,
	// finding 7).
	late, err := BeforeTool(context.Background(), e, ToolRequest{SessionID: "s5", Cwd: repo, Tool: "Bash", Command: "go test ./...", Started: time.Now().Add(-holdWithin)})
	if err != nil || late.Hold != "" || late.Context != "" {
		t.Fatalf("a hold decided past the budget: %+v %v", late, err)
	}
	if res, err := BeforeTool(context.Background(), e, ToolRequest{SessionID: "s5", Cwd: repo, Tool: "Bash", Command: "go test ./...", Started: time.Now()}); err != nil || res.Hold == "" {
		t.Fatalf("the hold was spent by the call it could not judge: %+v %v", res, err)
	}
	storetest.Mkfile(t, e.GlobalConfig(), "guard:\n  hold: false\n")
	if res := before("s4", "go test ./..."); res.Hold != "" || !strings.Contains(res.Context, "Never run go test directly") {
		t.Fatalf("guard.hold off: %+v", res)
	}
}

// TestDecidable: the hold's budget is the hook's own time, within
// holdWithin and the configured deadline.
func TestDecidable(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		since    time.Duration
		deadline time.Duration
		want     bool
	}{{0, 4 * time.Second, true}, {holdWithin - time.Millisecond, 4 * time.Second, true}, {holdWithin, 4 * time.Second, false},
		{time.Second, 500 * time.Millisecond, false}, {10 * time.Second, 4 * time.Second, false}} {
		if got := decidable(now.Add(-c.since), c.deadline, now); got != c.want {
			t.Errorf("%v into a %v deadline: %v", c.since, c.deadline, got)
		}
	}
	if !decidable(time.Time{}, time.Second, now) {
		t.Error("no start known: decided")
	}
}

// writeEpisode writes a finished session with a digest into p's episodes.
func writeEpisode(t *testing.T, e store.Env, p store.Project, sid, title string, at time.Time, notes ...episode.Note) string {
	t.Helper()
	return storetest.Episode(t, e, p.Key, sid, title, at, notes...)
}
