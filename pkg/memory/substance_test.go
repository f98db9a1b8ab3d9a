package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestAutomatedRunsKeptOutOfTheMenu (finding 2): sessions another program
// started are recorded and searchable, but the menu shows a person's
// sessions and one line counting the automated runs.
func TestAutomatedRunsKeptOutOfTheMenu(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	dead := proc.Info{PID: 4194301}
	run := func(sid, prompt string, at time.Time, automated bool) {
		tr := filepath.Join(e.ClaudeDir, "projects", p.Key, sid+".jsonl")
		storetest.Mkfile(t, tr, fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q},"timestamp":%q,"entrypoint":"sdk-cli","cwd":%q}`+"\n"+
			`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"done"}]},"timestamp":%q}`+"\n", prompt, at.Format(time.RFC3339), repo, at.Format(time.RFC3339)))
		by := ""
		if automated {
			by = "a CI job (GitHub Actions)"
		}
		Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: sid, TranscriptPath: tr, Process: dead,
			Automation: func() string { return by }})
	}
	base := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	run("p1", "add retries to the invoice exporter", base, false)
	for i := range 12 {
		run(fmt.Sprintf("a%02d", i), fmt.Sprintf("You are a memory observer. Summarise run %d.", i), base.Add(time.Duration(i+1)*time.Hour), true)
	}
	run("p2", "fix the flaky checkout test", base.Add(20*time.Hour), false)
	block := Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "now"}).Block.Text
	if !strings.Contains(block, "add retries to the invoice exporter") || !strings.Contains(block, "fix the flaky checkout test") {
		t.Fatalf("a person's session is missing from the menu:\n%s", block)
	}
	if strings.Contains(block, "memory observer") || !strings.Contains(block, "12 automated runs since 2026-11-02 — `ccmem episodes --automated`") {
		t.Fatalf("automated runs in the menu, or no line counting them:\n%s", block)
	}
	hits, err := search.Search(context.Background(), e, "memory observer summarise", search.Options{Scope: search.ScopeOf(&p, false)})
	if err != nil || len(hits) == 0 {
		t.Fatalf("automated runs are not searchable: %v %v", hits, err)
	}
	eps, _ := os.ReadDir(e.EpisodesDir(p.Key))
	if len(eps) != 14 {
		t.Fatalf("%d episodes, want 14", len(eps))
	}
}

// TestScheduledRunsKeptOutOfTheMenu: a scheduled headless run (cron, a
// timer) has no other program's process above it; it is told by its
// opening prompt, the same as its recent runs': from its third run on it
// is automated, and the runs before it with it. A person repeating a
// prompt at the terminal is not.
func TestScheduledRunsKeptOutOfTheMenu(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	dead := proc.Info{PID: 4194301}
	run := func(sid, entrypoint, prompt string, at time.Time) {
		tr := filepath.Join(e.ClaudeDir, "projects", p.Key, sid+".jsonl")
		storetest.Mkfile(t, tr, fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q},"timestamp":%q,"entrypoint":%q,"cwd":%q}`+"\n"+
			`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"done"}]},"timestamp":%q}`+"\n", prompt, at.Format(time.RFC3339), entrypoint, repo, at.Format(time.RFC3339)))
		Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: sid, TranscriptPath: tr, Process: dead,
			Automation: func() string { return "" }})
	}
	base := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	for i := range 5 {
		run(fmt.Sprintf("night-%d", i), "sdk-cli", fmt.Sprintf("Nightly %d: summarise yesterday's commits into CHANGELOG.md", 20261102+i), base.Add(time.Duration(i)*24*time.Hour))
		run(fmt.Sprintf("term-%d", i), "cli", "run the tests", base.Add(time.Duration(i)*24*time.Hour+time.Hour))
	}
	block := Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "now"}).Block.Text
	// From the third run on the series is known, and the runs before it
	// leave the menu too.
	if n := strings.Count(block, "Nightly"); n != 0 || !strings.Contains(block, "5 automated runs since 2026-11-02") {
		t.Fatalf("the menu shows %d nightly runs (want none) or does not count them:\n%s", n, block)
	}
	if n := strings.Count(block, `"run the tests"`); n != 5 {
		t.Fatalf("a person's repeated prompt: %d of 5 in the menu:\n%s", n, block)
	}
}
