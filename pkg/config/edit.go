package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/pkg/lazyregexp"
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

// Scope is where an on/off switch is written.
type Scope string

// The scopes of Switch.
const (
	// Personal is the user's own config for one project, in the store:
	// it overrides the repository's and writes nothing into it.
	Personal Scope = "personal"
	// Team is the repository's committed config: every teammate's.
	Team Scope = "team"
	// Global is the user's config for every project.
	Global Scope = "global"
)

// SwitchResult says what Switch did and where ccmem stands after it.
type SwitchResult struct {
	Scope   Scope  `json:"scope"`
	Path    string `json:"path"`
	Changed bool   `json:"changed"`
	// Enabled is the project's effective setting after the switch.
	Enabled bool `json:"enabled"`
	// OffBy names the config file that still decides otherwise, if any.
	OffBy string `json:"off_by,omitempty"`
}

// Switch turns ccmem on or off at scope for the project rooted at root
// with store key key (both "" outside a project, for Global). Off is
// written as enabled: false. On removes the key, so the layers below
// decide again; only in the personal file, which is the user's alone, is
// enabled: true written, when a layer below would still leave ccmem off.
func Switch(e store.Env, root, key string, scope Scope, on bool) (SwitchResult, error) {
	res := SwitchResult{Scope: scope, Path: e.GlobalConfig()}
	fileRoot := ""
	switch scope {
	case Team:
		res.Path, fileRoot = store.RepoConfig(root), root
	case Personal:
		res.Path = e.PersonalConfig(key)
	}
	var want *bool
	if !on {
		want = &on
	}
	changed, err := SetEnabled(res.Path, want, fileRoot)
	if err != nil {
		return res, err
	}
	cfg, _ := Load(e, root, key)
	if on && !cfg.Enabled && scope == Personal {
		ch, err := SetEnabled(res.Path, &on, fileRoot)
		if err != nil {
			return res, err
		}
		changed = changed || ch
		cfg, _ = Load(e, root, key)
	}
	res.Changed, res.Enabled = changed, cfg.Enabled
	if cfg.Enabled != on {
		res.OffBy = EnabledSource(e, root, key)
	}
	return res, nil
}
