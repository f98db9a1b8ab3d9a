// Package e2e runs the real Claude Code, pinned, against a scripted Messages
// API on 127.0.0.1, with ccmem installed into a throwaway HOME by its own
// `ccmem install`. These tests never skip: when the client cannot be
// installed they fail and say why.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
	"github.com/ccmem/ccmem/pkg/claudecode"
)

var (
	// claudeBin is the pinned client, or "" with setupErr saying why not.
	claudeBin string
	// binDir holds ccmem's freshly built binaries.
	binDir   string
	setupErr error
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		// make unit: every test skips in newWorld, saying why.
		os.Exit(m.Run())
	}
	tmp, err := os.MkdirTemp("", "ccmem-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = tmp
	setupErr = setup()
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" {
		// The whole suite: the release build the release tests share
		// (a minute or two) starts now, beside the tests that run one at
		// a time, instead of after them, when those tests start.
		go releaseSnapshotOnce()
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func setup() error {
	root, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	args := []string{"build", "-trimpath", "-o", binDir + string(filepath.Separator), "./cmd/ccmem", "./cmd/ccmem-ui"}
	for _, h := range claudecode.Binaries() {
		args = append(args, "./hooks/"+h)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building ccmem: %v\n%s", err, out)
	}
	cmd = exec.Command("bash", filepath.Join(root, "scripts", "install-claude-code.sh"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("installing the pinned Claude Code failed (scripts/install-claude-code.sh): %v\n%s", err, stderr.String())
	}
	claudeBin = strings.TrimSpace(string(out))
	return nil
}

// world is one throwaway machine: a HOME with Claude Code onboarded and
// ccmem installed, a project folder, and a scripted API.
type world struct {
	t       *testing.T
	home    string
	project string
	api     *scriptapi.Server
	// path, when set, is the PATH of every child process.
	path string
	// extraEnv are more variables for every child process.
	extraEnv []string
	// asks, when set, runs the client with its default permissions: a
	// tool call nothing allows asks the person (and, headless, is refused).
	asks bool
}

// newWorld installs ccmem into a fresh HOME with `ccmem install` and starts
// the scripted API with script (nil answers every request with "ok").
func newWorld(t *testing.T, script scriptapi.Script) *world {
	t.Helper()
	w := newBareWorld(t, script)
	if out, err := w.ccmem("install"); err != nil {
		t.Fatalf("ccmem install: %v\n%s", err, out)
	}
	return w
}

// newBareWorld is a fresh HOME with Claude Code onboarded and the scripted
// API running, but ccmem not installed.
func newBareWorld(t *testing.T, script scriptapi.Script) *world {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test with the real client: skipped under -short (make unit); make test runs it")
	}
	if setupErr != nil {
		t.Fatalf("end-to-end setup failed, so the real client cannot run: %v", setupErr)
	}
	base := t.TempDir()
	w := &world{t: t, home: filepath.Join(base, "home"), project: filepath.Join(base, "src", "shop")}
	for _, d := range []string{w.home, w.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A git repository, found by reading .git like ccmem does.
	w.write(filepath.Join(w.project, ".git", "HEAD"), "ref: refs/heads/main\n")
	w.write(filepath.Join(w.project, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n")
	claudeJSON, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		// Interactive sessions ask about a custom API key; this answers yes
		// (the client keeps the key's last 20 characters).
		"customApiKeyResponses": map[string]any{"approved": []string{apiKey[len(apiKey)-20:]}, "rejected": []string{}},
		"projects":              map[string]any{w.project: map[string]any{"hasTrustDialogAccepted": true}},
	})
	w.write(filepath.Join(w.home, ".claude.json"), string(claudeJSON))
	if script == nil {
		script = func(scriptapi.MessagesRequest) scriptapi.Reply { return scriptapi.Reply{Text: "ok"} }
	}
	api, err := scriptapi.Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	w.api = api
	return w
}

func (w *world) write(path, content string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// env is the whole environment of a child process: nothing of the outer
// session leaks in (no CLAUDE_* or CCMEM_* variables), and the client is
// kept off every network but the scripted API.
func (w *world) env() []string {
	return append([]string{
		"HOME=" + w.home,
		"PATH=" + w.pathEnv(),
		"TERM=dumb",
		"LANG=C.UTF-8",
		"TMPDIR=" + os.TempDir(),
		"ANTHROPIC_BASE_URL=" + w.api.URL,
		"ANTHROPIC_API_KEY=" + apiKey,
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}, w.extraEnv...)
}

// pathEnv is the PATH children get: the test's own, unless the world sets one.
func (w *world) pathEnv() string {
	if w.path != "" {
		return w.path
	}
	return os.Getenv("PATH")
}

// ccmem runs the installed-from-build ccmem in the world.
func (w *world) ccmem(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(binDir, "ccmem"), args...)
	cmd.Env = w.env()
	cmd.Dir = w.project
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// claude runs one headless turn in the project and returns its stdout.
func (w *world) claude(args ...string) string {
	w.t.Helper()
	return w.claudeIn(w.project, args...)
}

// claudeIn runs the client as claude does, in the folder dir.
func (w *world) claudeIn(dir string, args ...string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	full := append([]string{"--permission-mode", "acceptEdits", "--allowedTools", "Bash Write Edit Read"}, args...)
	if w.asks {
		full = append([]string{"--permission-mode", "default"}, args...)
	}
	cmd := exec.CommandContext(ctx, claudeBin, full...)
	cmd.Env = w.env()
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		w.t.Fatalf("claude %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// apiKey is what the client sends the scripted API; it is no real key.
const apiKey = "sk-ant-e2e-not-a-real-key-0123456789"

// injectedPrefix opens the text the client sends for a SessionStart hook's
// additionalContext.
const injectedPrefix = "SessionStart hook additional context: "

// injectedEnd is what Claude Code (2.1.328 to 2.1.330) puts right after the injected
// context in the same text block: its environment section.
const injectedEnd = "\n\n# Environment\n"

// injected returns the SessionStart context of every Messages request from
// index from on, exactly as the client sent it to the model.
func (w *world) injected(from int) []string {
	var out []string
	reqs := w.api.MessageRequests()
	for _, r := range reqs[min(from, len(reqs)):] {
		for _, text := range r.Texts() {
			i := strings.Index(text, injectedPrefix)
			if i < 0 {
				continue
			}
			block := text[i+len(injectedPrefix):]
			if j := strings.Index(block, injectedEnd); j >= 0 {
				block = block[:j]
			}
			out = append(out, block)
		}
	}
	return out
}

// waitForTranscript waits until a transcript of the project holds text.
func (w *world) waitForTranscript(text string, within time.Duration) {
	w.t.Helper()
	deadline := time.Now().Add(within)
	for {
		files, _ := filepath.Glob(filepath.Join(w.home, ".claude", "projects", "*", "*.jsonl"))
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil && bytes.Contains(data, []byte(text)) {
				return
			}
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("no transcript holds %q after %v (transcripts: %v)", text, within, files)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
