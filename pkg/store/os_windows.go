//go:build windows

package store

import (
	"hash/fnv"
	"os"

	"golang.org/x/sys/windows"
)

// modesMatter: Windows guards files with ACLs, not mode bits.
const modesMatter = false

// openRead opens path for reading. Windows has no FIFOs in the file system
// (named pipes live under \\.\pipe\), so a plain open cannot block.
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

// SyncDir does nothing on Windows: a folder cannot be flushed there
// (FlushFileBuffers on a directory handle is refused with "Access is
// denied"), and NTFS journals the rename itself.
func SyncDir(dir string) error { return nil }

// FileID identifies a file across renames and tells a replaced file from
// the same one grown: its volume serial number and 64-bit file index, from
// GetFileInformationByHandle
// (https://learn.microsoft.com/windows/win32/api/fileapi/nf-fileapi-getfileinformationbyhandle),
// hashed to 64 bits; 0 when unknown (a replaced transcript is then told by
// its size and the offset read alone).
func FileID(f *os.File, fi os.FileInfo) uint64 {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return 0
	}
	h := fnv.New64a()
	for _, v := range []uint32{info.VolumeSerialNumber, info.FileIndexHigh, info.FileIndexLow} {
		h.Write([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)})
	}
	return h.Sum64()
}
