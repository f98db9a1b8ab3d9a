package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/service/install"
)

// handSettings is a settings.json as a person formats it: 4-space indent,
// compact objects on one line, another tool's hooks (one of which leaves a
// trace when the session starts), keys in their own order.
const handSettings = `{
    "model": "opus",
    "permissions": {"allow": ["Bash(make test)", "Read(~/notes/**)"], "deny": []},
    "env": {"FOO": "bar", "EMPTY": ""},
    "hooks": {
        "SessionStart": [
            {"hooks": [{"type": "command", "command": "echo other-tool-ran >> \"$HOME/other-tool.log\""}]}
        ],
        "PostToolUse": [
            {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "npx prettier --write"}]}
        ]
    },
    "includeCoAuthoredBy": false
}
`

// run runs a program in the world (its HOME, its PATH), in the project.
func (w *world) run(prog string, args ...string) (string, error) {
	cmd := exec.Command(prog, args...)
	cmd.Env = w.env()
	cmd.Dir = w.project
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestInstallKeepsHandFormattedSettings: ccmem install patches a
// hand-formatted settings.json (every byte it does not change stays); a
// session then runs with ccmem's memory and the other tool's hook; ccmem
// doctor, with the install's bin on PATH, finds nothing wrong; a second
// install changes nothing; uninstall gives back the original bytes, and
// the backup is the original.
func TestInstallKeepsHandFormattedSettings(t *testing.T) {
	w := newBareWorld(t, nil)
	settingsPath := filepath.Join(w.home, ".claude", "settings.json")
	w.write(settingsPath, handSettings)
	if out, err := w.ccmem("install"); err != nil {
		t.Fatalf("ccmem install: %v\n%s", err, out)
	}
	installed, _ := os.ReadFile(settingsPath)
	for _, kept := range []string{
		`    "permissions": {"allow": ["Bash(make test)", "Read(~/notes/**)"], "deny": []},`,
		`            {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "npx prettier --write"}]}`,
		`    "includeCoAuthoredBy": false`,
	} {
		if !bytes.Contains(installed, []byte("\n"+kept)) {
			t.Fatalf("install changed the user's line %q:\n%s", kept, installed)
		}
	}

	// A session: ccmem's memory reaches the model, the other tool's hook
	// still runs, and /ccmem is ccmem's command, running the installed
	// binary by its full path.
	if out, err := w.ccmem("remember", "--topic", "Style", "hand-settings-fact: keep answers short"); err != nil {
		t.Fatalf("ccmem remember: %v\n%s", err, out)
	}
	w.claude("-p", "hello")
	if block := w.onlyInjection(0); !strings.Contains(block, "hand-settings-fact") {
		t.Fatalf("the session did not get ccmem's memory:\n%s", block)
	}
	if log, _ := os.ReadFile(filepath.Join(w.home, "other-tool.log")); !strings.Contains(string(log), "other-tool-ran") {
		t.Fatalf("the other tool's SessionStart hook did not run (log %q)", log)
	}
	ccmemPath := filepath.Join(w.home, ".local", "bin", "ccmem")
	n := len(w.api.MessageRequests())
	w.claude("-p", "/ccmem")
	sent := ""
	for _, r := range w.api.MessageRequests()[n:] {
		sent += strings.Join(r.Texts(), "\n")
	}
	if !strings.Contains(sent, "run `"+ccmemPath+" show` and `"+ccmemPath+" status`") {
		t.Fatalf("/ccmem did not reach the model as ccmem's command with the full path %s:\n%s", ccmemPath, sent)
	}

	// doctor, with the install's bin on PATH (as install advised), is clean.
	w.path = filepath.Dir(ccmemPath) + string(os.PathListSeparator) + os.Getenv("PATH")
	out, err := w.run(ccmemPath, "doctor")
	if err != nil {
		t.Fatalf("ccmem doctor: %v\n%s", err, out)
	}
	if !strings.Contains(out, "no problems found") || !regexp.MustCompile(`(?m)^ok +PATH +`).MatchString(out) {
		t.Fatalf("ccmem doctor:\n%s", out)
	}

	// Install again: nothing changes, the backup is still the original.
	out, err = w.run(ccmemPath, "install")
	if err != nil || !strings.Contains(out, "nothing changed") {
		t.Fatalf("second install: %v\n%s", err, out)
	}
	if again, _ := os.ReadFile(settingsPath); !bytes.Equal(again, installed) {
		t.Fatalf("a second install changed settings.json:\n%s", again)
	}
	if backup, _ := os.ReadFile(install.BackupPath(settingsPath)); string(backup) != handSettings {
		t.Fatalf("the backup is not the original settings.json:\n%s", backup)
	}

	// Uninstall: the original bytes, exactly.
	if out, err := w.ccmem("uninstall"); err != nil {
		t.Fatalf("ccmem uninstall: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(settingsPath); string(after) != handSettings {
		t.Fatalf("uninstall did not give back the original settings.json byte for byte:\n%s", after)
	}
	// The file as it was again, its backup keeps nothing more: gone.
	if _, err := os.Stat(install.BackupPath(settingsPath)); err == nil {
		t.Fatalf("uninstall left a backup identical to settings.json")
	}
}

// builtinCommands are the pinned client's own slash commands (and their
// aliases), read from its bundle, where each is declared as
// {type:"local"|"local-jsx"|"prompt",name:"…",…,aliases:[…]}.
func builtinCommands(t *testing.T) []string {
	t.Helper()
	if setupErr != nil {
		t.Fatalf("end-to-end setup failed, so the client's commands cannot be read: %v", setupErr)
	}
	data, err := os.ReadFile(claudeBin)
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`type:"(?:local|local-jsx|prompt)",name:"([a-z][a-z0-9-]*)"`)
	alias := regexp.MustCompile(`^[^{}]{0,400}?aliases:\[([^\]]*)\]`)
	set := map[string]bool{}
	for _, m := range decl.FindAllSubmatchIndex(data, -1) {
		set[string(data[m[2]:m[3]])] = true
		if a := alias.FindSubmatch(data[m[1]:min(len(data), m[1]+500)]); a != nil {
			for _, q := range regexp.MustCompile(`"([a-z][a-z0-9-]*)"`).FindAllSubmatch(a[1], -1) {
				set[string(q[1])] = true
			}
		}
	}
	var names []string
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// documentedBuiltins are built-in commands from Claude Code's documentation
// (docs.claude.com, "Slash commands"), kept as a floor in case the bundle's
// shape changes and the reading above finds fewer.
var documentedBuiltins = []string{
	"add-dir", "agents", "bug", "clear", "compact", "config", "cost", "doctor", "help", "init",
	"login", "logout", "mcp", "memory", "model", "permissions", "pr_comments", "review",
	"status", "terminal-setup", "vim", "hooks", "resume", "export", "context", "plugin",
}

// TestNoShadowedBuiltinCommands: no slash command ccmem installs has the
// name of one of the pinned client's own commands, which a user command
// of the same name shadows (ccmem's /memory once hid the client's).
func TestNoShadowedBuiltinCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the pinned client: skipped under -short (make unit); make test runs it")
	}
	builtins := builtinCommands(t)
	if len(builtins) < 50 || !slices.Contains(builtins, "memory") || !slices.Contains(builtins, "clear") {
		t.Fatalf("read %d built-in commands from %s, which is too few or lacks memory and clear: the bundle's shape changed, fix builtinCommands\n%v", len(builtins), claudeBin, builtins)
	}
	t.Logf("%d built-in commands of the pinned client: %s", len(builtins), strings.Join(builtins, " "))
	all := append(builtins, documentedBuiltins...)
	for _, name := range install.SlashCommandNames() {
		if slices.Contains(all, name) {
			t.Errorf("ccmem installs /%s, which shadows the client's own /%s", name, name)
		}
	}
	if names, want := install.SlashCommandNames(), []string{"ccmem", "forget", "friction", "learn", "remember"}; !slices.Equal(names, want) {
		t.Fatalf("install's slash commands: %v, want %v", names, want)
	}
}
