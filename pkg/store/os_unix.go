//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// modesMatter: permission bits guard files here.
const modesMatter = true

// openRead opens path for reading without blocking on a FIFO (O_NONBLOCK),
// so a FIFO planted where a memory file was expected is refused, not waited
// on.
func openRead(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

// openNoFollow is openRead that refuses a symlink (O_NOFOLLOW: the open
// fails with ELOOP).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
}

// noFollowError says "a symlink" for O_NOFOLLOW's ELOOP.
func noFollowError(path string, err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return &os.PathError{Op: "open", Path: path, Err: ErrSymlink}
	}
	return err
}

// SyncDir makes a rename or a new file in dir durable (fsync(2) of the
// folder; file systems that cannot sync a folder say EINVAL, which is fine).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// FileID identifies a file across renames and tells a replaced file from
// the same one grown: its inode number (stat(2) st_ino), 0 when unknown.
func FileID(f *os.File, fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
