//go:build darwin

package proc

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// errGone is returned by stat for a process that does not exist.
var errGone = errors.New("no such process")

// szomb is p_stat of a process that exited and was not reaped
// (<sys/proc.h>: SIDL 1, SRUN 2, SSLEEP 3, SSTOP 4, SZOMB 5).
const szomb = 5

// stat asks the kernel for a process's struct kinfo_proc with
// sysctl(3) {CTL_KERN, KERN_PROC, KERN_PROC_PID, pid}
// (https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man3/sysctl.3.html):
// its name (p_comm), state (p_stat), parent (e_ppid) and start time
// (p_starttime, as microseconds since the epoch). A pid that does not
// exist returns no bytes.
func stat(pid int) (status, error) {
	buf, err := unix.SysctlRaw("kern.proc.pid", pid)
	if err != nil {
		return status{}, err
	}
	if len(buf) == 0 {
		return status{}, errGone
	}
	if len(buf) < int(unsafe.Sizeof(unix.KinfoProc{})) {
		return status{}, errors.New("short kinfo_proc")
	}
	k := (*unix.KinfoProc)(unsafe.Pointer(&buf[0]))
	return fromKinfo(k), nil
}

func fromKinfo(k *unix.KinfoProc) status {
	comm := k.Proc.P_comm[:]
	for i, c := range comm {
		if c == 0 {
			comm = comm[:i]
			break
		}
	}
	t := k.Proc.P_starttime
	return status{
		name:   string(comm),
		ppid:   int(k.Eproc.Ppid),
		start:  uint64(t.Sec)*1e6 + uint64(t.Usec),
		zombie: k.Proc.P_stat == szomb,
	}
}
