//go:build !(linux || darwin)

package store

import (
	"os"
	"path/filepath"
)

// statNames stats each name of the folder, not following symlinks (on
// Windows the folder listing already holds what this asks); a name that is
// gone, or no longer a regular file, is left out.
func statNames(d *os.File, dir string, names []string) []FileStat {
	out := make([]FileStat, 0, len(names))
	for _, n := range names {
		fi, err := os.Lstat(filepath.Join(dir, n))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out = append(out, FileStat{n, fi.Size(), fi.ModTime().UnixNano()})
	}
	return out
}

// statSubdirs is statNames for the folder sub inside each named folder
// (following symlinks, as the client does): the folders that have one, with
// its modification time.
func statSubdirs(d *os.File, dir string, names []string, sub string) []FileStat {
	out := make([]FileStat, 0, len(names))
	for _, n := range names {
		fi, err := os.Stat(filepath.Join(dir, n, sub))
		if err != nil || !fi.IsDir() {
			continue
		}
		out = append(out, FileStat{n, fi.Size(), fi.ModTime().UnixNano()})
	}
	return out
}
