package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/service/settings"
)

// TestCodexHooksKeepTheRest: install --codex adds ccmem's handlers to a
// hooks.json that holds the person's own, keeping every byte of theirs;
// with trust, it appends trust tables to config.toml after every byte of
// it; a second run changes nothing; doctor's state says registered and
// trusted; uninstall leaves both files as they were.
func TestCodexHooksKeepTheRest(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(t.TempDir(), "lib", "ccmem")
	hooks := `{
  "hooks": {
    "Stop": [ { "hooks": [ { "type": "command", "command": "notify-send done", "timeout": 3 } ] } ]
  }
}
`
	cfg := "model = \"gpt-5\"\n\n[tui]\ntheme = \"dark\"\n"
	if err := os.WriteFile(CodexHooksFile(dir), []byte(hooks), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(CodexConfig(dir), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	o := CodexOptions{Dir: dir, Lib: lib, GuardTools: []string{"Bash", "Edit"}, Trust: true}
	rep, err := InstallCodex(o)
	if err != nil || !rep.Changed() {
		t.Fatalf("install: %+v %v", rep, err)
	}
	got, _ := os.ReadFile(CodexHooksFile(dir))
	for _, want := range []string{`"notify-send done"`, filepath.Join(lib, "sessionstart"), `"additionalContextLimit": 0`, `"matcher": "Bash|Edit"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("hooks.json lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), filepath.Join(lib, "posttoolusefailure")) {
		t.Errorf("a hook Codex has no event for is registered:\n%s", got)
	}
	conf, _ := os.ReadFile(CodexConfig(dir))
	if !strings.HasPrefix(string(conf), cfg) || strings.Count(string(conf), "trusted_hash = \"sha256:") != 5 {
		t.Fatalf("config.toml:\n%s", conf)
	}
	st, err := CodexState(dir, lib, o.GuardTools)
	if err != nil || len(st) != 5 {
		t.Fatalf("state: %+v %v", st, err)
	}
	for _, s := range st {
		if !s.Registered || !s.Trusted {
			t.Errorf("%s: registered %v, trusted %v", s.Event, s.Registered, s.Trusted)
		}
	}
	if again, err := InstallCodex(o); err != nil || again.Changed() {
		t.Fatalf("a second install changed %+v (%v)", again.Actions, err)
	}
	if _, err := UninstallCodex(o); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(CodexConfig(dir)); string(got) != cfg {
		t.Errorf("uninstall left config.toml:\n%q\nwant\n%q", got, cfg)
	}
	got, _ = os.ReadFile(CodexHooksFile(dir))
	if string(got) != hooks {
		t.Errorf("uninstall left hooks.json:\n%s\nwant\n%s", got, hooks)
	}
}

// TestCodexConfigSymlinkStays: a config.toml a dotfiles manager keeps as a
// symlink is edited where it points and stays a symlink, install and
// uninstall alike.
func TestCodexConfigSymlinkStays(t *testing.T) {
	dir := t.TempDir()
	dots := filepath.Join(t.TempDir(), "dotfiles", "codex.toml")
	if err := os.MkdirAll(filepath.Dir(dots), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "model = \"gpt-5\"\n"
	if err := os.WriteFile(dots, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dots, CodexConfig(dir)); err != nil {
		t.Skip("no symlinks here:", err)
	}
	o := CodexOptions{Dir: dir, Lib: filepath.Join(t.TempDir(), "lib"), Trust: true}
	if _, err := InstallCodex(o); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(CodexConfig(dir)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("config.toml is no longer a symlink: %v", err)
	}
	if got, _ := os.ReadFile(dots); !strings.Contains(string(got), "trusted_hash") {
		t.Fatalf("the trust entries did not reach the file the link points at:\n%s", got)
	}
	if _, err := UninstallCodex(o); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dots); string(got) != cfg {
		t.Fatalf("uninstall left:\n%s", got)
	}
}

// TestUninstallLeavesWhatWasThere (issue 51, finding 5): install then
// uninstall leaves Codex's folder as it was — no hooks.json ccmem created
// holding "{}", no backups identical to their files — and ~/.claude.json
// no empty "mcpServers".
func TestUninstallLeavesWhatWasThere(t *testing.T) {
	dir := t.TempDir()
	cfg := "model = \"gpt-5\"\n"
	if err := os.WriteFile(CodexConfig(dir), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	o := CodexOptions{Dir: dir, Lib: filepath.Join(t.TempDir(), "lib", "ccmem"), Trust: true}
	if _, err := InstallCodex(o); err != nil {
		t.Fatal(err)
	}
	if _, err := UninstallCodex(o); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != "config.toml" {
		hooks, _ := os.ReadFile(CodexHooksFile(dir))
		t.Errorf("Codex's folder after install and uninstall: %v, want only config.toml; hooks.json: %s", names, hooks)
	}
	if got, _ := os.ReadFile(CodexConfig(dir)); string(got) != cfg {
		t.Errorf("config.toml:\n%s", got)
	}
	root, err := settings.Parse([]byte(`{"numStartups": 3, "mcpServers": {"ccmem": {"type": "stdio", "command": "/x/bin/ccmem", "args": ["mcp"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	removeMCP(root)
	if root.Get("mcpServers") != nil {
		t.Errorf("an empty mcpServers is left: %s", root.Marshal())
	}
	root, _ = settings.Parse([]byte(`{"mcpServers": {"other": {"command": "x"}, "ccmem": {"type": "stdio", "command": "/x/bin/ccmem", "args": ["mcp"]}}}`))
	removeMCP(root)
	if s := root.Get("mcpServers"); s == nil || s.Get("other") == nil {
		t.Errorf("another server went with ccmem's: %s", root.Marshal())
	}
}
