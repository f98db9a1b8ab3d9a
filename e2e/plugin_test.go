package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pluginFiles are the files of the repository that make it a plugin
// marketplace, as a clone has them.
var pluginFiles = []string{
	".claude-plugin/marketplace.json", ".claude-plugin/plugin.json", ".claude-plugin/icon.png",
	"hooks/hooks.json", "hooks/run",
	"scripts/commands/learn.md", "scripts/commands/remember.md", "scripts/commands/ccmem.md",
	"README.md", "LICENSE",
}

// pluginCopy lays the plugin's files out in a fresh folder, as a clone; with
// built, ccmem goes into its bin/ and the hooks into lib/ccmem/, as `make
// build` puts them.
func pluginCopy(t *testing.T, built bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ccmem clone")
	for _, f := range pluginFiles {
		copyFile(t, filepath.Join("..", f), filepath.Join(dir, f))
	}
	if built {
		copyFile(t, filepath.Join(binDir, "ccmem"), filepath.Join(dir, "bin", "ccmem"))
		for _, h := range []string{"sessionstart", "userpromptsubmit", "stop", "precompact", "pretooluse", "posttoolusefailure", "subagentstart"} {
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
// refuses to register the same hooks a second time.
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

	// The plugin is enabled: ccmem install would register its hooks twice.
	out, err := w.ccmem("install")
	if err == nil || !strings.Contains(out, "the ccmem plugin (ccmem@ccmem) is enabled") {
		t.Fatalf("ccmem install with the plugin enabled: err %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(w.home, ".claude", "settings.json")); strings.Contains(string(data), "lib/ccmem/sessionstart") {
		t.Fatalf("ccmem install registered hooks beside the plugin:\n%s", data)
	}
}

// TestPluginWithoutBinaries: a copy of the plugin that was never built
// (what a marketplace clone is) does not break sessions: every hook exits
// 0, and SessionStart shows one system message with the command that
// builds the binaries.
func TestPluginWithoutBinaries(t *testing.T) {
	w := newBareWorld(t, nil)
	plug := pluginCopy(t, false)
	w.installPlugin(plug)
	msgs, failures := w.hookMessages("hello")
	if len(failures) > 0 {
		t.Fatalf("hooks failed: %q", failures)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "no binaries yet") || !strings.Contains(msgs[0], "cd '"+plug+"' && make build") {
		t.Fatalf("system messages %q, want one giving `cd '%s' && make build`", msgs, plug)
	}
	if block := w.injected(0); len(block) != 0 {
		t.Fatalf("something was injected without binaries: %q", block)
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
