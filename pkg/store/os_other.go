//go:build !unix && !windows

package store

import "os"

// modesMatter: permission bits guard files here.
const modesMatter = true

func openRead(path string) (*os.File, error) { return os.Open(path) }

// openNoFollow opens path unless it is a symlink (checked with Lstat just
// before: this system has no O_NOFOLLOW for os.OpenFile).
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrSymlink}
	}
	return openRead(path)
}

func noFollowError(path string, err error) error { return err }

// SyncDir does nothing where folders cannot be synced.
func SyncDir(dir string) error { return nil }

// FileID is 0 where a file's identity is not read: a replaced file is then
// told by its size and the offset read alone.
func FileID(f *os.File, fi os.FileInfo) uint64 { return 0 }
