package proc

import "syscall"

// detached starts a process with no console, in a group of its own, so
// the hook's console closing does not end it.
func detached() *syscall.SysProcAttr {
	const detachedProcess, newProcessGroup = 0x00000008, 0x00000200
	return &syscall.SysProcAttr{CreationFlags: detachedProcess | newProcessGroup}
}
