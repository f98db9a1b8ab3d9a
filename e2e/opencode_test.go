package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
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
	opencodeOnce sync.Once
	opencodeBin  string
	opencodeErr  error
)

// opencodeClient installs the pinned opencode (scripts/install-opencode.sh,
// from npm into .cache) once, and returns its command.
func opencodeClient(t *testing.T) string {
	t.Helper()
	opencodeOnce.Do(func() {
		root, _ := filepath.Abs("..")
		cmd := exec.Command("bash", filepath.Join(root, "scripts", "install-opencode.sh"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			opencodeErr = fmt.Errorf("installing the pinned opencode failed (scripts/install-opencode.sh): %v\n%s", err, stderr.String())
			return
		}
		opencodeBin = strings.TrimSpace(stdout.String())
	})
	if opencodeErr != nil {
		t.Fatal(opencodeErr)
	}
	return opencodeBin
}

// opencodeHome is the world's ~/.config/opencode as a person has it: a
// provider (here the scripted API) and the plugin package opencode
// installs into the folder, copied from the client's cache (offline,
// opencode would wait about 80 s trying to fetch it).
func (w *world) opencodeHome(bin string) string {
	dir := filepath.Join(w.home, ".config", "opencode")
	w.write(filepath.Join(dir, "opencode.json"), fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "scripted/scripted-model",
  "small_model": "scripted/scripted-model",
  "provider": {
    "scripted": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Scripted API",
      "options": {"baseURL": %q, "apiKey": "scripted"},
      "models": {"scripted-model": {"name": "Scripted", "tool_call": true, "limit": {"context": 128000, "output": 4096}}}
    }
  }
}
`, w.api.URL+"/v1"))
	sdk := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(bin))), "config")
	if out, err := exec.Command("cp", "-R", sdk+"/.", dir).CombinedOutput(); err != nil {
		w.t.Fatalf("copying opencode's plugin package into the world: %v\n%s", err, out)
	}
	return dir
}

// opencode runs one `opencode run` in the project against the scripted
// API and returns its output; the prompt goes as words (one argument
// with spaces would reach the model quoted).
func (w *world) opencode(bin, prompt string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"run"}, strings.Fields(prompt)...)...)
	cmd.Dir = w.project
	cmd.Env = append(w.env(), "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_SHARE=1", "NO_COLOR=1",
		// Nothing fetched: a package the copy lacks fails at once.
		"npm_config_registry=http://127.0.0.1:9/")
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("opencode run: %v\n%s", err, out)
	}
	return string(out)
}

// TestOpencodeSharesTheMemory: after `ccmem install --opencode`, the real
// opencode (pinned, from npm) runs ccmem's hooks through its plugin: its
// first request carries the project's block (a fact a Claude Code session
// stated) and recall after the prompt; the session becomes an episode of
// the same project, which the next Claude Code session lists as
// opencode's; a rule the person accepted holds opencode's first shell
// call it forbids; and uninstall leaves opencode's folder as it was.
func TestOpencodeSharesTheMemory(t *testing.T) {
	t.Parallel()
	bin := opencodeClient(t)
	w := newWorld(t, nil)
	oc := w.opencodeHome(bin)
	before := treeOf(t, oc)
	if out, err := w.ccmem("install", "--opencode"); err != nil || !strings.Contains(out, "ccmem.js") {
		t.Fatalf("ccmem install --opencode (%v):\n%s", err, out)
	}
	if out, err := w.ccmem("doctor"); !strings.Contains(out, "opencode plugin") || strings.Contains(out, "not the one this ccmem writes") {
		t.Errorf("doctor on opencode (%v):\n%s", err, out)
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

	// An opencode session: its first request carries the project's block
	// and, after its prompt, recall of that fact.
	w.api.SetChatScript(func(r scriptapi.ChatRequest) scriptapi.Reply {
		return scriptapi.Reply{Text: "Done: the webhook retries back off exponentially, capped at five minutes (heron-anvil)."}
	})
	n := len(w.api.ChatRequests())
	out := w.opencode(bin, "which port does the staging database listen on these days?")
	reqs := w.api.ChatRequests()[n:]
	if len(reqs) == 0 {
		t.Fatalf("opencode sent no turn:\n%s", out)
	}
	user := strings.Join(reqs[0].Texts("user"), "\n")
	if !strings.Contains(user, "Recent sessions") || !strings.Contains(user, "6432 behind pgbouncer") || !strings.Contains(user, staging+".json (turn 2)") {
		t.Errorf("the opencode session's first request lacks ccmem's block or recall:\n%.4000s\n(opencode printed: %s)", user, out)
	}

	// The next Claude Code session lists the opencode session, marked so.
	m := len(w.api.MessageRequests())
	w.claude("-p", "what did we decide about the webhook retries?")
	if got := w.contextAfter(m, injectedPrefix); !strings.Contains(got, "in opencode") || !strings.Contains(got, "which port does the staging database") {
		t.Errorf("the next Claude Code session's block does not list the opencode session:\n%.4000s", got)
	}
	if out, err := w.ccmem("search", "heron-anvil"); err != nil || !strings.Contains(out, "webhook") {
		t.Errorf("search does not find what the opencode session said (%v):\n%s", err, out)
	}

	// A rule the person accepted that forbids a command holds opencode's
	// first such call (the model reads the rule as the call's result); the
	// same call again runs.
	w.write(filepath.Join(w.home, ".claude", "ccmem", "review", "feedback", "payments-tests.md"),
		"---\nname: payments-tests\ndescription: Never run go test directly; run make test-payments\nmetadata:\n  type: feedback\norigin: friction\n---\n\nThe payments tests need their fixtures.\n")
	if out, err := w.ccmem("learn", "review", "--accept", "payments-tests"); err != nil {
		t.Fatalf("accept: %v\n%s", err, out)
	}
	// Inside the project: opencode run refuses a command that reaches
	// outside it.
	marks := filepath.Join(w.project, "marks")
	w.write(filepath.Join(marks, ".keep"), "")
	calls := []string{"touch marks/first && go test ./internal/payments/", "touch marks/second && go test ./internal/payments/"}
	w.api.SetChatScript(func(r scriptapi.ChatRequest) scriptapi.Reply {
		if n := len(r.ToolOutputs()); n < len(calls) {
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": calls[n]}}}}
		}
		return scriptapi.Reply{Text: "done"}
	})
	n = len(w.api.ChatRequests())
	out = w.opencode(bin, "run the payments tests")
	if _, err := os.Stat(filepath.Join(marks, "first")); err == nil {
		t.Errorf("opencode ran the first call the rule forbids:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(marks, "second")); err != nil {
		t.Errorf("opencode did not run the same call made again:\n%s", out)
	}
	held := ""
	for _, r := range w.api.ChatRequests()[n:] {
		if outs := r.ToolOutputs(); len(outs) > 0 {
			held = outs[0]
			break
		}
	}
	if !strings.Contains(held, "Never run go test directly") {
		t.Errorf("the model did not read the rule as the held call's result:\n%s", held)
	}

	// Uninstall takes the plugin back, and nothing else.
	if out, err := w.ccmem("uninstall"); err != nil {
		t.Fatalf("ccmem uninstall: %v\n%s", err, out)
	}
	if after := treeOf(t, oc); after != before {
		t.Errorf("uninstall left opencode's folder changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// treeOf lists a folder's files with their contents' hashes, what opencode
// writes there itself left out: the packages it installs, and a
// .gitignore for them.
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if rel == ".gitignore" {
			return nil
		}
		data, _ := os.ReadFile(path)
		fmt.Fprintf(&b, "%s %v %x\n", rel, d.IsDir(), sha256.Sum256(data))
		return nil
	})
	return b.String()
}
