// Package registration is what every part of ccmem knows of how it is
// registered with Claude Code: the hook binaries and their events, the
// plugin's id, how a registered command is written and recognised, and
// whether a settings file registers ccmem. It is small on purpose: the
// hooks ask it, and must not link the installer or the settings editor.
package registration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/store"
)

// Exe is a binary's file name on this system: with ".exe" on Windows.
func Exe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// ShellQuote quotes a path for the POSIX shell the client runs hook
// commands with, leaving a plain path as it is.
func ShellQuote(p string) string {
	if p != "" && strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@,=") == "" {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// CommandPath undoes ShellQuote for a command that is a single path.
func CommandPath(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if len(cmd) >= 2 && cmd[0] == '\'' && cmd[len(cmd)-1] == '\'' {
		return strings.ReplaceAll(cmd[1:len(cmd)-1], `'\''`, "'")
	}
	if len(cmd) >= 2 && cmd[0] == '"' && cmd[len(cmd)-1] == '"' {
		return cmd[1 : len(cmd)-1]
	}
	return cmd
}

// OwnedBy accepts commands that run one of names from a folder called dir
// (such as ".../lib/ccmem/sessionstart"), wherever that folder is: a later
// install with another prefix then replaces the earlier registration.
func OwnedBy(dir string, names ...string) func(command string) bool {
	return func(cmd string) bool {
		p := CommandPath(cmd)
		if filepath.Base(filepath.Dir(p)) != dir {
			return false
		}
		for _, n := range names {
			if filepath.Base(p) == n {
				return true
			}
		}
		return false
	}
}

// Owned recognises ccmem's own hook commands in settings.json: a hook
// binary inside a folder named "ccmem" (the install puts them in
// PREFIX/lib/ccmem/), with or without ".exe".
var Owned = func() func(string) bool {
	var names []string
	for _, h := range claudecode.Hooks {
		names = append(names, h.Binary, h.Binary+".exe")
	}
	return OwnedBy("ccmem", names...)
}()

// Registered tells whether the settings file at path registers any of
// ccmem's hooks (as `ccmem install` does). A missing, unreadable or
// malformed file registers none; a part of it in an unexpected shape is
// passed over, the rest still read.
func Registered(path string) bool {
	data, err := store.ReadSmallFile(path, 16<<20)
	if err != nil {
		return false
	}
	var root struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(data, &root) != nil {
		return false
	}
	for _, h := range claudecode.Hooks {
		var groups []json.RawMessage
		if json.Unmarshal(root.Hooks[h.Event], &groups) != nil {
			continue
		}
		for _, g := range groups {
			var group struct {
				Hooks []json.RawMessage `json:"hooks"`
			}
			if json.Unmarshal(g, &group) != nil {
				continue
			}
			for _, e := range group.Hooks {
				var entry struct{ Type, Command string }
				if json.Unmarshal(e, &entry) == nil && entry.Type == "command" && Owned(entry.Command) {
					return true
				}
			}
		}
	}
	return false
}

// CommandFor is how the model can run ccmem, as a command word for a
// POSIX shell (the client's Bash tool), given the running executable exe:
// ccmem itself, or, for a hook, the ccmem beside it (a build's
// lib/ccmem/) or else the PREFIX/bin/ccmem of its install, PREFIX/lib/ccmem
// (a downloaded release's layout is the same). A full path, because the
// install's bin folder need not be on PATH; "ccmem" when there is no such
// binary.
func CommandFor(exe string) string {
	if exe == "" {
		return "ccmem"
	}
	candidates := []string{exe}
	if b := strings.TrimSuffix(filepath.Base(exe), ".exe"); b != "ccmem" {
		candidates = []string{filepath.Join(filepath.Dir(exe), Exe("ccmem")), filepath.Join(filepath.Dir(exe), "..", "..", "bin", Exe("ccmem"))}
	}
	for _, p := range candidates {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return ShellQuote(filepath.ToSlash(filepath.Clean(p)))
		}
	}
	return "ccmem"
}
