package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// forkWorld holds a parent transcript and its fork as Claude Code 2.1.330
// writes them (seen in e2e TestForkKeepsToItsOwnTurns): the fork opens
// with lines of its own, then copies of the parent's messages — the same
// uuid and timestamp, the fork's own sessionId, no word of the parent —
// then its own turn.
type forkWorld struct {
	e                  store.Env
	repo, parent, fork string
	forkStart          time.Time
}

func newForkWorld(t *testing.T) *forkWorld {
	t.Helper()
	e := storetest.Env(t)
	repo := filepath.Join(storetest.RealDir(t), "shop")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	silo := filepath.Join(e.SilosDir(), store.Slug(repo))
	base := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	ts := func(s int) string { return base.Add(time.Duration(s) * time.Second).Format("2006-01-02T15:04:05.000Z") }
	msg := func(typ, uuid, sid string, at int, content string) string {
		body := fmt.Sprintf(`{"role":"user","content":%q}`, content)
		if typ == "assistant" {
			body = fmt.Sprintf(`{"id":"m-%s","model":"claude-opus-5-5","role":"assistant","content":[{"type":"text","text":%q}]}`, uuid, content)
		}
		return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":%q,"message":%s,"uuid":%q,"timestamp":%q,"promptSource":"typed","entrypoint":"cli","userType":"external","cwd":%q,"sessionId":%q,"version":"2.1.330","gitBranch":"main"}`,
			typ, body, uuid, ts(at), repo, sid)
	}
	w := &forkWorld{e: e, repo: repo, parent: filepath.Join(silo, "p-1.jsonl"), fork: filepath.Join(silo, "f-1.jsonl"), forkStart: base.Add(60 * time.Second)}
	parent := []string{
		fmt.Sprintf(`{"type":"queue-operation","operation":"enqueue","timestamp":%q,"sessionId":"p-1"}`, ts(0)),
		msg("user", "u1", "p-1", 1, "plan the move of the billing cron to the scheduler service"),
		msg("assistant", "a1", "p-1", 5, "Planned: three steps."),
	}
	fork := []string{
		`{"type":"mode","mode":"default","sessionId":"f-1"}`,
		fmt.Sprintf(`{"type":"queue-operation","operation":"enqueue","timestamp":%q,"sessionId":"f-1"}`, ts(60)),
		msg("user", "u1", "f-1", 1, "plan the move of the billing cron to the scheduler service"),
		msg("assistant", "a1", "f-1", 5, "Planned: three steps."),
		msg("user", "u2", "f-1", 61, "now write the rollback steps for the kestrel migration"),
		msg("assistant", "a2", "f-1", 65, "Rollback steps written."),
	}
	old := base.Add(-time.Hour)
	for path, lines := range map[string][]string{w.parent: parent, w.fork: fork} {
		storetest.Mkfile(t, path, strings.Join(lines, "\n")+"\n")
		os.Chtimes(path, old, old)
	}
	return w
}

// TestForksOfTheNewerClients (finding 7, as 2.1.330 writes forks): the
// fork's record keeps only its own turn and names its parent, recorded
// live (its start said "fork") and read whole by an import (nothing said
// so).
func TestForksOfTheNewerClients(t *testing.T) {
	t.Run("live", func(t *testing.T) {
		w := newForkWorld(t)
		w.e.Now = func() time.Time { return w.forkStart }
		c, err := Capture(context.Background(), w.e, CaptureRequest{Turn: Turn{SessionID: "f-1", TranscriptPath: w.fork, Cwd: w.repo}, NewSession: true, Fork: true})
		if err != nil {
			t.Fatal(err)
		}
		c.finish(true)
		if c.Turns != 1 || c.Parent != "p-1" || !strings.Contains(c.Title, "rollback") {
			t.Fatalf("fork: turns %d, parent %q, title %q", c.Turns, c.Parent, c.Title)
		}
	})
	t.Run("imported", func(t *testing.T) {
		w := newForkWorld(t)
		w.e.Now = func() time.Time { return w.forkStart.Add(48 * time.Hour) }
		// As an import reads them (pkg/importer), the parent first.
		proj := store.ProjectAt(w.e, w.repo)
		forks := &Forks{}
		cfg := config.Default().Capture
		read := func(sid, path string) *Checkpoint {
			c, err := ReadWhole(context.Background(), Source{Path: path, SessionID: sid}, proj, &cfg, forks, w.forkStart.Add(48*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		p, f := SessionFile{Record: read("p-1", w.parent)}, SessionFile{Record: read("f-1", w.fork)}
		if p.Record.Turns != 1 || p.Record.Parent != "" {
			t.Errorf("parent: turns %d, parent %q", p.Record.Turns, p.Record.Parent)
		}
		var prompts []string
		for _, n := range f.Record.Digest.Notes {
			if n.Kind == NotePrompt {
				prompts = append(prompts, n.Text)
			}
		}
		if f.Record.Turns != 1 || f.Record.Parent != "p-1" || strings.Join(prompts, "|") != "now write the rollback steps for the kestrel migration" {
			t.Errorf("fork: turns %d, parent %q, prompts %q", f.Record.Turns, f.Record.Parent, prompts)
		}
	})
}

// TestForkScanWithHostileSiblings: transcripts beside a fork that are one
// endless line, or bury their first message under megabytes, are passed
// over (each is read for at most forkHeadBytes), and the parent is still
// found.
func TestForkScanWithHostileSiblings(t *testing.T) {
	w := newForkWorld(t)
	dir := filepath.Dir(w.fork)
	storetest.Mkfile(t, filepath.Join(dir, "endless.jsonl"), strings.Repeat("x", 8<<20))
	buried := strings.Repeat(`{"type":"attachment","content":"`+strings.Repeat("y", 1000)+`"}`+"\n", 1000) +
		`{"type":"user","uuid":"u1","timestamp":"2026-11-20T09:00:00.000Z","message":{"role":"user","content":"x"}}` + "\n"
	storetest.Mkfile(t, filepath.Join(dir, "buried.jsonl"), buried)
	ff := &forkFamilies{}
	if parent, _ := ff.parentOf(w.fork, "f-1", true); parent != "p-1" {
		t.Fatalf("parent %q, want p-1", parent)
	}
	if parent, _ := ff.parentOf(w.parent, "p-1", false); parent != "" {
		t.Fatalf("the original was given a parent: %q", parent)
	}
}
