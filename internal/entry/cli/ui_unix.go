//go:build !windows

package cli

import (
	"os"
	"syscall"
)

// runHelper becomes the helper binary at path (it keeps this process's
// stdio, environment and signals, and its exit status is ccmem's).
func runHelper(path string, args []string) error {
	return syscall.Exec(path, append([]string{path}, args...), os.Environ())
}
