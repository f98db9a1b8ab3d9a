package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
)

// TestFactInTheThirdPromptIsFound: a real session whose key fact is stated
// in its third prompt (two resumed turns after the first) is found by
// ccmem search for that fact once the session is over, and its episode's
// digest holds the prompt.
func TestFactInTheThirdPromptIsFound(t *testing.T) {
	w := newWorld(t, nil)
	sid := w.runJSON("-p", "set up the staging docs in docs/staging.md")
	w.claude("-p", "--resume", sid, "now add a section about the seed data")
	w.claude("-p", "--resume", sid, "good. by the way the staging postgres listens on port 6432 behind pgbouncer now, put that in the doc too")
	w.claude("-p", "anything new in the inbox?") // the next start archives it
	eps := w.episodesOf(sid)
	if len(eps) != 1 {
		t.Fatalf("episodes of the session: %v", eps)
	}
	data, _ := os.ReadFile(eps[0])
	var ep struct {
		Title  string `json:"title"`
		Digest struct {
			Notes []struct{ Kind, Text string } `json:"notes"`
		} `json:"digest"`
	}
	if err := json.Unmarshal(data, &ep); err != nil {
		t.Fatal(err)
	}
	prompts := 0
	for _, n := range ep.Digest.Notes {
		if n.Kind == "prompt" {
			prompts++
		}
	}
	if prompts != 3 || ep.Title != "set up the staging docs in docs/staging.md" {
		t.Fatalf("title %q, %d prompts in the digest:\n%s", ep.Title, prompts, data)
	}
	hits := w.search("which", "port", "does", "staging", "postgres", "use")
	if len(hits) == 0 || !strings.HasSuffix(hits[0].Path, "-"+sid+".json") {
		t.Fatalf("the session is not the first hit: %+v", hits)
	}
	w.sameAsLive(w.importAll(), sid) // three runs of one session, imported
}

// TestAutomatedRunsStayOutOfTheMenu: a claude -p that a live session's
// Bash tool starts (a client started by a client) is recorded as an
// automated run: the next session's menu leaves it out and counts it, and
// search finds it; a claude -p started as a person starts one, from a
// terminal, stays in the menu.
func TestAutomatedRunsStayOutOfTheMenu(t *testing.T) {
	w := newWorld(t, nil)
	const spawn, observe = "SPAWN-OBSERVER: run the observer over this session", "observer: note the work on the zeppelin ledger"
	w.api.SetScript(func(r scriptapi.MessagesRequest) scriptapi.Reply {
		// The prompt is in the request's last user message (the menu a
		// later session is given holds it too, in a system message).
		last := ""
		for _, m := range r.Messages {
			if m.Role != "user" {
				continue
			}
			last = ""
			for _, b := range m.Blocks() {
				if b.Type == "text" {
					last += b.Text + "\n"
				}
			}
		}
		switch {
		case strings.Contains(last, observe):
			return scriptapi.Reply{Text: "observation recorded: zeppelin ledger reconciled"}
		case strings.Contains(last, spawn) && toolResults(r) == 0:
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{
				"command":     claudeBin + " -p '" + observe + "' --permission-mode acceptEdits",
				"description": "run the observer", "timeout": 120000}}}}
		}
		return scriptapi.Reply{Text: "ok"}
	})
	w.claude("-p", spawn)
	w.waitForTranscript("observation recorded", 0)
	w.claude("-p", "tidy the kestrel build scripts") // a person's claude -p
	from := len(w.api.MessageRequests())
	w.claude("-p", "what's next?")
	block := w.onlyInjection(from)
	if !strings.Contains(block, "tidy the kestrel build scripts") || !strings.Contains(block, "SPAWN-OBSERVER") {
		t.Fatalf("a person's session is missing from the menu:\n%s", block)
	}
	if strings.Contains(block, "zeppelin") || !strings.Contains(block, "1 automated run since") {
		out, _ := w.ccmem("episodes", "--automated", "--json")
		t.Fatalf("the automated run is in the menu, or not counted:\n%s\n%s", block, out)
	}
	hits := w.search("zeppelin", "ledger")
	if len(hits) == 0 || hits[0].Kind != "episode" {
		t.Fatalf("search does not find the automated run: %+v", hits)
	}
	out, err := w.ccmem("episodes", "--automated", "--json")
	if err != nil || !strings.Contains(out, `"automated_by": "started by another Claude Code process`) {
		t.Fatalf("ccmem episodes --automated: %v\n%s", err, out)
	}

	// The same transcripts imported into an empty store an hour later: no
	// process tree to look at, so the import tells the run apart by the
	// Bash call that started it.
	store := filepath.Join(t.TempDir(), "store")
	cmd := exec.Command(filepath.Join(binDir, "ccmem"), "import")
	cmd.Env, cmd.Dir = append(w.env(), "CCMEM_HOME="+store, "CCMEM_NOW="+time.Now().Add(time.Hour).UTC().Format(time.RFC3339)), w.project
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ccmem import: %v\n%s", err, out)
	}
	eps, _ := filepath.Glob(filepath.Join(store, "projects", "*", "episodes", "*.json"))
	marked := map[string]bool{}
	for _, p := range eps {
		var ep struct {
			Title     string `json:"title"`
			Automated bool   `json:"automated"`
		}
		data, _ := os.ReadFile(p)
		if err := json.Unmarshal(data, &ep); err != nil {
			t.Fatal(err)
		}
		marked[ep.Title] = ep.Automated
	}
	want := map[string]bool{observe: true, spawn: false, "tidy the kestrel build scripts": false, "what's next?": false}
	for title, automated := range want {
		if got, ok := marked[title]; !ok || got != automated {
			t.Errorf("imported %q: automated %v (found %v), want %v; all: %v", title, got, ok, automated, marked)
		}
	}
}
