package claudecode

// How ccmem is registered with Claude Code: how a registered command is
// written and recognised, and whether a settings file registers ccmem. The
// hooks ask it, so it links neither the installer nor the settings editor.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
	for _, h := range Hooks {
		names = append(names, h.Binary, h.Binary+".exe")
	}
	return OwnedBy("ccmem", names...)
}()

// Registered tells whether a settings file's data registers any of ccmem's
// hooks (as `ccmem install` does). A malformed file registers none; a part
// of it in an unexpected shape is passed over, the rest still read.
func Registered(data []byte) bool {
	var root struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(data, &root) != nil {
		return false
	}
	for _, h := range Hooks {
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
// ccmem itself, or, for a hook, the ccmem beside it (CCMemBeside). A full
// path, because the install's bin folder need not be on PATH; "ccmem" when
// there is no such binary.
func CommandFor(exe string) string {
	if exe == "" {
		return "ccmem"
	}
	p := exe
	if b := strings.TrimSuffix(filepath.Base(exe), ".exe"); b != "ccmem" {
		p = CCMemBeside(exe)
	}
	if isFile(p) {
		return ShellQuote(filepath.ToSlash(filepath.Clean(p)))
	}
	return "ccmem"
}

// CCMemBeside is the ccmem binary beside a hook or helper binary exe: in
// the same folder (a build's lib/ccmem/, a downloaded release), else the
// PREFIX/bin/ccmem of its install, PREFIX/lib/ccmem. The second is named
// whether or not it is there.
func CCMemBeside(exe string) string {
	if p := filepath.Join(filepath.Dir(exe), Exe("ccmem")); isFile(p) {
		return p
	}
	return filepath.Join(filepath.Dir(exe), "..", "..", "bin", Exe("ccmem"))
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
