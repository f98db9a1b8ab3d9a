package config

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ccmem/ccmem/internal/lazyregexp"
	"github.com/ccmem/ccmem/pkg/store"
)

var enabledLine = lazyregexp.New(`(?m)^enabled:.*$`)

// SetEnabled writes "enabled: on" into the config file at path, replacing
// an existing top-level enabled line or appending one, and keeping every
// other byte. It refuses a change after which the file would not parse, and
// reports whether the file changed. A shared file (a repository's, read by
// the team) is created 0644, a private one 0600.
func SetEnabled(path string, on, shared bool) (bool, error) {
	old, err := store.ReadSmallFile(path, 1<<20)
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
	if next == string(old) {
		return false, nil
	}
	write := store.WriteFileAtomic
	if shared {
		write = store.WriteFileShared
	}
	if err := write(path, []byte(next)); err != nil {
		return false, err
	}
	return true, nil
}
