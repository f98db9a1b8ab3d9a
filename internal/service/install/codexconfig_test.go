package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/codexcli"
)

// codexInstalled installs ccmem's hooks for Codex in a fresh folder,
// without trust, then writes its config.toml as cfg makes it from the
// trust each hook needs (nothing when cfg gives ""); it returns the
// options, trust on, and that trust.
func codexInstalled(t *testing.T, cfg func(st []CodexTrust) string) (CodexOptions, []CodexTrust) {
	t.Helper()
	dir := t.TempDir()
	o := CodexOptions{Dir: dir, Lib: filepath.Join(t.TempDir(), "lib", "ccmem"), GuardTools: []string{"Bash"}}
	if _, err := InstallCodex(o); err != nil {
		t.Fatal(err)
	}
	st, err := CodexState(dir, o.Lib, o.GuardTools)
	if err != nil || len(st) == 0 {
		t.Fatalf("state: %+v %v", st, err)
	}
	if text := cfg(st); text != "" {
		if err := os.WriteFile(CodexConfig(dir), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o.Trust = true
	return o, st
}

// fixed is a config.toml that does not depend on the trust.
func fixed(cfg string) func([]CodexTrust) string { return func([]CodexTrust) string { return cfg } }

func readConfig(t *testing.T, o CodexOptions) string {
	t.Helper()
	data, err := os.ReadFile(CodexConfig(o.Dir))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func mustParse(t *testing.T, cfg string) map[string]string {
	t.Helper()
	v, err := parseConfig([]byte(cfg))
	if err != nil {
		t.Fatalf("config.toml does not parse: %v\n%s", err, cfg)
	}
	return v
}

// TestCodexTrustReadAsTOML (issue 49, finding 3): the trust Codex wrote
// is read in every form TOML allows — a trailing comment, a literal key, a
// dotted key, an inline table — so install sees it and appends nothing;
// before, a line scanner missed these and install appended a second table
// for the same key, which Codex cannot parse.
func TestCodexTrustReadAsTOML(t *testing.T) {
	for name, first := range map[string]func(key, hash string) string{
		"trailing comment": func(key, hash string) string {
			return fmt.Sprintf("[hooks.state.%s]\ntrusted_hash = %s # approved in Codex\n", codexcli.TOMLString(key), codexcli.TOMLString(hash))
		},
		"literal key": func(key, hash string) string {
			return fmt.Sprintf("[hooks.state.'%s']\ntrusted_hash = '%s'\n", key, hash)
		},
		"dotted key": func(key, hash string) string {
			return fmt.Sprintf("[hooks]\nstate.%s.trusted_hash = %s\n", codexcli.TOMLString(key), codexcli.TOMLString(hash))
		},
		"inline table": func(key, hash string) string {
			return fmt.Sprintf("[hooks.state]\n%s = { trusted_hash = %s }\n", codexcli.TOMLString(key), codexcli.TOMLString(hash))
		},
	} {
		t.Run(name, func(t *testing.T) {
			var cfg string
			o, _ := codexInstalled(t, func(st []CodexTrust) string {
				cfg = "model = \"gpt-5\"\n" + first(st[0].Key, st[0].Hash)
				for _, s := range st[1:] {
					cfg += fmt.Sprintf("[hooks.state.%s]\ntrusted_hash = %s\n", codexcli.TOMLString(s.Key), codexcli.TOMLString(s.Hash))
				}
				return cfg
			})
			st, err := CodexState(o.Dir, o.Lib, o.GuardTools)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range st {
				if !s.Trusted {
					t.Errorf("%s is not read as trusted", s.Event)
				}
			}
			if _, err := InstallCodex(o); err != nil {
				t.Fatal(err)
			}
			if got := readConfig(t, o); got != cfg {
				t.Errorf("install changed a config.toml that trusts every hook already:\n%s", got)
			}
		})
	}
}

// TestCodexTrustChangedWhereItIs: a stale trust value Codex wrote (its own
// table, or inline) is changed where it is, the file still parses, and
// nothing is appended for it.
func TestCodexTrustChangedWhereItIs(t *testing.T) {
	for name, cfg := range map[string]func([]CodexTrust) string{
		"table": func(st []CodexTrust) string {
			return fmt.Sprintf("[hooks.state.%s]\ntrusted_hash = \"sha256:old\" # by Codex\nother = 1\n", codexcli.TOMLString(st[0].Key))
		},
		"inline table": func(st []CodexTrust) string {
			var kv []string
			for _, s := range st {
				kv = append(kv, fmt.Sprintf("%s = { trusted_hash = \"sha256:old\" }", codexcli.TOMLString(s.Key)))
			}
			return "[hooks]\nstate = { " + strings.Join(kv, ", ") + " }\n"
		},
	} {
		t.Run(name, func(t *testing.T) {
			o, st := codexInstalled(t, cfg)
			if _, err := InstallCodex(o); err != nil {
				t.Fatal(err)
			}
			got := readConfig(t, o)
			vals := mustParse(t, got)
			for _, s := range st {
				if vals[s.Key] != s.Hash {
					t.Errorf("%s: %q, want %q", s.Event, vals[s.Key], s.Hash)
				}
				if strings.Count(got, codexcli.TOMLString(s.Key)) != 1 {
					t.Errorf("the key's table was written twice:\n%s", got)
				}
			}
			if again, err := InstallCodex(o); err != nil || again.Changed() {
				t.Errorf("a second install changed %+v (%v)", again.Actions, err)
			}
		})
	}
	// A closed inline table cannot take a new key: install says so and
	// writes nothing.
	var before string
	o, _ := codexInstalled(t, func(st []CodexTrust) string {
		before = fmt.Sprintf("[hooks]\nstate = { %s = { trusted_hash = \"sha256:old\" } }\n", codexcli.TOMLString(st[0].Key))
		return before
	})
	if _, err := InstallCodex(o); err == nil || !strings.Contains(err.Error(), "trust the hooks in Codex") {
		t.Errorf("install into a closed inline table: %v", err)
	}
	if got := readConfig(t, o); got != before {
		t.Errorf("config.toml was written:\n%s", got)
	}
}

// TestCodexUninstallIsByteExact (issue 49, finding 3): uninstall gives
// back the person's bytes — a file that did not end in a newline still
// does not; a line the person added after install, inside ccmem's last
// table by TOML's rules, stays where it is and in that table.
func TestCodexUninstallIsByteExact(t *testing.T) {
	for name, cfg := range map[string]string{
		"no final newline": "model = \"gpt-5\"\n[tui]\ntheme = \"dark\"",
		"final newline":    "model = \"gpt-5\"\n",
		"comments only":    "# my settings\n",
	} {
		t.Run(name, func(t *testing.T) {
			o, _ := codexInstalled(t, fixed(cfg))
			if _, err := InstallCodex(o); err != nil {
				t.Fatal(err)
			}
			mustParse(t, readConfig(t, o))
			if _, err := UninstallCodex(o); err != nil {
				t.Fatal(err)
			}
			if got := readConfig(t, o); got != cfg {
				t.Errorf("uninstall left %q, want %q", got, cfg)
			}
		})
	}
	o, st := codexInstalled(t, fixed("model = \"gpt-5\"\n"))
	if _, err := InstallCodex(o); err != nil {
		t.Fatal(err)
	}
	mine := "approved_by = \"me\"\n"
	if err := os.WriteFile(CodexConfig(o.Dir), []byte(readConfig(t, o)+mine), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := UninstallCodex(o); err != nil {
		t.Fatal(err)
	}
	got := readConfig(t, o)
	if !strings.HasSuffix(got, mine) || strings.Contains(got, "trusted_hash") {
		t.Fatalf("uninstall took the person's line, or left ccmem's:\n%s", got)
	}
	last := st[len(st)-1]
	var doc struct {
		Hooks struct {
			State map[string]map[string]any `toml:"state"`
		} `toml:"hooks"`
	}
	if err := tomlUnmarshal([]byte(got), &doc); err != nil || doc.Hooks.State[last.Key]["approved_by"] != "me" {
		t.Errorf("the person's key left the table it was written in (%v):\n%s", err, got)
	}
}

// TestCodexConfigDanglingSymlinkStays: a config.toml that is a symlink to
// nothing is not replaced by a file; install says so.
func TestCodexConfigDanglingSymlinkStays(t *testing.T) {
	o, _ := codexInstalled(t, fixed(""))
	missing := filepath.Join(t.TempDir(), "dotfiles", "codex.toml")
	if err := os.Symlink(missing, CodexConfig(o.Dir)); err != nil {
		t.Skip("no symlinks here:", err)
	}
	_, err := InstallCodex(o)
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("install over a dangling symlink: %v", err)
	}
	if fi, err := os.Lstat(CodexConfig(o.Dir)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v", err)
	}
}

// TestCodexConfigLosesNoRivalWrite (issue 49, finding 3): a program that
// rewrites config.toml after ccmem read it and wrote its new bytes beside
// it, just before they replace it, keeps its edit: nothing is written,
// and install says to run it again.
func TestCodexConfigLosesNoRivalWrite(t *testing.T) {
	o, _ := codexInstalled(t, fixed("model = \"gpt-5\"\n"))
	rival := "model = \"gpt-5\"\nrival = true\n"
	testOnlyBeforeSwap = func(path string) {
		if filepath.Base(path) == "config.toml" {
			os.WriteFile(path, []byte(rival), 0o600)
		}
	}
	defer func() { testOnlyBeforeSwap = nil }()
	_, err := InstallCodex(o)
	if err == nil || !errors.Is(err, errConfigChanged) {
		t.Errorf("install over a rival's write: %v", err)
	}
	if got := readConfig(t, o); got != rival {
		t.Errorf("the rival's write was lost:\n%s", got)
	}
}

// TestCodexConfigThatDoesNotParseIsNotEdited: ccmem edits no config.toml
// it cannot parse, and says where it is wrong.
func TestCodexConfigThatDoesNotParseIsNotEdited(t *testing.T) {
	cfg := "model = \"gpt-5\"\n[tui\n"
	o, _ := codexInstalled(t, fixed(cfg))
	_, err := InstallCodex(o)
	if err == nil || !strings.Contains(err.Error(), "not valid TOML") {
		t.Errorf("install on a broken config.toml: %v", err)
	}
	if got := readConfig(t, o); got != cfg {
		t.Errorf("a broken config.toml was written:\n%s", got)
	}
}

// FuzzCodexConfigRoundTrip: for any TOML document, adding ccmem's trust
// gives a document that parses and holds it, or refuses; taking it out
// again gives the document back byte for byte.
func FuzzCodexConfigRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a = 1", "a = 1\n", "[hooks]\nx = 1\n", "[hooks.state]\n\"k\" = { trusted_hash = \"x\" }\n", "# c\n[t]\nb = 'x' # y",
		"hooks.other = 2\n", "[[hooks.list]]\nn = 1\n", "[hooks]\nstate = {}\n", "a = \"\"\"\nmulti\n\"\"\"\n"} {
		f.Add(s)
	}
	want := []CodexTrust{{Key: "/h/.codex/hooks.json:stop:0:0", Hash: "sha256:aa"}, {Key: "/h/.codex/hooks.json:session_start:0:0", Hash: "sha256:bb"}}
	f.Fuzz(func(t *testing.T, cfg string) {
		have, err := parseConfig([]byte(cfg))
		if err != nil {
			return
		}
		next, err := withTrust([]byte(cfg), want)
		if err != nil {
			return
		}
		got, err := parseConfig(next)
		if err != nil {
			t.Fatalf("ccmem's edit does not parse: %v\n%q", err, next)
		}
		for _, w := range want {
			if got[w.Key] != w.Hash {
				t.Fatalf("%s: %q\n%q", w.Key, got[w.Key], next)
			}
		}
		if len(have) > 0 || strings.Contains(cfg, "ccmem") {
			return // changed in place: not ccmem's to take out
		}
		if back := dropTrust(string(next)); back != cfg {
			t.Fatalf("install then uninstall:\n%q\nwant\n%q", back, cfg)
		}
	})
}
