package hookio

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// IsTerminal tells whether r is an interactive terminal (not merely a
// character device such as /dev/null).
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TCGETS), uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
