package store

import (
	"io/fs"
	"os"
	"strings"
)

// FileStat is one regular file of a folder: its name, size and
// modification time (Unix nanoseconds).
type FileStat struct {
	Name  string
	Size  int64
	MTime int64
}

// ListFiles lists the regular files of dir — not its symlinks, folders or
// anything else, nor names starting with "." — with their size and time,
// the way a check of thousands of files is cheapest on each system. With
// root, dir is under root and no symlink on the way is followed (as
// ReadDirIn).
func ListFiles(root, dir string) ([]FileStat, error) {
	if root != "" {
		if err := CheckIn(root, dir); err != nil {
			return nil, err
		}
		if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, &fs.PathError{Op: "open", Path: dir, Err: ErrSymlink}
		}
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ents))
	for _, de := range ents {
		if de.Type().IsRegular() && !strings.HasPrefix(de.Name(), ".") {
			names = append(names, de.Name())
		}
	}
	return statNames(f, dir, names), nil
}

// ListSubdirs lists the folders of dir that hold a folder named sub, with
// sub's modification time: one listing and one stat per folder, relative
// to dir where the system allows, so hundreds of Claude Code silos cost a
// few milliseconds.
func ListSubdirs(dir, sub string) ([]FileStat, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	return statSubdirs(f, dir, names, sub), nil
}

// StatSubdirsOf stats dir/<name>/sub for the given names only (as
// ListSubdirs does for all), keeping those that are folders.
func StatSubdirsOf(dir string, names []string, sub string) ([]FileStat, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return statSubdirs(f, dir, names, sub), nil
}
