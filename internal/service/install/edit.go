package install

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ccmem/ccmem/internal/service/settings"
	"github.com/ccmem/ccmem/pkg/store"
)

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
	if path == o.ClaudeJSON && !o.DryRun && !o.clientLocked {
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
	if orig != nil {
		backup := BackupPath(o.Settings)
		if _, err := os.Lstat(backup); errors.Is(err, fs.ErrNotExist) {
			if err := store.WriteFileAtomic(backup, orig); err != nil {
				return fmt.Errorf("writing backup: %w", err)
			}
			rep.Backup = backup
		}
	}
	// Compare and swap: the file must still hold what the edit was made
	// on (a missing file must still be missing), checked once the new
	// bytes are on disk beside it, just before they replace it.
	return store.WriteFileAtomicIf(target, data, func() error {
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
		return nil
	})
}
