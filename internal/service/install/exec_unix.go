//go:build !windows

package install

import (
	"os"
)

// modesMatter: permission bits say whether a file runs.
const modesMatter = true

// Executable tells whether an installed binary can run: its execute bits.
func Executable(fi os.FileInfo) bool {
	return fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// replaceExecutable renames tmp over to: a running copy of the old binary
// keeps its (now unlinked) file.
func replaceExecutable(tmp, to string) error { return os.Rename(tmp, to) }
