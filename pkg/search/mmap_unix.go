//go:build unix

package search

import (
	"os"
	"syscall"
)

// mapFile maps a file read-only; nil when it cannot be mapped (the caller
// reads it instead).
func mapFile(f *os.File, size int64) ([]byte, func()) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return data, func() { _ = syscall.Munmap(data) }
}
