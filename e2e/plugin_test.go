package e2e

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
	"github.com/ccmem/ccmem/pkg/claudecode"
)

// pluginFiles are the files of the repository that make it a plugin
// marketplace, as a clone has them.
var pluginFiles = []string{
	".claude-plugin/marketplace.json", ".claude-plugin/plugin.json", ".claude-plugin/icon.png", ".claude-plugin/release.sha256",
	"hooks/hooks.json", "hooks/run", "bin/ccmem",
	"scripts/commands/learn.md", "scripts/commands/remember.md", "scripts/commands/ccmem.md", "scripts/commands/friction.md", "scripts/commands/forget.md",
	"README.md", "LICENSE",
}

// pluginCopy lays the plugin's files out in a fresh folder, as a clone; with
// built, ccmem and the hooks go into its lib/ccmem/, as `make build` puts
// them.
func pluginCopy(t *testing.T, built bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ccmem clone")
	for _, f := range pluginFiles {
		copyFile(t, filepath.Join("..", f), filepath.Join(dir, f))
	}
	if built {
		copyFile(t, filepath.Join(binDir, "ccmem"), filepath.Join(dir, "lib", "ccmem", "ccmem"))
		for _, h := range claudecode.Binaries() {
			copyFile(t, filepath.Join(binDir, h), filepath.Join(dir, "lib", "ccmem", h))
		}
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// claudeCmd runs the client with arguments other than a turn (plugin
// management) and returns its combined output.
func (w *world) claudeCmd(args ...string) string {
	w.t.Helper()
	cmd := exec.Command(claudeBin, args...)
	cmd.Env, cmd.Dir = w.env(), w.project
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// installPlugin adds the marketplace at dir and installs ccmem from it.
func (w *world) installPlugin(dir string) {
	w.t.Helper()
	if out := w.claudeCmd("plugin", "marketplace", "add", dir); !strings.Contains(out, "Successfully added marketplace: ccmem") {
		w.t.Fatalf("marketplace add: %s", out)
	}
	if out := w.claudeCmd("plugin", "install", "ccmem@ccmem"); !strings.Contains(out, "Successfully installed plugin: ccmem@ccmem") {
		w.t.Fatalf("plugin install: %s", out)
	}
}

// hookMessages runs one headless turn with stream-json output and returns
// the system messages hook outputs gave, and the hooks that failed.
func (w *world) hookMessages(prompt string) (messages, failures []string) {
	w.t.Helper()
	out := w.claude("-p", prompt, "--output-format", "stream-json", "--verbose")
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Subtype  string `json:"subtype"`
			HookName string `json:"hook_name"`
			Stdout   string `json:"stdout"`
			Outcome  string `json:"outcome"`
			Output   string `json:"output"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Subtype != "hook_response" {
			continue
		}
		if ev.Outcome != "success" {
			failures = append(failures, ev.HookName+": "+ev.Output)
		}
		var o struct {
			SystemMessage string `json:"systemMessage"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(ev.Stdout)), &o) == nil && o.SystemMessage != "" {
			messages = append(messages, o.SystemMessage)
		}
	}
	return messages, failures
}

// TestPluginRoute: the repository is a plugin marketplace. A clone where
// `make build` ran validates with no warnings, installs with the client's
// own plugin commands (no `ccmem install`, no ccmem on PATH), and then a
// session gets its memory block and Stop records it; ccmem install then
// registers none of the same hooks a second time, and gives the plugin user
// the `ccmem` command and the status line.
func TestPluginRoute(t *testing.T) {
	w := newBareWorld(t, nil)
	plug := pluginCopy(t, true)

	out := w.claudeCmd("plugin", "validate", plug)
	if !strings.Contains(out, "✔ Validation passed") || strings.Contains(out, "⚠") || strings.Contains(out, "✘") {
		t.Fatalf("claude plugin validate is not clean:\n%s", out)
	}
	if _, err := exec.LookPath("ccmem"); err == nil {
		t.Fatal("a ccmem on this test's PATH would hide what the plugin alone does")
	}
	w.installPlugin(plug)

	w.write(filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md"), "## Style\n- plugin-global-fact: answer in one paragraph\n")
	w.write(filepath.Join(w.project, ".claude", "memory", "MEMORY.md"), "## Build\n- plugin-repo-fact: make test runs the suite\n")
	first := w.runJSON("-p", "remember this session")
	block := w.onlyInjection(0)
	for _, want := range []string{"# Memory recalled by ccmem", "plugin-global-fact", "plugin-repo-fact"} {
		if !strings.Contains(block, want) {
			t.Fatalf("the plugin's SessionStart block lacks %q:\n%s", want, block)
		}
	}
	// The plugin declares the MCP server too: the model is offered its
	// search tool.
	offered := ""
	for _, r := range w.api.MessageRequests() {
		for _, text := range r.Texts() {
			for _, f := range strings.Fields(text) {
				if strings.HasPrefix(f, "mcp__") && strings.Contains(f, "ccmem") && strings.HasSuffix(f, "__search") {
					offered = f
				}
			}
		}
	}
	if offered == "" {
		t.Errorf("the plugin's MCP server's search tool was not offered to the model")
	}
	t.Logf("the plugin's search tool: %s", offered)
	n := len(w.api.MessageRequests())
	w.claude("-p", "a second session")
	if eps := w.episodesOf(first); len(eps) != 1 {
		t.Fatalf("episodes of the first session: %v, want one (Stop through the plugin, archived at the next start)", eps)
	}
	if block := w.onlyInjection(n); !strings.Contains(block, `"remember this session"`) {
		t.Fatalf("the second session's block lacks the first session's episode:\n%s", block)
	}

	// The plugin is enabled: ccmem install registers none of its hooks
	// (they would run twice) and adds what a plugin cannot, the `ccmem`
	// command and the status line.
	out, err := w.ccmem("install")
	if err != nil || !strings.Contains(out, "the ccmem plugin (ccmem@ccmem) is enabled") {
		t.Fatalf("ccmem install with the plugin enabled: err %v\n%s", err, out)
	}
	data, _ := os.ReadFile(filepath.Join(w.home, ".claude", "settings.json"))
	if strings.Contains(string(data), "lib/ccmem/sessionstart") {
		t.Fatalf("ccmem install registered hooks beside the plugin:\n%s", data)
	}
	if !strings.Contains(string(data), "status --line") {
		t.Errorf("no status line for the plugin user:\n%s", data)
	}
	if launcher, err := os.ReadFile(filepath.Join(w.home, ".local", "bin", "ccmem")); err != nil || !strings.Contains(string(launcher), "installed by ccmem for the ccmem plugin") {
		t.Errorf("no `ccmem` command for the plugin user: %v\n%s", err, launcher)
	}
}

// TestPluginFetchesItsRelease: a copy of the plugin with no binaries (what
// a marketplace clone is) gets them from the release matching its
// version, served here on 127.0.0.1: the first session starts the
// download and goes on without memory (one system message, every hook
// exits 0), the next has its memory block. A tampered archive (one that
// is not what the plugin pins) is refused and nothing runs; with the
// server down, hooks exit 0 with one line. (testscripts' fetch tests
// attack the download itself: a hostile server, redirects, http, a
// killed download.)
func TestPluginFetchesItsRelease(t *testing.T) {
	// Long (a release build, a long history): run beside the others.
	t.Parallel()
	w := newBareWorld(t, nil)
	plug := pluginCopy(t, false)
	version := pluginVersion(t)
	rel := releaseFiles(t, version)
	// The plugin pins the release's checksums (a release commits them).
	pin := "# ccmem v" + version + "\n" + string(rel["SHA256SUMS"])
	if err := os.WriteFile(filepath.Join(plug, ".claude-plugin", "release.sha256"), []byte(pin), 0o644); err != nil {
		t.Fatal(err)
	}
	tamper := false
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/v"+version+"/")
		data, ok := rel[name]
		if !ok {
			http.NotFound(rw, r)
			return
		}
		if tamper && strings.HasSuffix(name, ".tar.gz") {
			data = append(append([]byte{}, data...), 0)
		}
		rw.Write(data)
	}))
	defer srv.Close()
	w.installPlugin(plug)
	w.write(filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md"), "## Style\n- fetched-plugin-fact: answer briefly\n")
	// Private, as ccmem writes it (doctor checks it, below).
	if err := os.Chmod(filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	session := func(what string) []string {
		t.Helper()
		msgs, failures := w.hookMessages(what)
		if len(failures) > 0 {
			t.Fatalf("%s: hooks failed: %q", what, failures)
		}
		if len(msgs) != 1 {
			t.Fatalf("%s: system messages %q, want one", what, msgs)
		}
		return msgs
	}
	// waitFor waits for the background download to leave file behind.
	waitFor := func(glob string) string {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if m, _ := filepath.Glob(filepath.Join(w.home, glob)); len(m) > 0 {
				return m[0]
			}
		}
		t.Fatalf("no %s after the download", glob)
		return ""
	}
	failed := ".claude/plugins/data/*/v" + version + ".failed"

	// The server down.
	w.extraEnv = []string{"CCMEM_RELEASE_URL=http://127.0.0.1:1"}
	if msgs := session("hello"); !strings.Contains(msgs[0], "downloading its binaries") {
		t.Fatalf("first session: %q", msgs)
	}
	marker := waitFor(failed)
	if msgs := session("hello again"); !strings.Contains(msgs[0], "could not get its binaries: cannot download http://127.0.0.1:1/") {
		t.Fatalf("with the server down: %q", msgs)
	}
	os.Remove(marker) // as if ten minutes had passed

	// A tampered archive: refused, nothing runs.
	w.extraEnv = []string{"CCMEM_RELEASE_URL=" + srv.URL}
	tamper = true
	session("tampered")
	waitFor(failed)
	if msgs := session("tampered again"); !strings.Contains(msgs[0], "does not match the SHA-256 the plugin pins") || !strings.Contains(msgs[0], "nothing was run") {
		t.Fatalf("a tampered archive: %q", msgs)
	}
	if m, _ := filepath.Glob(filepath.Join(w.home, ".claude/plugins/data/*/v"+version, "lib")); len(m) > 0 || len(w.injected(0)) > 0 {
		t.Fatalf("a tampered archive was unpacked (%v) or ran", m)
	}
	os.Remove(filepath.Join(w.home, strings.TrimPrefix(waitFor(failed), w.home)))

	// The real release: downloaded, verified, run by the next session.
	tamper = false
	session("first")
	waitFor(".claude/plugins/data/*/v" + version + "/lib/ccmem/sessionstart")
	n := len(w.api.MessageRequests())
	msgs, failures := w.hookMessages("second")
	if len(failures) > 0 {
		t.Fatalf("hooks failed: %q", failures)
	}
	if blocks := w.injected(n); len(blocks) != 1 || !strings.Contains(blocks[0], "fetched-plugin-fact") {
		t.Fatalf("the session after the download has no memory block: %q", blocks)
	}
	// The model has `ccmem` already: the plugin's bin/ccmem, on its
	// shell's PATH, runs the release the plugin checked (its slash
	// commands need nothing more).
	w.api.SetScript(func(r scriptapi.MessagesRequest) scriptapi.Reply {
		if toolResults(r) == 0 {
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": "ccmem show", "description": "show memory"}}}}
		}
		return scriptapi.Reply{Text: "ok"}
	})
	m := len(w.api.MessageRequests())
	w.claude("-p", "what do you remember?")
	var shown string
	for _, r := range w.api.MessageRequests()[m:] {
		if texts, _ := toolResultTexts(r); len(texts) > 0 {
			shown = texts[0]
			break
		}
	}
	if !strings.Contains(shown, "fetched-plugin-fact") {
		t.Fatalf("the model's `ccmem show` in a plugin the marketplace installed: %q", shown)
	}
	w.api.SetScript(func(scriptapi.MessagesRequest) scriptapi.Reply { return scriptapi.Reply{Text: "ok"} })
	// That session offers the `ccmem` command (the person has none); the
	// line it gives, run as given, puts it on their PATH, running the
	// plugin's release.
	const cue = "run once: "
	offer := ""
	for _, m := range msgs {
		if i := strings.Index(m, cue); i >= 0 {
			offer = m[i+len(cue):]
		}
	}
	if offer == "" {
		t.Fatalf("no offer of the `ccmem` command: %q", msgs)
	}
	cmd := exec.Command("sh", "-c", offer)
	cmd.Env = w.env()
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "`ccmem` now runs the plugin's ccmem") {
		t.Fatalf("%s: %v\n%s", offer, err, out)
	}
	show := exec.Command(filepath.Join(w.home, ".local", "bin", "ccmem"), "show")
	show.Env, show.Dir = w.env(), w.project
	if out, err := show.CombinedOutput(); err != nil || !strings.Contains(string(out), "fetched-plugin-fact") {
		t.Fatalf("the `ccmem` command the plugin user got: %v\n%s", err, out)
	}
	if msgs, _ := w.hookMessages("third"); len(msgs) != 0 {
		t.Errorf("offered again, or something else to say: %q", msgs)
	}
	// After the plugin's first hour, ccmem doctor — the `ccmem` the person
	// now has, on their PATH — checks the plugin's route and finds it
	// right: no FAIL, no advice to run `ccmem install` (issue 51, finding 1).
	doctor := exec.Command(filepath.Join(w.home, ".local", "bin", "ccmem"), "doctor")
	doctor.Env, doctor.Dir = append(w.env(), "PATH="+filepath.Join(w.home, ".local", "bin")+":/usr/bin:/bin"), w.project
	out, err := doctor.CombinedOutput()
	if err != nil || strings.Contains(string(out), "FAIL") || strings.Contains(string(out), "run `ccmem install`") || !strings.Contains(string(out), "registered by the plugin") {
		t.Errorf("ccmem doctor on the plugin's route: %v\n%s", err, out)
	}
}

// pluginVersion is the version in .claude-plugin/plugin.json.
func pluginVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../.claude-plugin/plugin.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &m); err != nil || m.Version == "" {
		t.Fatalf("plugin.json's version: %v", err)
	}
	return m.Version
}

// releaseFiles is a release for this machine as goreleaser lays it out:
// the archive of the built binaries, README, LICENSE and NOTICE in one folder, and
// SHA256SUMS.
func releaseFiles(t *testing.T, version string) map[string][]byte {
	t.Helper()
	name := fmt.Sprintf("ccmem_v%s_%s_%s", version, runtime.GOOS, runtime.GOARCH)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(file, from string, mode int64) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: name + "/" + file, Mode: mode, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	add("README.md", "../README.md", 0o644)
	add("LICENSE", "../LICENSE", 0o644)
	add("NOTICE", "../NOTICE", 0o644)
	for _, b := range append([]string{"ccmem", "ccmem-ui"}, claudecode.Binaries()...) {
		add(b, filepath.Join(binDir, b), 0o755)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	sum := sha256.Sum256(buf.Bytes())
	return map[string][]byte{
		name + ".tar.gz": buf.Bytes(),
		"SHA256SUMS":     []byte(hex.EncodeToString(sum[:]) + "  " + name + ".tar.gz\n"),
	}
}

// TestPluginStandsAsideForInstall: with `ccmem install` done first, the
// plugin installed later stands aside and says so; memory is injected once.
func TestPluginStandsAsideForInstall(t *testing.T) {
	w := newWorld(t, nil)
	w.installPlugin(pluginCopy(t, true))
	w.write(filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md"), "- once-only-fact\n")
	msgs, failures := w.hookMessages("hello")
	if len(failures) > 0 {
		t.Fatalf("hooks failed: %q", failures)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "installed twice") {
		t.Fatalf("system messages %q, want the plugin saying it stands aside", msgs)
	}
	if blocks := w.injected(0); len(blocks) != 1 || strings.Count(blocks[0], "once-only-fact") != 1 {
		t.Fatalf("memory injected %d times: %q", len(blocks), blocks)
	}
}
