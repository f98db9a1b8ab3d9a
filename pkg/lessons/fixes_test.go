package lessons

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// sessionScript writes Claude Code transcripts and captures them as the
// Stop hook does: what the lessons are drawn from is a real session's
// record, its failures and fixes found by the capture itself.
type sessionScript struct {
	t    *testing.T
	e    store.Env
	repo string
	eps  []session.SessionFile
}

func newSessionScript(t *testing.T) *sessionScript {
	e := storetest.Env(t)
	repo := filepath.Join(storetest.RealDir(t), "shop")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	return &sessionScript{t: t, e: e, repo: repo}
}

// step is a shell command and what it printed; failed marks an error.
type step struct {
	cmd, out string
	failed   bool
}

// session captures one session started at day, of a prompt and commands.
func (s *sessionScript) session(day time.Time, prompt string, steps ...step) *session.Checkpoint {
	s.t.Helper()
	sid := fmt.Sprintf("s%02d", len(s.eps))
	ts := func(i int) string { return day.Add(time.Duration(i) * time.Minute).UTC().Format(time.RFC3339Nano) }
	line := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			s.t.Fatal(err)
		}
		return string(b)
	}
	lines := []string{line(map[string]any{"type": "user", "timestamp": ts(0), "sessionId": sid, "cwd": s.repo,
		"message": map[string]any{"role": "user", "content": prompt}})}
	for i, st := range steps {
		id := fmt.Sprintf("t%d", i)
		lines = append(lines,
			line(map[string]any{"type": "assistant", "timestamp": ts(2*i + 1), "message": map[string]any{"id": "m" + id, "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": st.cmd}}}}}),
			line(map[string]any{"type": "user", "timestamp": ts(2*i + 2), "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "is_error": st.failed, "content": st.out}}}}))
	}
	lines = append(lines, line(map[string]any{"type": "assistant", "timestamp": ts(2*len(steps) + 1), "message": map[string]any{"id": "mend", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": "Done."}}}}))
	tr := filepath.Join(s.e.ClaudeDir, "projects", "shop", sid+".jsonl")
	storetest.Mkfile(s.t, tr, strings.Join(lines, "\n")+"\n")
	c, err := session.Capture(context.Background(), s.e, session.CaptureRequest{Turn: session.Turn{SessionID: sid, TranscriptPath: tr, Cwd: s.repo}})
	if err != nil {
		s.t.Fatal(err)
	}
	s.eps = append(s.eps, session.SessionFile{Path: "/episodes/" + sid + ".json", Record: c})
	return c
}

const pbError = "internal/api/orders.go:12:2: undefined: pb.OrderExport\nmake: *** [Makefile:2: build] Error 1"

// TestLessonFromFailureAndFix is the newcomer's case: in six sessions
// `make build` failed with the same error and passed once `make codegen`
// had run — four times as two commands, twice chained — each session
// ending calm. The first candidate names `make codegen` before `make
// build`, with its evidence (dates, the error's first line, the turn it
// passed), and no general sentence comes before it.
func TestLessonFromFailureAndFix(t *testing.T) {
	s := newSessionScript(t)
	day := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	for i := range 6 {
		fix := []step{{"make codegen", "generated 14 files", false}, {"make build", "ok", false}}
		if i >= 4 {
			fix = []step{{"make codegen && make build", "generated 14 files\nok", false}}
		}
		c := s.session(day.AddDate(0, 0, i), fmt.Sprintf("add the order export endpoint, part %d", i+1),
			append([]step{{"git status", "clean", false}, {"make build", pbError, true}}, fix...)...)
		if c.Friction.Class == "FRICTION" || c.Friction.Class == "BAD" {
			t.Fatalf("session %d was classed %s: the case is sessions that ended calm", i, c.Friction.Class)
		}
	}
	rep := Analyze(s.eps, time.Time{})
	if len(rep.Lessons) != 1 {
		t.Fatalf("lessons: %+v", rep.Lessons)
	}
	l := rep.Lessons[0]
	if l.Command != "make build" || l.Fix != "make codegen" || l.Sessions != 6 || l.Fixed != 6 || l.Error != "internal/api/orders.go:12:2: undefined: pb.OrderExport" {
		t.Fatalf("the lesson: %+v", l)
	}
	if len(rep.Rules) == 0 {
		t.Fatal("no candidate rule")
	}
	r := rep.Rules[0]
	want := "`make build` fails with `internal/api/orders.go:12:2: undefined: pb.OrderExport` unless `make codegen` runs first: run `make codegen` before `make build`."
	if r.Rule != want || r.Pattern != "cmd:make build" || r.Confidence != "High" {
		t.Fatalf("the first candidate:\n%+v\nwant the rule %q", r, want)
	}
	ev := strings.Join(r.Evidence, "\n")
	for _, w := range []string{"2026-11-15 “add the order export endpoint, part 6”: `make build` failed 1 time (`internal/api/orders.go:12:2: undefined: pb.OrderExport`); passed at turn",
		"after `make codegen`", "/episodes/s00.json"} {
		if !strings.Contains(ev, w) && !strings.Contains(strings.Join(l.Evidence, "\n"), w) {
			t.Errorf("the evidence lacks %q:\n%s", w, strings.Join(l.Evidence, "\n"))
		}
	}
	if strings.Contains(ev, `\"`) || strings.Contains(ev, `\u`) {
		t.Errorf("the evidence is escaped:\n%s", ev)
	}
	for _, r := range rep.Rules[1:] {
		if strings.HasPrefix(r.Pattern, "signal:") && r.Seen > 0 {
			t.Errorf("a general sentence beside the lesson: %+v", r)
		}
	}
}

// TestLessonFromALaterSession: `make build` failed in two sessions and
// was left failing; in a third it passed the first time, right after
// `make codegen` ran. The lesson names that fix, from the later session.
// A command that ran before the failures and did not help is no fix.
func TestLessonFromALaterSession(t *testing.T) {
	s := newSessionScript(t)
	day := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	s.session(day, "wire the export into the API",
		step{"go mod tidy", "", false}, step{"make build", pbError, true}, step{"make build", pbError, true})
	s.session(day.AddDate(0, 0, 1), "try the export again",
		step{"go mod tidy", "", false}, step{"make build", pbError, true})
	s.session(day.AddDate(0, 0, 3), "finish the export",
		step{"ls internal/api", "orders.go", false}, step{"make codegen", "generated 14 files", false},
		step{"cat internal/api/orders.go", "package api", false}, step{"make build", "ok", false})
	rep := Analyze(s.eps, time.Time{})
	if len(rep.Lessons) != 1 {
		t.Fatalf("lessons: %+v", rep.Lessons)
	}
	l := rep.Lessons[0]
	if l.Command != "make build" || l.Fix != "make codegen" || l.Sessions != 2 || l.Fixed != 1 || l.Retries != 3 {
		t.Fatalf("the lesson: %+v", l)
	}
	ev := strings.Join(l.Evidence, "\n")
	for _, w := range []string{"2026-11-13 “finish the export”: `make build` passed the first time, after `make codegen`",
		"2026-11-10 “wire the export into the API”: `make build` failed 2 times", "not passing when the session ended"} {
		if !strings.Contains(ev, w) {
			t.Errorf("the evidence lacks %q:\n%s", w, ev)
		}
	}
	if r := rep.Rules[0]; !strings.Contains(r.Rule, "run `make codegen` before `make build`") {
		t.Fatalf("the first candidate: %+v", r)
	}
}

// TestNoLessonFromLooksAndScripts: what real people's sessions showed the
// first version of lessons making rules of (corpus replay, this round):
// a look that fails on a missing file (ls, grep, cat) teaches nothing; a
// call the client cancelled because its sibling failed is no failure; and
// a one-off pipeline or loop that happened to run before a step passed is
// no command to put in a rule.
func TestNoLessonFromLooksAndScripts(t *testing.T) {
	s := newSessionScript(t)
	day := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	for i := range 3 {
		s.session(day.AddDate(0, 0, i), fmt.Sprintf("look around, part %d", i+1),
			step{"ls internal/missing/", "ls: cannot access 'internal/missing/': No such file or directory", true},
			step{"grep -rn Retry internal/", "", true},
			step{"make lint", "<tool_use_error>Cancelled: parallel tool call Bash(grep -rn Retry internal/) errored</tool_use_error>", true},
			step{"make build", pbError, true},
			step{"ps aux | grep -E 'codegen|protoc' | head -5", "", false},
			step{"make build", "ok", false})
	}
	rep := Analyze(s.eps, time.Time{})
	for _, l := range rep.Lessons {
		switch {
		case l.Command == "ls" || l.Command == "grep":
			t.Errorf("a lesson from a look: %+v", l)
		case l.Command == "make lint":
			t.Errorf("a lesson from a cancelled call: %+v", l)
		case l.Fix != "":
			t.Errorf("a one-off pipeline as a fix: %+v", l)
		}
	}
	for _, r := range rep.Rules {
		if strings.Contains(r.Rule, "ps aux") {
			t.Errorf("a rule names a one-off pipeline: %s", r.Rule)
		}
	}
}
