package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/storetest"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/search"
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
