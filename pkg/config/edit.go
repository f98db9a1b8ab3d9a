package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/internal/lazyregexp"
	"github.com/ccmem/ccmem/pkg/store"
)

var enabledLine = lazyregexp.New(`(?m)^enabled:.*(\n|$)`)

// SetEnabled sets the top-level enabled key of the config file at path:
// to *on, replacing an existing enabled line or appending one, or with on
// nil, removes it (and the file, when nothing else is left in it), keeping
// every other byte. It refuses a change after which the file would not
// parse, and reports whether the file changed. With a root, the file is a
// repository's (read by the team: created 0644; untrusted: no symlink is
// followed); without, a private one (0600).
func SetEnabled(path string, on *bool, root string) (bool, error) {
	read := func() ([]byte, error) { return store.ReadSmallFile(path, 1<<20) }
	write := store.WriteFileAtomic
	remove := func() error { return os.Remove(path) }
	if root != "" {
		read = func() ([]byte, error) { return store.ReadFileIn(root, path, 1<<20) }
		write = func(p string, data []byte) error { return store.WriteFileIn(root, p, data) }
		remove = func() error {
			if err := store.CheckIn(root, path); err != nil {
				return err
			}
			return os.Remove(path)
		}
	}
	old, err := read()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err != nil && on == nil {
		return false, nil // no file, no key
	}
	next := string(old)
	if on == nil {
		next = enabledLine.ReplaceAllString(next, "")
	} else if line := fmt.Sprintf("enabled: %v", *on); enabledLine.MatchString(next) {
		next = enabledLine.ReplaceAllStringFunc(next, func(m string) string { return line + m[len(strings.TrimRight(m, "\n")):] })
	} else {
		if next != "" && !strings.HasSuffix(next, "\n") {
			next += "\n"
		}
		next += line + "\n"
	}
	if _, files := Merge(func(string) ([]byte, error) { return []byte(next), nil }, path); files[0].Err != nil {
		return false, fmt.Errorf("%s would not parse after the change (%w); edit it by hand", path, files[0].Err)
	}
	store.Tidy(filepath.Dir(path), filepath.Base(path))
	if next == string(old) {
		return false, nil
	}
	if on == nil && strings.TrimSpace(next) == "" {
		// Only the enabled line was there: the file goes with it.
		if err := remove(); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		return true, nil
	}
	if err := write(path, []byte(next)); err != nil {
		return false, err
	}
	return true, nil
}

// EnabledSource is the config file that decides enabled for the project
// (the last one, in merge order, that sets the key), or "" when none does.
func EnabledSource(e store.Env, root, key string) string {
	paths := Paths(e, root, key)
	for i := len(paths) - 1; i >= 0; i-- {
		p := paths[i]
		var data []byte
		if root != "" && p == store.RepoConfig(root) {
			data, _ = store.ReadFileIn(root, p, 1<<20)
		} else {
			data, _ = store.ReadSmallFile(p, 1<<20)
		}
		if enabledLine.MatchString(string(data)) {
			return p
		}
	}
	return ""
}
