// Package install wires ccmem into a user's Claude Code: it copies the
// binaries into place and merges ccmem's hook registrations into
// settings.json, keeping everything else, and takes them out again.
package install

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/internal/service/settings"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
)

// HookTimeout is the timeout, in seconds, registered for every ccmem hook.
const HookTimeout = 5

// Matcher is the matcher a hook binary is registered with: for pretooluse
// the tools of guard.tools ("Bash|Edit|…"), for the others none (every
// call, every source).
func Matcher(binary string, guardTools []string) string {
	if binary == "pretooluse" {
		return strings.Join(guardTools, "|")
	}
	return ""
}

// Options say where to install from and to.
type Options struct {
	// Prefix is the install root: ccmem goes to Prefix/bin, hooks to
	// Prefix/lib/ccmem.
	Prefix string
	// Settings is the settings.json to edit.
	Settings string
	// Exe is the running ccmem binary; the hook binaries are looked up
	// beside it, then in ../lib/ccmem.
	Exe string
	// CommandsDir is Claude Code's user commands folder (~/.claude/commands).
	CommandsDir string
	DryRun      bool
	// StatusLineOnly registers only ccmem's status line (for plugin users:
	// a plugin cannot set one), for the ccmem binary Exe.
	StatusLineOnly bool
	// ClaudeJSON is the client's state file where user-scope MCP servers
	// are registered ("": no MCP registration).
	ClaudeJSON string
	// GuardTools are the tools pretooluse is registered for (the global
	// config's guard.tools; nil: config.DefaultGuardTools).
	GuardTools []string

	// clientLocked: the client's lock on ClaudeJSON is held already.
	clientLocked bool
}

// guardTools are the tools pretooluse is registered for.
func (o Options) guardTools() []string {
	if len(o.GuardTools) == 0 {
		return config.DefaultGuardTools
	}
	return o.GuardTools
}

// Action is one thing install or uninstall did (or, in a dry run, would do).
type Action struct {
	Kind string `json:"kind"` // "copy", "settings", "backup", "remove"
	What string `json:"what"`
}

// Report lists what was done.
type Report struct {
	Actions  []Action `json:"actions"`
	Settings string   `json:"settings"`
	Backup   string   `json:"backup,omitempty"`
	DryRun   bool     `json:"dry_run"`
	// Notes are things left alone that the user may want to act on.
	Notes []string `json:"notes,omitempty"`
}

// Changed tells whether anything was (or would be) changed.
func (r Report) Changed() bool { return len(r.Actions) > 0 }

// BinDir and LibDir are the install folders under a prefix.
func BinDir(prefix string) string { return filepath.Join(prefix, "bin") }

// LibDir holds the hook binaries, off everyone's PATH.
func LibDir(prefix string) string { return filepath.Join(prefix, "lib", "ccmem") }

// BackupPath is where the settings file is copied before ccmem changes it.
func BackupPath(settingsPath string) string { return settingsPath + ".ccmem.bak" }

// An edit is one change to a JSON settings file, applied to its parsed
// value; it returns the changes made and a note for the user ("" none).
type edit func(root *settings.Value) ([]settings.Change, string, error)

// Install copies the binaries and registers the hooks. It is idempotent: a
// second run finds nothing to do and writes nothing. Both files it edits
// (settings.json and the client's .claude.json) are read and their edits
// tried first: an unparseable or oddly shaped file is refused before
// anything is written or copied, so a refusal leaves nothing half done.
func Install(o Options) (Report, error) {
	rep := Report{Settings: o.Settings, DryRun: o.DryRun}
	if o.StatusLineOnly {
		return rep, editFile(&rep, o, o.Settings, func(root *settings.Value) ([]settings.Change, string, error) {
			c, foreign, err := settings.EnsureStatusLine(root, StatusLineCommand(o.Exe), OwnedStatusLine)
			note := ""
			if foreign != "" {
				note = statusLineNote(foreign, o.Exe)
			}
			return c, note, err
		}, "")
	}
	lib := LibDir(o.Prefix)
	ccmem := filepath.Join(BinDir(o.Prefix), claudecode.Exe("ccmem"))
	hooks := func(root *settings.Value) ([]settings.Change, string, error) {
		if PluginEnabled(root) {
			return nil, "", ErrPluginEnabled
		}
		var changes []settings.Change
		for _, h := range claudecode.Hooks {
			c, err := settings.Ensure(root, settings.Hook{
				Event: h.Event, Command: filepath.Join(lib, claudecode.Exe(h.Binary)), Args: []string{}, Timeout: HookTimeout,
				Matcher: Matcher(h.Binary, o.guardTools()),
			}, claudecode.Owned)
			if err != nil {
				return nil, "", err
			}
			changes = append(changes, c...)
		}
		c, foreign, err := settings.EnsureStatusLine(root, StatusLineCommand(ccmem), OwnedStatusLine)
		if err != nil {
			return nil, "", err
		}
		note := ""
		if foreign != "" {
			note = statusLineNote(foreign, ccmem)
		}
		return append(changes, c...), note, nil
	}
	mcp := func(root *settings.Value) ([]settings.Change, string, error) { return ensureMCP(root, ccmem) }
	if err := tryEdit(o.Settings, hooks); err != nil {
		return rep, err
	}
	if o.ClaudeJSON != "" {
		if err := tryEdit(o.ClaudeJSON, mcp); err != nil {
			return rep, err
		}
	}
	// The client's lock on .claude.json is taken before anything is
	// written: an install that cannot have it changes nothing, rather
	// than registering the hooks and not the MCP server.
	unlock, err := o.lockClient()
	if err != nil {
		return rep, err
	}
	defer unlock()
	o.clientLocked = true
	srcs, err := sources(o.Exe)
	if err != nil {
		return rep, err
	}

	copies := []struct{ from, to string }{{srcs[claudecode.Exe("ccmem")], ccmem}}
	for _, name := range libNames() {
		copies = append(copies, struct{ from, to string }{srcs[name], filepath.Join(lib, name)})
	}
	for _, c := range copies {
		if !o.DryRun {
			store.Tidy(filepath.Dir(c.to), filepath.Base(c.to))
		}
		same, err := sameContent(c.from, c.to)
		if err != nil {
			return rep, err
		}
		if same {
			continue
		}
		rep.Actions = append(rep.Actions, Action{"copy", fmt.Sprintf("%s -> %s", c.from, c.to)})
		if !o.DryRun {
			if err := copyExecutable(c.from, c.to); err != nil {
				return rep, err
			}
		}
	}
	if o.CommandsDir != "" {
		for _, name := range slices.Sorted(maps.Keys(slashCommands)) {
			path := filepath.Join(o.CommandsDir, name)
			if old, err := os.ReadFile(path); err == nil && !bytes.Contains(old, []byte(commandMarker)) {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s is yours, so ccmem's /%s was not installed", path, strings.TrimSuffix(name, ".md")))
				continue
			}
			if err := writeFile(&rep, o, path, CommandFile(slashCommands[name], ccmem), 0o644); err != nil {
				return rep, err
			}
		}
		if err := removeLegacyCommands(&rep, o); err != nil {
			return rep, err
		}
	}
	if err := editFile(&rep, o, o.Settings, hooks, ""); err != nil {
		return rep, err
	}
	if o.ClaudeJSON != "" {
		if err := editFile(&rep, o, o.ClaudeJSON, mcp, "mcp"); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// Uninstall removes ccmem's hook registrations and the installed binaries.
// Memory in the store is never touched.
func Uninstall(o Options) (Report, error) {
	rep := Report{Settings: o.Settings, DryRun: o.DryRun}
	hooks := func(root *settings.Value) ([]settings.Change, string, error) {
		changes, err := settings.RemoveOwned(root, claudecode.Owned)
		if err != nil {
			return nil, "", err
		}
		return append(changes, settings.RemoveStatusLine(root, OwnedStatusLine)...), "", nil
	}
	mcp := func(root *settings.Value) ([]settings.Change, string, error) { return removeMCP(root), "", nil }
	claudeJSON := o.ClaudeJSON != ""
	if claudeJSON {
		_, err := os.Stat(o.ClaudeJSON)
		claudeJSON = err == nil
	}
	if err := tryEdit(o.Settings, hooks); err != nil {
		return rep, err
	}
	if claudeJSON {
		if err := tryEdit(o.ClaudeJSON, mcp); err != nil {
			return rep, err
		}
		// As Install: all or nothing.
		unlock, err := o.lockClient()
		if err != nil {
			return rep, err
		}
		defer unlock()
		o.clientLocked = true
	}
	if err := editFile(&rep, o, o.Settings, hooks, ""); err != nil {
		return rep, err
	}
	if !o.DryRun {
		tidyAfter(&rep, o.Settings, false, nil)
	}
	if claudeJSON {
		if err := editFile(&rep, o, o.ClaudeJSON, mcp, "mcp"); err != nil {
			return rep, err
		}
	}
	targets := []string{filepath.Join(BinDir(o.Prefix), claudecode.Exe("ccmem")), filepath.Join(LibDir(o.Prefix), oldStatusLineScript)}
	if l := LauncherPath(o.Prefix); l != targets[0] {
		if data, err := os.ReadFile(l); err == nil && bytes.Contains(data, []byte(launcherMarker)) {
			targets = append(targets, l) // the plugin user's launcher (see PluginCommand)
		}
	}
	for _, name := range libNames() {
		targets = append(targets, filepath.Join(LibDir(o.Prefix), name))
	}
	if o.CommandsDir != "" {
		ccmem := filepath.Join(BinDir(o.Prefix), claudecode.Exe("ccmem"))
		for _, name := range slices.Sorted(maps.Keys(slashCommands)) {
			path := filepath.Join(o.CommandsDir, name)
			old, err := os.ReadFile(path)
			switch {
			case err != nil:
			case bytes.Equal(old, CommandFile(slashCommands[name], ccmem)), bytes.Equal(old, slashCommands[name]):
				targets = append(targets, path)
			case bytes.Contains(old, []byte(commandMarker)):
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s was changed since ccmem installed it, so it was left", path))
			}
		}
		if err := removeLegacyCommands(&rep, o); err != nil {
			return rep, err
		}
	}
	for _, t := range targets {
		if _, err := os.Lstat(t); err != nil {
			continue
		}
		rep.Actions = append(rep.Actions, Action{"remove", t})
		if !o.DryRun {
			if err := os.Remove(t); err != nil {
				return rep, err
			}
		}
	}
	if !o.DryRun {
		_ = os.Remove(LibDir(o.Prefix)) // only if now empty
	}
	return rep, nil
}
