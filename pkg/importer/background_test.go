package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
	"github.com/ccmem/ccmem/pkg/transcript/transcripttest"
)

// TestBackgroundRunsOfOlderClients: in a project's real-looking history —
// a plugin's observer running `claude -p` with the same prompt every few
// minutes on a client that writes no entrypoint, a nightly job on a newer
// client, a person's own `claude -p` at the terminal on both clients, and
// a person's interactive sessions — every background run is out of the
// menu and every one of the person's runs is in it, whether ccmem met
// them by import or live.
func TestBackgroundRunsOfOlderClients(t *testing.T) {
	for _, how := range []string{"import", "live"} {
		t.Run(how, func(t *testing.T) {
			e := storetest.Env(t)
			repo := filepath.Join(storetest.RealDir(t), "shop")
			storetest.Mkfile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
			now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
			e.Now = func() time.Time { return now }
			silo := filepath.Join(e.SilosDir(), store.Slug(repo))
			start := now.Add(-72 * time.Hour)
			type run struct {
				sid        string
				background bool
				x          []string
				at         time.Time
			}
			var runs []run
			add := func(sid string, background bool, at time.Time, lines []string) {
				runs = append(runs, run{sid, background, lines, at})
			}
			// The observer: twenty runs, five minutes apart, one turn, a small model.
			for i := range 20 {
				at := start.Add(time.Duration(i) * 5 * time.Minute)
				x := (&transcripttest.OldTx{SID: fmt.Sprintf("obs-%02d", i), Cwd: repo, T: at}).Dequeue().
					Prompt("You are a memory observer for this project. Read the latest tool events and record what changed as JSON.").
					Say("claude-haiku-4-5", `{"observations":[]}`)
				add(x.SID, true, at, x.Lines)
			}
			// A person's own claude -p at the terminal, old client: different prompts.
			for i, p := range []string{"explain what the retry budget in pay.go does", "list the TODOs in the checkout module", "why does make test need docker"} {
				at := start.Add(time.Duration(2+i) * time.Hour)
				x := (&transcripttest.OldTx{SID: fmt.Sprintf("own-%d", i), Cwd: repo, T: at}).Dequeue().Prompt(p).Say("claude-opus-4-1", "Here is the answer.")
				add(x.SID, false, at, x.Lines)
			}
			// A person's interactive sessions, old client: typed, several turns.
			for i, p := range []string{"add retries to the payment client", "fix the flaky cart test", "move the queue to kafka"} {
				at := start.Add(time.Duration(6+i) * time.Hour)
				x := (&transcripttest.OldTx{SID: fmt.Sprintf("typed-%d", i), Cwd: repo, T: at}).Prompt(p).Say("claude-opus-4-1", "Done.").Prompt("thanks, and the docs?").Say("claude-opus-4-1", "Updated.")
				add(x.SID, false, at, x.Lines)
			}
			// A nightly job on a newer client (sdk-cli), and a person's own
			// claude -p there.
			for i := range 4 {
				at := start.Add(time.Duration(i)*24*time.Hour + 10*time.Hour)
				x := transcripttest.New(fmt.Sprintf("nightly-%d", i), repo)
				x.T, x.Entrypoint = at, "sdk-cli"
				x.Prompt("Summarise yesterday's commits into CHANGELOG.md").Say("Summarised.")
				add(x.SID, true, at, x.Lines)
			}
			x := transcripttest.New("own-new", repo)
			x.T, x.Entrypoint = start.Add(40*time.Hour), "sdk-cli"
			x.Prompt("what changed in the refunds endpoint this week?").Say("Two fixes.")
			add("own-new", false, x.T, x.Lines)

			for _, r := range runs {
				path := filepath.Join(silo, r.sid+".jsonl")
				storetest.Mkfile(t, path, strings.Join(r.x, "\n")+"\n")
				old := now.Add(-48 * time.Hour)
				os.Chtimes(path, old, old)
			}
			p, err := store.ResolveProject(e, repo)
			if err != nil {
				t.Fatal(err)
			}
			switch how {
			case "import":
				if _, err := Import(context.Background(), e, ImportOptions{}); err != nil {
					t.Fatal(err)
				}
			case "live":
				// Each run was captured by the hooks and archived by the
				// next session start, in the order they ran.
				sortRuns := runs
				for i := 1; i < len(sortRuns); i++ {
					for j := i; j > 0 && sortRuns[j].at.Before(sortRuns[j-1].at); j-- {
						sortRuns[j], sortRuns[j-1] = sortRuns[j-1], sortRuns[j]
					}
				}
				for _, r := range sortRuns {
					if _, err := session.Capture(context.Background(), e, session.CaptureRequest{Turn: session.Turn{Cwd: repo, SessionID: r.sid, TranscriptPath: filepath.Join(silo, r.sid+".jsonl"), Process: proc.Info{PID: 4194301}}, NewSession: true}); err != nil { // a process that is gone
						t.Fatal(err)
					}
					p, _ = store.ClaimProject(e, p)
					if _, err := session.ArchiveOrphans(context.Background(), e, p, session.Current{ID: "next"}, configDefault()); err != nil {
						t.Fatal(err)
					}
				}
			}
			p, _ = store.ResolveProject(e, repo)
			index, _ := os.ReadFile(e.IndexPath(p.Key))
			if os.Getenv("DBG") != "" {
				eps, _ := os.ReadDir(e.EpisodesDir(p.Key))
				cps, _ := os.ReadDir(e.CheckpointsDir(p.Key))
				t.Logf("%d episodes, %d checkpoints; index:\n%s", len(eps), len(cps), index)
			}
			for _, r := range runs {
				line := l2(index, r.sid)
				inMenu := line != "" && !session.IsAutomatedLine(line)
				if r.background && inMenu {
					t.Errorf("background run %s is in the menu: %s", r.sid, line)
				}
				if !r.background && !inMenu {
					t.Errorf("the person's run %s is not in the menu (line %q)", r.sid, line)
				}
			}
		})
	}
}

// l2 is the INDEX.md line of session sid.
func l2(index []byte, sid string) string {
	for _, l := range strings.Split(string(index), "\n") {
		if strings.HasSuffix(l, "-"+sid+".json") {
			return l
		}
	}
	return ""
}
