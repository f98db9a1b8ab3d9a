//go:build !windows

package proc

import "syscall"

// detached starts a process in a session of its own, so the hook's
// process group ending does not end it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
