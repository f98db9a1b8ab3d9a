package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// forkRecord is what the fork test reads of an episode.
type forkRecord struct {
	Parent string `json:"parent_session"`
	Turns  int    `json:"turns"`
	Digest struct {
		Notes []struct{ Kind, Text string } `json:"notes"`
	} `json:"digest"`
}

func readForkRecord(t *testing.T, path string) forkRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r forkRecord
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// prompts are the prompts a record's digest holds.
func (r forkRecord) prompts() []string {
	var out []string
	for _, n := range r.Digest.Notes {
		if n.Kind == "prompt" {
			out = append(out, n.Text)
		}
	}
	return out
}

// TestForkKeepsToItsOwnTurns: a session forked with --fork-session (whose
// transcript starts with a copy of its parent's) becomes an episode of its
// own turns that names its parent — both as the hooks record it live and
// as `ccmem import` reads the same transcripts later into an empty store —
// so the parent's words are in one episode, not two.
func TestForkKeepsToItsOwnTurns(t *testing.T) {
	w := newWorld(t, nil)
	const first, second = "plan the move of the billing cron to the scheduler service", "now write the rollback steps for the kestrel migration"
	parent := w.runJSON("-p", first)
	fork := w.runJSON("-p", "--resume", parent, "--fork-session", second)
	if fork == parent {
		t.Fatalf("--fork-session kept the session id %s", parent)
	}
	w.claude("-p", "anything new in the inbox?") // the next start archives both

	check := func(how string, episodes func(sid string) []string) {
		t.Helper()
		p, f := episodes(parent), episodes(fork)
		if len(p) != 1 || len(f) != 1 {
			t.Fatalf("%s: episodes of the parent %v, of the fork %v; want one each", how, p, f)
		}
		pr, fr := readForkRecord(t, p[0]), readForkRecord(t, f[0])
		if got := strings.Join(pr.prompts(), " | "); got != first {
			t.Errorf("%s: the parent's prompts: %q", how, got)
		}
		if got := strings.Join(fr.prompts(), " | "); got != second || fr.Turns != 1 || fr.Parent != parent {
			t.Errorf("%s: the fork's prompts %q, %d turns, parent %q; want only %q, 1 turn, parent %s", how, got, fr.Turns, fr.Parent, second, parent)
		}
	}
	check("recorded live", w.episodesOf)

	// The same transcripts imported into an empty store, an hour later
	// (import leaves sessions written to in the last 30 minutes alone).
	store := filepath.Join(t.TempDir(), "store")
	later := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	cmd := exec.Command(filepath.Join(binDir, "ccmem"), "import")
	cmd.Env, cmd.Dir = append(w.env(), "CCMEM_HOME="+store, "CCMEM_NOW="+later), w.project
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ccmem import: %v\n%s", err, out)
	}
	check("imported", func(sid string) []string {
		m, _ := filepath.Glob(filepath.Join(store, "projects", "*", "episodes", "*-"+sid+".json"))
		return m
	})
}
