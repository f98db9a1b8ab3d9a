//go:build !linux && !darwin && !windows

package proc

import "errors"

// errGone is returned by stat for a process that does not exist.
var errGone = errors.New("no such process")

// stat cannot tell on this system: sessions then end by idle time
// (orphan_after).
func stat(pid int) (status, error) {
	return status{}, errors.New("process status is not available on this system")
}
