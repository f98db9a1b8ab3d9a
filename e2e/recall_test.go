package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
)

// oldGoal is the first of many sessions: by the time it is searched for,
// ten newer sessions have pushed it out of the start-up menu.
const oldGoal = "add jittered retries to the invoice PDF exporter"

// manySessions runs the session of oldGoal, then n newer ones, each a real
// headless session; it returns the old session's id.
func (w *world) manySessions(n int) string {
	w.t.Helper()
	sid := w.runJSON("-p", oldGoal)
	for i := 1; i <= n; i++ {
		w.claude("-p", fmt.Sprintf("chore %d: tidy the %s build scripts", i, []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima"}[i%12]))
	}
	return sid
}

type searchHit struct {
	Kind  string `json:"kind"`
	Path  string `json:"path"`
	Title string `json:"title"`
}

func (w *world) search(args ...string) []searchHit {
	w.t.Helper()
	out, err := w.ccmem(append([]string{"search", "--json"}, args...)...)
	if err != nil {
		w.t.Fatalf("ccmem search: %v\n%s", err, out)
	}
	var hits []searchHit
	if err := json.Unmarshal([]byte(out), &hits); err != nil {
		w.t.Fatalf("ccmem search --json printed %q: %v", out, err)
	}
	return hits
}

// TestSearchFindsOldSessions: after many real sessions, search finds the
// first session's episode by the words of its prompt, though ten newer
// sessions pushed it out of the menu; a learned entry and a global fact are
// found first by their own words; no match is [].
func TestSearchFindsOldSessions(t *testing.T) {
	// Long (a release build, a long history): run beside the others.
	t.Parallel()
	w := newWorld(t, nil)
	old := w.manySessions(11)
	if block := w.showBlock(); strings.Contains(block, oldGoal) {
		t.Fatalf("the old session is still in the menu; the test wants it out:\n%s", block)
	}
	hits := w.search("invoice", "PDF", "exporter", "retry")
	if len(hits) == 0 || hits[0].Kind != "episode" || !strings.HasSuffix(hits[0].Path, "-"+old+".json") {
		t.Fatalf("the old session's episode is not first: %+v", hits)
	}
	// A learned entry, curated from a silo, and a global fact.
	w.seedSilo("-home-dev-src-api", map[string]string{"nomad.md": memoryFile("deploy-with-nomad", "user", "The user deploys every service with HashiCorp Nomad")})
	if out, err := w.ccmem("learn", "apply"); err != nil {
		t.Fatalf("ccmem learn apply: %v\n%s", err, out)
	}
	if out, err := w.ccmem("remember", "Prefers Tailwind over CSS modules for styling"); err != nil {
		t.Fatalf("ccmem remember: %v\n%s", err, out)
	}
	if hits := w.search("HashiCorp", "Nomad"); len(hits) == 0 || hits[0].Kind != "learned" || filepath.Base(hits[0].Path) != "deploy-with-nomad.md" {
		t.Fatalf("the learned entry is not first: %+v", hits)
	}
	if hits := w.search("tailwind", "css"); len(hits) == 0 || hits[0].Kind != "global" || !strings.Contains(hits[0].Title, "Tailwind") {
		t.Fatalf("the global fact is not first: %+v", hits)
	}
	if out, err := w.ccmem("search", "--json", "zeppelin", "marmalade"); err != nil || strings.TrimSpace(out) != "[]" {
		t.Fatalf("no match printed %q (%v), want []", out, err)
	}
}

// TestMCPSearchTool: the scripted model calls mcp__ccmem__search on the
// server `ccmem install` registered; the tool's result holds the episode.
func TestMCPSearchTool(t *testing.T) {
	w := newWorld(t, nil)
	old := w.runJSON("-p", oldGoal)
	w.claude("-p", "and something else")
	var result string
	offered := false
	w.api.SetScript(func(r scriptapi.MessagesRequest) scriptapi.Reply {
		if toolResults(r) == 0 {
			offered = offered || occurrences(r, "mcp__ccmem__search") > 0
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "mcp__ccmem__search", Input: map[string]any{"query": "invoice PDF exporter retries"}}}}
		}
		for _, m := range r.Messages {
			for _, b := range m.Blocks() {
				if b.Type == "tool_result" {
					result = string(b.Content)
				}
			}
		}
		return scriptapi.Reply{Text: "found it"}
	})
	w.claude("-p", "what did we do about the PDF exporter?", "--allowedTools", "mcp__ccmem__search")
	if !offered {
		t.Error("the client did not offer mcp__ccmem__search to the model: the MCP server is not registered or did not start")
	}
	if !strings.Contains(result, oldGoal) || !strings.Contains(result, old+".json") {
		t.Fatalf("the tool result lacks the episode:\n%s", result)
	}
}

// TestPromptRecallsOldSession: a prompt about a session no longer in the
// start-up menu gets its episode in the UserPromptSubmit context; small
// talk gets no context.
func TestPromptRecallsOldSession(t *testing.T) {
	// Long (a release build, a long history): run beside the others.
	t.Parallel()
	w := newWorld(t, nil)
	old := w.manySessions(11)
	const promptPrefix = "UserPromptSubmit hook additional context: "
	contextOf := func(from int) string {
		var out []string
		for _, r := range w.api.MessageRequests()[from:] {
			for _, text := range r.Texts() {
				if i := strings.Index(text, promptPrefix); i >= 0 {
					out = append(out, text[i:])
				}
			}
		}
		return strings.Join(out, "\n")
	}
	n := len(w.api.MessageRequests())
	w.claude("-p", "how did we add the retries to the invoice PDF exporter?")
	got := contextOf(n)
	if !strings.Contains(got, oldGoal) || !strings.Contains(got, old+".json") {
		t.Fatalf("the prompt's context lacks the old session's episode:\n%s", got)
	}
	n = len(w.api.MessageRequests())
	w.claude("-p", "thanks!")
	if got := contextOf(n); got != "" {
		t.Fatalf("small talk got context:\n%s", got)
	}
}
