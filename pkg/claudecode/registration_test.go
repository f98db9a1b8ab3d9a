package claudecode

import (
	"os"
	"path/filepath"
	"testing"
)

var owned = OwnedBy("ccmem", "sessionstart", "stop", "precompact")

func TestOwnedAndQuoting(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/home/u/.local/lib/ccmem/sessionstart": true,
		"'/a b/lib/ccmem/sessionstart'":         true,
		"/usr/local/lib/ccmem/stop":             true,
		"/usr/local/bin/sessionstart":           false,
		"/opt/ccmem/other":                      false,
		"my-ccmem-wrapper sessionstart":         false,
	} {
		if owned(cmd) != want {
			t.Errorf("owned(%q) = %v", cmd, !want)
		}
	}
	for _, p := range []string{"/plain/path", "/with space/x", "/it's/x"} {
		if CommandPath(ShellQuote(p)) != p {
			t.Errorf("quote round trip of %q: %q", p, ShellQuote(p))
		}
	}
	if ShellQuote("/plain/path") != "/plain/path" {
		t.Error("plain paths should stay bare")
	}
}

// TestRegistered: a settings file registers ccmem when one of its hook
// entries runs a ccmem hook binary; another tool's hooks, a file in an
// unexpected shape or no file register none, and a malformed part does
// not hide a well-formed one.
func TestRegistered(t *testing.T) {
	for name, c := range map[string]struct {
		json string
		want bool
	}{
		"ours":                {`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/u/lib/ccmem/stop","timeout":5}]}]}}`, true},
		"quoted":              {`{"hooks":{"SessionStart":[{"matcher":"","hooks":[{"type":"command","command":"'/a b/lib/ccmem/sessionstart'"}]}]}}`, true},
		"another tool":        {`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/u/bin/other-stop"}]}]}}`, false},
		"not a command":       {`{"hooks":{"Stop":[{"hooks":[{"type":"prompt","command":"/u/lib/ccmem/stop"}]}]}}`, false},
		"an event we skip":    {`{"hooks":{"Notification":[{"hooks":[{"type":"command","command":"/u/lib/ccmem/stop"}]}]}}`, false},
		"odd shapes":          {`{"hooks":{"Stop":{},"PreCompact":[1,{"hooks":{}}],"SessionStart":[{"hooks":[2]},{"hooks":[{"type":"command","command":"/u/lib/ccmem/sessionstart"}]}]}}`, true},
		"hooks not an object": {`{"hooks":[]}`, false},
		"not json":            {`{"hooks":`, false},
		"empty":               {``, false},
	} {
		if got := Registered([]byte(c.json)); got != c.want {
			t.Errorf("%s: Registered = %v, want %v", name, got, c.want)
		}
	}
}

// TestCommandFor: a hook names the ccmem beside it (a build's
// lib/ccmem/), else its install's PREFIX/bin/ccmem, else plain `ccmem`.
func TestCommandFor(t *testing.T) {
	dir := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hook := filepath.Join(dir, "lib", "ccmem", Exe("stop"))
	mk(hook)
	if got := CommandFor(hook); got != "ccmem" {
		t.Errorf("no ccmem anywhere: %s", got)
	}
	mk(filepath.Join(dir, "bin", Exe("ccmem")))
	if got := CommandFor(hook); got != ShellQuote(filepath.ToSlash(filepath.Join(dir, "bin", Exe("ccmem")))) {
		t.Errorf("an install's: %s", got)
	}
	mk(filepath.Join(dir, "lib", "ccmem", Exe("ccmem")))
	if got := CommandFor(hook); got != ShellQuote(filepath.ToSlash(filepath.Join(dir, "lib", "ccmem", Exe("ccmem")))) {
		t.Errorf("a build's: %s", got)
	}
}
