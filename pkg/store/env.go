// Package store is ccmem's store on disk: where everything lives (the
// layout), how files are read and written safely (bounded reads that never
// block on a FIFO, atomic durable replacement, cross-process locks), how a
// project is identified, and how names become file names.
//
// Everything here takes its surroundings (home, store root, clock) from an
// Env value, never from globals, so tests can pin them.
package store

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Env is what ccmem reads from its surroundings.
type Env struct {
	// Home is the user's home directory.
	Home string
	// Store is $CCMEM_HOME, by default ~/.claude/ccmem.
	Store string
	// ClaudeDir is $CLAUDE_CONFIG_DIR, by default ~/.claude.
	ClaudeDir string
	// ConfigDirSet is true when $CLAUDE_CONFIG_DIR named ClaudeDir: the
	// client then keeps its .claude.json inside it, not in the home.
	ConfigDirSet bool
	// Disabled is true when CCMEM_DISABLE is set to a true value.
	Disabled bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// AutoMemorySwitch is CLAUDE_CODE_DISABLE_AUTO_MEMORY as the client
	// sees it (its hooks inherit its environment); Simple is
	// CLAUDE_CODE_SIMPLE set, which turns auto memory off too.
	AutoMemorySwitch string
	Simple           bool
	// CodexDir is $CODEX_HOME, by default ~/.codex: where Codex CLI keeps
	// its sessions (read by import, never written).
	CodexDir string
	// GeminiDir is ~/.gemini, where Gemini CLI keeps its sessions (read by
	// import, never written).
	GeminiDir string
	// OpencodeDir is opencode's data folder, $XDG_DATA_HOME/opencode (by
	// default ~/.local/share/opencode; read by import, never written).
	OpencodeDir string
	// OpencodeConfigDir is opencode's configuration folder,
	// $XDG_CONFIG_HOME/opencode (by default ~/.config/opencode), where
	// `ccmem install --opencode` puts its plugin.
	OpencodeConfigDir string
}

// ErrNoHome is returned when neither HOME nor explicit locations are set.
var ErrNoHome = errors.New("cannot find the home directory (HOME is not set)")

// EnvFrom builds an Env from environment variables read through getenv.
// The home directory is found as os.UserHomeDir finds it ($HOME, and on
// Windows %USERPROFILE%), but through getenv, so tests can pin it.
func EnvFrom(getenv func(string) string) (Env, error) {
	e := Env{Home: getenv("HOME"), Now: time.Now}
	if e.Home == "" && runtime.GOOS == "windows" {
		e.Home = getenv("USERPROFILE")
	}
	// CCMEM_NOW pins the clock (RFC 3339), for tests and reproducible demos.
	if v := getenv("CCMEM_NOW"); v != "" {
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			e.Now = func() time.Time { return t }
		}
	}
	e.Disabled = Truthy(getenv("CCMEM_DISABLE"))
	e.AutoMemorySwitch = getenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
	e.Simple = Truthy(getenv("CLAUDE_CODE_SIMPLE"))
	if e.Home != "" {
		e.Home = absClean(e.Home)
	}
	e.ClaudeDir = getenv("CLAUDE_CONFIG_DIR")
	e.ConfigDirSet = e.ClaudeDir != ""
	if e.ClaudeDir == "" {
		if e.Home == "" {
			return e, ErrNoHome
		}
		e.ClaudeDir = filepath.Join(e.Home, ".claude")
	}
	e.ClaudeDir = absClean(expandHome(e.ClaudeDir, e.Home))
	e.Store = getenv("CCMEM_HOME")
	if e.Store == "" {
		if e.Home == "" {
			return e, ErrNoHome
		}
		e.Store = filepath.Join(e.Home, ".claude", "ccmem")
	}
	e.Store = absClean(expandHome(e.Store, e.Home))
	e.CodexDir = getenv("CODEX_HOME")
	if e.CodexDir == "" && e.Home != "" {
		e.CodexDir = filepath.Join(e.Home, ".codex")
	}
	if e.CodexDir != "" {
		e.CodexDir = absClean(expandHome(e.CodexDir, e.Home))
	}
	if e.Home != "" {
		e.GeminiDir = filepath.Join(e.Home, ".gemini")
		e.OpencodeDir = filepath.Join(e.Home, ".local", "share", "opencode")
		e.OpencodeConfigDir = filepath.Join(e.Home, ".config", "opencode")
	}
	if x := getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		e.OpencodeDir = filepath.Join(x, "opencode")
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		e.OpencodeConfigDir = filepath.Join(x, "opencode")
	}
	return e, nil
}

// Truthy reads an environment switch: unset, "0", "false", "no" and "off"
// are false; anything else is true.
func Truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

func expandHome(p, home string) string {
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return filepath.Join(home, p[1:])
	}
	return p
}

func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// Time is the Env's clock reading.
func (e Env) Time() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

// Tilde is a path as it is shown, to people and to the model: under the
// home directory shortened with ~, and always one safe line (textfmt.Line), so
// a folder whose name holds a newline cannot forge a line of the block or
// of a terminal table wherever a path is shown.
func (e Env) Tilde(p string) string {
	p = textfmt.Line(p)
	if e.Home == "" || e.Home == "/" {
		return p
	}
	if p == e.Home {
		return "~"
	}
	if strings.HasPrefix(p, e.Home+string(filepath.Separator)) {
		return "~" + p[len(e.Home):]
	}
	return p
}

// TildeText shortens, in a line of text for people, every path that
// starts with the home directory (at the start of the text or after a
// space, quote, backtick or bracket) with ~.
func (e Env) TildeText(s string) string {
	if e.Home == "" || e.Home == "/" {
		return s
	}
	prefix := e.Home + string(filepath.Separator)
	var b strings.Builder
	for {
		i := strings.Index(s, prefix)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		if i == 0 || strings.ContainsRune(" `'\"([", rune(s[i-1])) {
			b.WriteString(s[:i])
			b.WriteString("~" + string(filepath.Separator))
		} else {
			b.WriteString(s[:i+len(prefix)])
		}
		s = s[i+len(prefix):]
	}
}

// PathError formats a file error as one short line naming the file (with
// ~ for the home directory), keeping the cause for errors.Is. A symlink
// refused on the way to path is named itself.
func (e Env) PathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, ErrSymlink) || errors.Is(pe.Err, ErrOutside) {
			path = pe.Path
		}
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", e.Tilde(path), err)
}
