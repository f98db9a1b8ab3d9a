// Package install wires ccmem into a user's Claude Code: it copies the
// binaries into place and merges ccmem's hook registrations into
// settings.json, keeping everything else, and takes them out again.
package install

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/ccmem/ccmem/internal/service/registration"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/service/settings"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/scripts"
)

// ErrNoHookBinary is returned when the hook binaries are not beside ccmem
// (or in its install's lib/ccmem).
var ErrNoHookBinary = errors.New("hook binary missing")

// missingBinary says which hook binary is missing and where it was looked for.
type missingBinary struct{ name, tried string }

func (e missingBinary) Error() string {
	return fmt.Sprintf("cannot find ccmem's %s binary (looked at %s)", e.name, e.tried)
}

func (missingBinary) Is(target error) bool { return target == ErrNoHookBinary }

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

// Helpers are the binaries installed beside the hooks that are not hooks:
// ccmem-ui serves `ccmem ui` (see internal/entry/uicommand).
var Helpers = []string{"ccmem-ui"}

// libNames lists the file names of the binaries in lib/ccmem: the hooks,
// then the helpers.
func libNames() []string {
	var out []string
	for _, h := range registration.Hooks {
		out = append(out, registration.Exe(h.Binary))
	}
	for _, h := range Helpers {
		out = append(out, registration.Exe(h))
	}
	return out
}

// oldStatusLineScript is the status line script earlier versions installed
// in LibDir; uninstall still removes it.
const oldStatusLineScript = "statusline.sh"

// StatusLineCommand is the status line command for the ccmem binary at
// path: it runs through the client's shell (statusLine has no exec form),
// which on Windows is Git Bash or PowerShell: there the path is written
// with forward slashes, which both read the same, unquoted when it can be.
func StatusLineCommand(path string) string {
	if runtime.GOOS == "windows" {
		path = filepath.ToSlash(path)
		if strings.ContainsAny(path, " '\"$`") {
			return `"` + path + `" status --line`
		}
		return path + " status --line"
	}
	return registration.ShellQuote(path) + " status --line"
}

// OwnedStatusLine recognises ccmem's status line command: ccmem's
// `status --line`, or the script earlier versions installed.
func OwnedStatusLine(cmd string) bool {
	if registration.OwnedBy("ccmem", oldStatusLineScript)(cmd) {
		return true
	}
	bin, ok := strings.CutSuffix(strings.TrimSpace(cmd), " status --line")
	if !ok {
		return false
	}
	base := filepath.Base(registration.CommandPath(bin))
	return base == "ccmem" || base == "ccmem.exe"
}

// StatusLinePath is the ccmem binary an owned status line command runs, or
// "" for the old script.
func StatusLinePath(cmd string) string {
	if bin, ok := strings.CutSuffix(strings.TrimSpace(cmd), " status --line"); ok {
		return registration.CommandPath(bin)
	}
	return registration.CommandPath(cmd)
}

// commandMarker marks slash command files that ccmem installed.
const commandMarker = "installed by ccmem"

// slashCommands are the slash commands install writes to the commands
// folder, as the plugin ships them: they run `ccmem` by name (the client
// puts an enabled plugin's bin/ on the Bash tool's PATH). Install writes
// them with the installed binary's full path instead (CommandFile), since
// its bin folder may not be on PATH.
var slashCommands = map[string][]byte{
	"learn.md":    scripts.LearnCommand,
	"remember.md": scripts.RememberCommand,
	"ccmem.md":    scripts.CcmemCommand,
	"friction.md": scripts.FrictionCommand,
	"forget.md":   scripts.ForgetCommand,
}

// legacyCommands are slash commands earlier versions installed under names
// since given up (/memory shadowed the client's own), as they installed
// them: install and uninstall remove them when unchanged.
var legacyCommands = map[string][]byte{
	"memory.md": scripts.LegacyMemoryCommand,
}

// SlashCommandNames are the names of the slash commands ccmem installs
// (without the slash).
func SlashCommandNames() []string {
	var names []string
	for _, n := range slices.Sorted(maps.Keys(slashCommands)) {
		names = append(names, strings.TrimSuffix(n, ".md"))
	}
	return names
}

// CommandFile is a slash command as install writes it: every `ccmem …` it
// runs or allows (a code span or an allowed-tools Bash rule opening with
// "ccmem ") names the binary ccmemPath, quoted for the shell if it must be.
func CommandFile(tmpl []byte, ccmemPath string) []byte {
	q := registration.ShellQuote(filepath.ToSlash(ccmemPath))
	out := bytes.ReplaceAll(tmpl, []byte("`ccmem "), []byte("`"+q+" "))
	return bytes.ReplaceAll(out, []byte("Bash(ccmem "), []byte("Bash("+q+" "))
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
	ccmem := filepath.Join(BinDir(o.Prefix), registration.Exe("ccmem"))
	hooks := func(root *settings.Value) ([]settings.Change, string, error) {
		if PluginEnabled(root) {
			return nil, "", ErrPluginEnabled
		}
		var changes []settings.Change
		for _, h := range registration.Hooks {
			c, err := settings.Ensure(root, settings.Hook{
				Event: h.Event, Command: filepath.Join(lib, registration.Exe(h.Binary)), Args: []string{}, Timeout: HookTimeout,
				Matcher: Matcher(h.Binary, o.guardTools()),
			}, registration.Owned)
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
	srcs, err := sources(o.Exe)
	if err != nil {
		return rep, err
	}

	copies := []struct{ from, to string }{{srcs[registration.Exe("ccmem")], ccmem}}
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

// MaxSettingsBytes bounds a settings file ccmem edits. The client's own
// .claude.json keeps every project's history and can reach megabytes; past
// this it is refused rather than parsed (a 40 MB file once took seconds
// and gigabytes).
const MaxSettingsBytes = 32 << 20

// Other programs write these files too, and the client rewrites
// .claude.json whenever its state changes. So an edit is a compare and
// swap: read, edit, then read again just before replacing the file; if it
// changed meanwhile, start over from what it holds now (up to editTries
// times), and a file caught half written (unparseable) is read again a
// moment later before it is refused.
const (
	editTries   = 8
	editBackoff = 25 * time.Millisecond
	halfWritten = 4
)

// testOnlyBeforeSwap, when set, runs between an edit's read and its write
// (a test's rival writer).
var testOnlyBeforeSwap func(path string)

// tryEdit reads path and applies the edit to a copy, writing nothing: the
// file parses, has the shape the edit expects, and the edit succeeds.
func tryEdit(path string, ed edit) error {
	root, _, err := readSettingsSettled(path)
	if err != nil {
		return err
	}
	if _, _, err := ed(root.Clone()); err != nil {
		if errors.Is(err, ErrPluginEnabled) {
			return err
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// editFile applies an edit to the settings file at path as a compare and
// swap (see editTries), keeping a backup of the file as it was before
// ccmem's first change. kind labels the actions ("" for settings).
func editFile(rep *Report, o Options, path string, ed edit, kind string) error {
	if path == o.ClaudeJSON && !o.DryRun {
		unlock, err := lockClientFile(path)
		if err != nil {
			return err
		}
		defer unlock()
	}
	for try := 1; ; try++ {
		root, orig, err := readSettingsSettled(path)
		if err != nil {
			return err
		}
		next := root.Clone()
		changes, note, err := ed(next)
		if err != nil {
			if errors.Is(err, ErrPluginEnabled) {
				return err
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		sub := Report{}
		co := o
		co.Settings = path
		err = commitSettings(&sub, co, orig, next, changes)
		if errors.Is(err, errChanged) {
			if try < editTries {
				time.Sleep(editBackoff * time.Duration(try))
				continue
			}
			return fmt.Errorf("%s: another program kept rewriting it (%d tries), so ccmem's change was not made; hint: close Claude Code and run this again", path, editTries)
		}
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		}
		for _, a := range sub.Actions {
			if kind != "" {
				a = Action{kind, a.What + " in " + path}
			}
			rep.Actions = append(rep.Actions, a)
		}
		if sub.Backup != "" {
			if kind == "" {
				rep.Backup = sub.Backup
			} else {
				rep.Actions = append(rep.Actions, Action{"backup", sub.Backup + " (" + filepath.Base(path) + " before this change)"})
			}
		}
		return err
	}
}

// writeFile installs a small file when its content differs.
func writeFile(rep *Report, o Options, path string, data []byte, mode os.FileMode) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		if fi, err := os.Stat(path); err == nil && (!modesMatter || fi.Mode().Perm() == mode) {
			return nil
		}
	}
	rep.Actions = append(rep.Actions, Action{"write", path})
	if o.DryRun {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := store.WriteFileAtomic(path, data); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

// Uninstall removes ccmem's hook registrations and the installed binaries.
// Memory in the store is never touched.
func Uninstall(o Options) (Report, error) {
	rep := Report{Settings: o.Settings, DryRun: o.DryRun}
	hooks := func(root *settings.Value) ([]settings.Change, string, error) {
		changes, err := settings.RemoveOwned(root, registration.Owned)
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
	}
	if err := editFile(&rep, o, o.Settings, hooks, ""); err != nil {
		return rep, err
	}
	if claudeJSON {
		if err := editFile(&rep, o, o.ClaudeJSON, mcp, "mcp"); err != nil {
			return rep, err
		}
	}
	targets := []string{filepath.Join(BinDir(o.Prefix), registration.Exe("ccmem")), filepath.Join(LibDir(o.Prefix), oldStatusLineScript)}
	for _, name := range libNames() {
		targets = append(targets, filepath.Join(LibDir(o.Prefix), name))
	}
	if o.CommandsDir != "" {
		ccmem := filepath.Join(BinDir(o.Prefix), registration.Exe("ccmem"))
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

// removeLegacyCommands removes the slash commands earlier versions
// installed under names ccmem gave up, when they are as installed; a
// changed one is left, with a note.
func removeLegacyCommands(rep *Report, o Options) error {
	for _, name := range slices.Sorted(maps.Keys(legacyCommands)) {
		path := filepath.Join(o.CommandsDir, name)
		old, err := os.ReadFile(path)
		switch {
		case err != nil:
			continue
		case !bytes.Equal(old, legacyCommands[name]):
			if bytes.Contains(old, []byte(commandMarker)) {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s, which an earlier ccmem installed, was changed since, so it was left; it shadows Claude Code's own /%s: remove it unless you want that", path, strings.TrimSuffix(name, ".md")))
			}
			continue
		}
		rep.Actions = append(rep.Actions, Action{"remove", path + " (an earlier ccmem's /" + strings.TrimSuffix(name, ".md") + ", which shadowed Claude Code's own)"})
		if !o.DryRun {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// readSettingsSettled is readSettings, read again a few times a moment
// apart while the file does not parse: another program may be writing it
// in place.
func readSettingsSettled(path string) (*settings.Value, []byte, error) {
	for try := 1; ; try++ {
		v, data, err := readSettings(path)
		if err == nil || !errors.Is(err, errUnparsable) || try >= halfWritten {
			return v, data, err
		}
		time.Sleep(editBackoff * time.Duration(try))
	}
}

// errUnparsable marks a settings file that is not valid JSON.
var errUnparsable = errors.New("not valid JSON")

// errChanged is a settings file another program changed between ccmem's
// read and its write.
var errChanged = errors.New("changed meanwhile")

// readFile reads a settings file, refusing one over MaxSettingsBytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSettingsBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSettingsBytes {
		return nil, fmt.Errorf("%s: over %d MB; left untouched (hint: is it really a settings file?)", path, MaxSettingsBytes>>20)
	}
	return data, nil
}

// readSettings parses the settings file; a missing file is an empty object.
func readSettings(path string) (*settings.Value, []byte, error) {
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return settings.NewObject(), nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	v, err := settings.Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w (%w); left untouched", path, err, errUnparsable)
	}
	if v.Kind != settings.Object {
		return nil, nil, fmt.Errorf("%s: not a JSON object; left untouched", path)
	}
	return v, data, nil
}

// commitSettings writes the edited settings, when the edits changed
// anything, as a minimal patch of the file's bytes (every other byte stays
// as it was). The first change ever made keeps a backup of the file as it
// was; a later install never overwrites that backup.
func commitSettings(rep *Report, o Options, orig []byte, next *settings.Value, changes []settings.Change) error {
	if len(changes) == 0 {
		return nil
	}
	for _, c := range changes {
		rep.Actions = append(rep.Actions, Action{"settings", c.String()})
	}
	data, err := settings.Patch(orig, next)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Settings, err)
	}
	if o.DryRun {
		return nil
	}
	// A settings file that is a symlink (kept by a dotfiles manager) is
	// edited where it points, not replaced by a regular file.
	target := o.Settings
	if t, err := filepath.EvalSymlinks(target); err == nil {
		target = t
	}
	// Compare and swap: the file must still hold what the edit was made
	// on (a missing file must still be missing).
	if testOnlyBeforeSwap != nil {
		testOnlyBeforeSwap(o.Settings)
	}
	now, err := readFile(o.Settings)
	if errors.Is(err, fs.ErrNotExist) {
		now, err = nil, nil
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(now, orig) || (now == nil) != (orig == nil) {
		return errChanged
	}
	if orig != nil {
		backup := BackupPath(o.Settings)
		if _, err := os.Lstat(backup); errors.Is(err, fs.ErrNotExist) {
			if err := store.WriteFileAtomic(backup, orig); err != nil {
				return fmt.Errorf("writing backup: %w", err)
			}
			rep.Backup = backup
		}
	}
	return store.WriteFileAtomic(target, data)
}

// sources finds the binaries to install: ccmem itself and each hook, beside
// it (a build's bin/) or in ../lib/ccmem (an installed ccmem).
func sources(exe string) (map[string]string, error) {
	out := map[string]string{registration.Exe("ccmem"): exe}
	dir := filepath.Dir(exe)
	for _, name := range libNames() {
		var tried []string
		for _, d := range []string{dir, filepath.Join(dir, "..", "lib", "ccmem")} {
			p := filepath.Clean(filepath.Join(d, name))
			tried = append(tried, p)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				out[name] = p
				break
			}
		}
		if out[name] == "" {
			return nil, missingBinary{name, joinOr(tried)}
		}
	}
	return out, nil
}

func joinOr(s []string) string {
	if len(s) == 2 {
		return s[0] + " and " + s[1]
	}
	return fmt.Sprint(s)
}

// sameContent tells whether to already holds exactly from's bytes (or is
// from itself).
func sameContent(from, to string) (bool, error) {
	fa, err := os.Stat(from)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(to)
	if err != nil {
		return false, nil
	}
	if os.SameFile(fa, fb) {
		return true, nil
	}
	if fa.Size() != fb.Size() || !Executable(fb) {
		return false, nil
	}
	a, err := os.ReadFile(from)
	if err != nil {
		return false, err
	}
	b, err := os.ReadFile(to)
	if err != nil {
		return false, nil
	}
	return bytes.Equal(a, b), nil
}

// copyExecutable installs from at to through a temporary file and a rename,
// so a running copy of the old binary is never overwritten in place.
func copyExecutable(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(to), "."+filepath.Base(to)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return replaceExecutable(tmp.Name(), to)
}

// statusLineNote tells a user with a status line of their own how to show
// ccmem's line in it.
func statusLineNote(foreign, ccmem string) string {
	return fmt.Sprintf("you already have a status line (%s); ccmem left it as it is. To show the memory backlog in it, print the output of `%s`",
		foreign, StatusLineCommand(ccmem))
}

// ErrPluginEnabled is returned by Install when the ccmem plugin is enabled:
// its hooks would run twice.
var ErrPluginEnabled = errors.New("the ccmem plugin (" + registration.PluginID + ") is enabled in these settings and registers the same hooks; ccmem install would run each of them twice, so it changed nothing")

// PluginEnabled tells whether settings enable ccmem's plugin.
func PluginEnabled(root *settings.Value) bool {
	ep := root.Get("enabledPlugins")
	if ep == nil || ep.Kind != settings.Object {
		return false
	}
	v := ep.Get(registration.PluginID)
	return v != nil && v.Raw == "true"
}
