//go:build unix

package store

import (
	"os"
	"syscall"
)

// FileID identifies a file across renames and tells a replaced file from
// the same one grown: its inode number (0 when unknown).
func FileID(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
