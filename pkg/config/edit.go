package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/internal/lazyregexp"
	"github.com/ccmem/ccmem/pkg/store"
)

var enabledLine = lazyregexp.New(`(?m)^enabled:.*$`)

// SetEnabled writes "enabled: on" into the config file at path, replacing
// an existing top-level enabled line or appending one, and keeping every
// other byte. It refuses a change after which the file would not parse, and
// reports whether the file changed. With a root, the file is a
// repository's (read by the team: created 0644; untrusted: no symlink is
// followed); without, a private one (0600).
func SetEnabled(path string, on bool, root string) (bool, error) {
	read := func() ([]byte, error) { return store.ReadSmallFile(path, 1<<20) }
	write := store.WriteFileAtomic
	if root != "" {
		read = func() ([]byte, error) { return store.ReadFileIn(root, path, 1<<20) }
		write = func(p string, data []byte) error { return store.WriteFileIn(root, p, data) }
	}
	old, err := read()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	line := fmt.Sprintf("enabled: %v", on)
	next := string(old)
	if enabledLine.MatchString(next) {
		next = enabledLine.ReplaceAllString(next, line)
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
	if err := write(path, []byte(next)); err != nil {
		return false, err
	}
	return true, nil
}
