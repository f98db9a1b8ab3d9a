package store

import (
	"path/filepath"
	"testing"
)

func TestTildeText(t *testing.T) {
	e := Env{Home: filepath.FromSlash("/home/u")}
	for in, want := range map[string]string{
		"/home/u/.local/bin is not on your PATH":           "~/.local/bin is not on your PATH",
		"copy /tmp/b/ccmem -> /home/u/.local/bin/ccmem":    "copy /tmp/b/ccmem -> ~/.local/bin/ccmem",
		"run `/home/u/.local/bin/ccmem status --line`":     "run `~/.local/bin/ccmem status --line`",
		"/srv/home/u/x and /home/user/y stay":              "/srv/home/u/x and /home/user/y stay",
		`export PATH="$HOME/.local/bin:$PATH" (/home/u/a)`: `export PATH="$HOME/.local/bin:$PATH" (~/a)`,
	} {
		in, want := filepath.FromSlash(in), filepath.FromSlash(want)
		if got := e.TildeText(in); got != want {
			t.Errorf("TildeText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (Env{}).TildeText("/home/u/x"); got != "/home/u/x" {
		t.Errorf("no home: %q", got)
	}
}
