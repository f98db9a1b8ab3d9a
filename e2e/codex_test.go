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
	codexOnce sync.Once
	codexBin  string
	codexErr  error
)

// codexClient installs the pinned Codex CLI (scripts/install-codex.sh, from
// npm into .cache) once, and returns its binary.
func codexClient(t *testing.T) string {
	t.Helper()
	codexOnce.Do(func() {
		root, _ := filepath.Abs("..")
		cmd := exec.Command("bash", filepath.Join(root, "scripts", "install-codex.sh"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			codexErr = fmt.Errorf("installing the pinned Codex CLI failed (scripts/install-codex.sh): %v\n%s", err, stderr.String())
			return
		}
		codexBin = strings.TrimSpace(stdout.String())
	})
	if codexErr != nil {
		t.Fatal(codexErr)
	}
	return codexBin
}

// codexHome is the world's CODEX_HOME, set up for Codex to talk to the
// scripted API (as a custom Responses provider) and nothing else.
func (w *world) codexHome() string {
	dir := filepath.Join(w.home, ".codex")
	w.write(filepath.Join(dir, "config.toml"), fmt.Sprintf(`# the person's own settings: install keeps every byte
model = "fake-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "the scripted API"
base_url = "%s/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0
`, w.api.URL))
	return dir
}

// codex runs one `codex exec` in the project and returns its output.
func (w *world) codex(bin, prompt string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "--skip-git-repo-check", prompt)
	cmd.Dir = w.project
	cmd.Env = append(w.env(), "CODEX_HOME="+filepath.Join(w.home, ".codex"), "FAKE_API_KEY=scripted")
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("codex exec: %v\n%s", err, out)
	}
	return string(out)
}

// TestCodexSharesTheMemory: after `ccmem install --codex --codex-trust`,
// the real Codex CLI (pinned, from npm) runs ccmem's hooks: its session
// starts with the project's block (which lists the Claude Code session
// before it), a prompt gets recall, and the session becomes an episode of
// the same project; the next Claude Code session there lists it, marked
// as Codex's, and search finds what it said; a rule the person accepted
// holds Codex's first call it forbids.
func TestCodexSharesTheMemory(t *testing.T) {
	t.Parallel()
	bin := codexClient(t)
	w := newWorld(t, nil)
	ch := w.codexHome()
	before, _ := os.ReadFile(filepath.Join(ch, "config.toml"))
	if out, err := w.ccmem("install", "--codex", "--codex-trust"); err != nil {
		t.Fatalf("ccmem install --codex --codex-trust: %v\n%s", err, out)
	}
	after, _ := os.ReadFile(filepath.Join(ch, "config.toml"))
	if !bytes.HasPrefix(after, before) || !bytes.Contains(after, []byte("trusted_hash")) {
		t.Fatalf("config.toml: the person's settings not kept, or no trust written:\n%s", after)
	}
	if out, err := w.ccmem("doctor"); !strings.Contains(out, "Codex") || strings.Contains(out, "not trusted") {
		t.Errorf("doctor on Codex (%v):\n%s", err, out)
	}

	// A Claude Code session first: a fact said in passing.
	w.claude("-p", "the staging postgres listens on port 6432 behind pgbouncer now; note it in docs/staging.md")

	// A Codex session: its first request carries the project's block and,
	// after its prompt, recall of that fact.
	w.api.SetResponsesScript(func(r scriptapi.ResponsesRequest) scriptapi.Reply {
		return scriptapi.Reply{Text: "Done: the webhook retries back off exponentially, capped at five minutes (heron-anvil)."}
	})
	n := len(w.api.ResponsesRequests())
	w.codex(bin, "which port does the staging database listen on these days? also set the webhook retries to exponential backoff capped at five minutes")
	reqs := w.api.ResponsesRequests()[n:]
	if len(reqs) == 0 {
		t.Fatal("codex sent no request")
	}
	dev := strings.Join(reqs[0].Texts("developer"), "\n")
	if !strings.Contains(dev, "# Recent sessions") || !strings.Contains(dev, "6432") {
		t.Errorf("the Codex session's first request lacks ccmem's block or recall:\n%.4000s", dev)
	}

	// The next Claude Code session lists the Codex session, marked so.
	m := len(w.api.MessageRequests())
	w.claude("-p", "what did we decide about the webhook retries?")
	got := w.contextAfter(m, injectedPrefix)
	if !strings.Contains(got, "in Codex") {
		t.Errorf("the next Claude Code session's block does not list the Codex session:\n%.4000s", got)
	}
	if out, err := w.ccmem("search", "heron-anvil"); err != nil || !strings.Contains(out, "webhook") {
		t.Errorf("search does not find what the Codex session said (%v):\n%s", err, out)
	}
	// A rule the person accepted that forbids a command holds Codex's
	// first such call too (the model reads the rule as the call's output);
	// the same call again runs.
	w.write(filepath.Join(w.home, ".claude", "ccmem", "review", "feedback", "payments-tests.md"),
		"---\nname: payments-tests\ndescription: Never run go test directly; run make test-payments\nmetadata:\n  type: feedback\norigin: friction\n---\n\nThe payments tests need their fixtures.\n")
	if out, err := w.ccmem("learn", "review", "--accept", "payments-tests"); err != nil {
		t.Fatalf("accept: %v\n%s", err, out)
	}
	marks := filepath.Join(w.home, "marks")
	w.write(filepath.Join(marks, ".keep"), "")
	calls := []string{"touch " + filepath.Join(marks, "first") + " && go test ./internal/payments/", "touch " + filepath.Join(marks, "second") + " && go test ./internal/payments/"}
	w.api.SetResponsesScript(func(r scriptapi.ResponsesRequest) scriptapi.Reply {
		if n := len(r.ToolOutputs()); n < len(calls) {
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": calls[n]}}}}
		}
		return scriptapi.Reply{Text: "done"}
	})
	n = len(w.api.ResponsesRequests())
	w.codex(bin, "run the payments tests")
	if _, err := os.Stat(filepath.Join(marks, "first")); err == nil {
		t.Error("Codex ran the first call the rule forbids")
	}
	if _, err := os.Stat(filepath.Join(marks, "second")); err != nil {
		t.Error("Codex did not run the same call made again")
	}
	held := ""
	for _, r := range w.api.ResponsesRequests()[n:] {
		if outs := r.ToolOutputs(); len(outs) > 0 {
			held = outs[0]
			break
		}
	}
	if !strings.Contains(held, "Never run go test directly") {
		t.Errorf("the model did not read the rule as the held call's output:\n%s", held)
	}

	// Uninstall takes back ccmem's hooks and trust, and nothing else.
	if out, err := w.ccmem("uninstall"); err != nil {
		t.Fatalf("ccmem uninstall: %v\n%s", err, out)
	}
	if final, _ := os.ReadFile(filepath.Join(ch, "config.toml")); !bytes.Equal(final, before) {
		t.Errorf("uninstall left config.toml changed:\n%s", final)
	}
}
