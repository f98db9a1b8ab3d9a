package learn

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/pkg/store"
)

// A silo belongs to Claude Code, which may write a memory file or append to
// MEMORY.md at any moment, also while apply runs. These two operations
// close the windows in which such a write could be lost.

// testOnlySiloWrite, when a test sets it, is called at the moments a
// client's write would be most likely lost: a memory file being removed,
// MEMORY.md between its read and its replacement.
var testOnlySiloWrite func(stage, path string)

// asideMark names a silo file renamed aside by removeIfUnchanged.
const asideMark = ".ccmem-del-"

// removeIfUnchanged deletes a silo file only if it still holds the content
// that was ingested (hash). It renames the file aside first, atomically, so
// that a rewrite by the client either happened before (the aside copy then
// differs, and goes back) or happens after (to a new file at the name,
// which stays). It reports whether the file was removed.
func removeIfUnchanged(path, hash string) (bool, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	asideFile, err := os.CreateTemp(dir, "."+base+asideMark+"*")
	if err != nil {
		return false, err
	}
	aside := asideFile.Name()
	asideFile.Close()
	if err := os.Rename(path, aside); err != nil {
		os.Remove(aside)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil // gone already: nothing to remove
		}
		return false, err
	}
	if testOnlySiloWrite != nil {
		testOnlySiloWrite("removing", path)
	}
	if sameHash(aside, hash) {
		return true, os.Remove(aside)
	}
	return false, restoreAside(path, aside)
}

// restoreAside puts a silo file renamed aside back at its name, unless the
// client wrote the name again meanwhile: that newer file stays, and the
// aside copy, an older version of the same memory, goes.
func restoreAside(path, aside string) error {
	if err := os.Link(aside, path); err != nil && !errors.Is(err, fs.ErrExist) {
		// No hard links here: put it back unless the name is taken.
		if _, serr := os.Lstat(path); errors.Is(serr, fs.ErrNotExist) {
			return os.Rename(aside, path)
		}
	}
	return os.Remove(aside)
}

// recoverAsides puts back silo files a killed apply left renamed aside.
func recoverAsides(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, de := range ents {
		name := de.Name()
		i := strings.Index(name, asideMark)
		if i < 1 || !strings.HasPrefix(name, ".") || !de.Type().IsRegular() {
			continue
		}
		_ = restoreAside(filepath.Join(dir, name[1:i]), filepath.Join(dir, name))
	}
}

func sameHash(path, hash string) bool {
	data, err := store.ReadFileIn(filepath.Dir(path), path, 1<<20)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) == hash
}

// rewriteIndex rewrites a silo's MEMORY.md with transform, without losing
// what the client writes to it meanwhile: it replaces the file only if it
// is still the one it read (else it starts over from the new one), and
// keeps the old file open, so lines the client appended to it just before
// the replace are read from there and carried over. It reports whether the
// file changed.
func rewriteIndex(path string, transform func(string) string) (bool, error) {
	dir := filepath.Dir(path)
	f, expect, err := store.OpenIn(dir, path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer func() { f.Close() }()
	changed := false
	for range 8 {
		read, err := f.Stat()
		if err != nil {
			return changed, err
		}
		data, err := io.ReadAll(io.NewSectionReader(f, 0, 4<<20))
		if err != nil {
			return changed, err
		}
		out := transform(string(data))
		if out == string(data) {
			return changed, nil
		}
		if testOnlySiloWrite != nil {
			testOnlySiloWrite("rewriting", path)
		}
		cur, err := os.Lstat(path)
		if err != nil || !os.SameFile(cur, expect) || cur.Size() != expect.Size() || !cur.ModTime().Equal(expect.ModTime()) {
			// The client replaced or changed it since: start over from it.
			f.Close()
			if f, expect, err = store.OpenIn(dir, path); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return changed, nil
				}
				return changed, err
			}
			continue
		}
		if err := store.WriteFileAtomicIn(dir, path, []byte(out)); err != nil {
			return changed, err
		}
		changed = true
		if expect, err = os.Lstat(path); err != nil {
			return changed, err
		}
		after, err := f.Stat()
		if err != nil || (after.Size() == read.Size() && after.ModTime().Equal(read.ModTime())) {
			return changed, err
		}
		// Written to the old file after it was read: carry it over.
	}
	return changed, errors.New(path + " keeps changing; try again")
}
