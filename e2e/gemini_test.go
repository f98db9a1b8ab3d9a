package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
)

var (
	geminiOnce sync.Once
	geminiBin  string
	geminiErr  error
)

// geminiClient installs the pinned Gemini CLI (scripts/install-gemini.sh,
// from npm into .cache) once, and returns its command.
func geminiClient(t *testing.T) string {
	t.Helper()
	geminiOnce.Do(func() {
		root, _ := filepath.Abs("..")
		cmd := exec.Command("bash", filepath.Join(root, "scripts", "install-gemini.sh"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			geminiErr = fmt.Errorf("installing the pinned Gemini CLI failed (scripts/install-gemini.sh): %v\n%s", err, stderr.String())
			return
		}
		geminiBin = strings.TrimSpace(stdout.String())
	})
	if geminiErr != nil {
		t.Fatal(geminiErr)
	}
	return geminiBin
}

// geminiHome is the world's ~/.gemini as a person has it: their own
// settings (an API key, no telemetry, no updates) and the project
// trusted, which headless Gemini needs.
func (w *world) geminiHome() string {
	dir := filepath.Join(w.home, ".gemini")
	w.write(filepath.Join(dir, "settings.json"), `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}
`)
	w.write(filepath.Join(dir, "trustedFolders.json"), fmt.Sprintf("{%q: \"TRUST_FOLDER\"}\n", w.project))
	return dir
}

// gemini runs one headless `gemini -y -p` in the project against the
// scripted API and returns its output.
func (w *world) gemini(bin, prompt string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-y", "-p", prompt)
	cmd.Dir = w.project
	cmd.Env = append(w.env(), "GEMINI_API_KEY=scripted", "GOOGLE_GEMINI_BASE_URL="+w.api.URL, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("gemini -p: %v\n%s", err, out)
	}
	return string(out)
}

// TestGeminiSharesTheMemory: after `ccmem install --gemini`, the real
// Gemini CLI (pinned, from npm) runs ccmem's hooks: its first request
// carries the project's block (a fact a Claude Code session stated) and
// recall after the prompt; the session becomes an episode of the same
// project, which the next Claude Code session lists as Gemini's; a rule
// the person accepted holds Gemini's first shell call it forbids; and
// uninstall leaves Gemini's settings byte for byte as they were.
func TestGeminiSharesTheMemory(t *testing.T) {
	t.Parallel()
	bin := geminiClient(t)
	w := newWorld(t, nil)
	gh := w.geminiHome()
	before, _ := os.ReadFile(filepath.Join(gh, "settings.json"))
	if out, err := w.ccmem("install", "--gemini"); err != nil {
		t.Fatalf("ccmem install --gemini: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(filepath.Join(gh, "settings.json")); !bytes.Contains(after, []byte("BeforeAgent")) || !bytes.Contains(after, []byte(`"gemini-api-key"`)) {
		t.Fatalf("settings.json after install: no hooks, or the person's settings lost:\n%s", after)
	}

	if out, err := w.ccmem("doctor"); !strings.Contains(out, "Gemini hooks") || strings.Contains(out, "not as this ccmem registers them") {
		t.Errorf("doctor on Gemini (%v):\n%s", err, out)
	}

	// A Claude Code session first: a fact said in passing, in its second
	// turn (so that no title in the block holds it: only recall can).
	staging := w.runJSON("-p", "set up the staging docs in docs/staging.md")
	w.claude("-p", "--resume", staging, "good. by the way the staging postgres listens on port 6432 behind pgbouncer now, put that in the doc too")
	// Other sessions after it (recall weighs a word by how few sessions
	// hold it); their starts archive it, and search waits for its index.
	for _, chore := range []string{"bump the linter", "fix the flaky cart test"} {
		w.claude("-p", chore)
	}
	if out, err := w.ccmem("search", "pgbouncer"); err != nil || !strings.Contains(out, staging) {
		t.Fatalf("search does not find the Claude Code session's fact (%v):\n%s", err, out)
	}

	// A Gemini session: its first turn carries the project's block and,
	// after its prompt, recall of that fact.
	w.api.SetGeminiScript(func(r scriptapi.GeminiRequest) scriptapi.Reply {
		return scriptapi.Reply{Text: "Done: the webhook retries back off exponentially, capped at five minutes (heron-anvil)."}
	})
	n := len(w.api.GeminiRequests())
	out := w.gemini(bin, "which port does the staging database listen on these days?")
	reqs := w.api.GeminiRequests()[n:]
	if len(reqs) == 0 {
		t.Fatalf("gemini sent no turn:\n%s", out)
	}
	user := strings.Join(reqs[0].Texts("user"), "\n")
	if !strings.Contains(user, "<hook_context>") || !strings.Contains(user, "Recent sessions") || !strings.Contains(user, "6432 behind pgbouncer") || !strings.Contains(user, staging+".json (turn 2)") {
		t.Errorf("the Gemini session's first turn lacks ccmem's block or recall:\n%.4000s\n(gemini printed: %s)", user, out)
	}
	if strings.Contains(out, "Hook system message") {
		t.Errorf("a hook printed to the person's terminal:\n%s", out)
	}

	// The next Claude Code session lists the Gemini session, marked so.
	m := len(w.api.MessageRequests())
	w.claude("-p", "what did we decide about the webhook retries?")
	if got := w.contextAfter(m, injectedPrefix); !strings.Contains(got, "in Gemini CLI") {
		t.Errorf("the next Claude Code session's block does not list the Gemini session:\n%.4000s", got)
	}
	if out, err := w.ccmem("search", "heron-anvil"); err != nil || !strings.Contains(out, "webhook") {
		t.Errorf("search does not find what the Gemini session said (%v):\n%s", err, out)
	}
	if out, err := w.ccmem("episodes"); err != nil || strings.Count(out, "Gemini") < 1 {
		t.Errorf("ccmem episodes does not list one Gemini CLI session (%v):\n%s", err, out)
	}

	// A rule the person accepted that forbids a command holds Gemini's
	// first such call (the model reads the rule as the call's error); the
	// same call again runs.
	w.write(filepath.Join(w.home, ".claude", "ccmem", "review", "feedback", "payments-tests.md"),
		"---\nname: payments-tests\ndescription: Never run go test directly; run make test-payments\nmetadata:\n  type: feedback\norigin: friction\n---\n\nThe payments tests need their fixtures.\n")
	if out, err := w.ccmem("learn", "review", "--accept", "payments-tests"); err != nil {
		t.Fatalf("accept: %v\n%s", err, out)
	}
	marks := filepath.Join(w.home, "marks")
	w.write(filepath.Join(marks, ".keep"), "")
	calls := []string{"touch " + filepath.Join(marks, "first") + " && go test ./internal/payments/", "touch " + filepath.Join(marks, "second") + " && go test ./internal/payments/"}
	w.api.SetGeminiScript(func(r scriptapi.GeminiRequest) scriptapi.Reply {
		if n := len(r.ToolOutputs()); n < len(calls) {
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": calls[n]}}}}
		}
		return scriptapi.Reply{Text: "done"}
	})
	n = len(w.api.GeminiRequests())
	out = w.gemini(bin, "run the payments tests")
	if _, err := os.Stat(filepath.Join(marks, "first")); err == nil {
		t.Errorf("Gemini ran the first call the rule forbids:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(marks, "second")); err != nil {
		t.Errorf("Gemini did not run the same call made again:\n%s", out)
	}
	held := ""
	for _, r := range w.api.GeminiRequests()[n:] {
		if outs := r.ToolOutputs(); len(outs) > 0 {
			held = outs[0]
			break
		}
	}
	if !strings.Contains(held, "Never run go test directly") {
		t.Errorf("the model did not read the rule as the held call's result:\n%s", held)
	}

	// Uninstall takes back ccmem's hooks, and nothing else.
	if out, err := w.ccmem("uninstall"); err != nil {
		t.Fatalf("ccmem uninstall: %v\n%s", err, out)
	}
	if final, _ := os.ReadFile(filepath.Join(gh, "settings.json")); !bytes.Equal(final, before) {
		t.Errorf("uninstall left Gemini's settings.json changed:\nbefore:\n%s\nafter:\n%s", before, final)
	}
}
