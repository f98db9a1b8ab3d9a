//go:build windows

package proc

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/windows"
)

// errGone is returned by stat for a process that does not exist.
var errGone = errors.New("no such process")

// stillActive is the exit code GetExitCodeProcess reports for a process
// that has not exited (STILL_ACTIVE).
const stillActive = 259

// stat asks Windows about a process: OpenProcess with
// PROCESS_QUERY_LIMITED_INFORMATION
// (https://learn.microsoft.com/windows/win32/api/processthreadsapi/nf-processthreadsapi-openprocess),
// GetExitCodeProcess for whether it still runs (a process that exited but
// whose handle someone still holds can be opened; its exit code says it is
// gone), GetProcessTimes for its creation time (100 ns units since 1601),
// and a Toolhelp snapshot (CreateToolhelp32Snapshot, Process32First/Next)
// for its parent and image name.
func stat(pid int) (status, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		return status{}, errGone // no process has this id
	}
	if err != nil {
		return status{}, err
	}
	defer windows.CloseHandle(h)
	var st status
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return status{}, err
	}
	st.zombie = code != stillActive
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err == nil {
		st.start = uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime)
	}
	st.name, st.ppid = parentOf(uint32(pid))
	return st, nil
}

// parentOf finds a process's image name and parent in a snapshot of the
// process list.
func parentOf(pid uint32) (string, int) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return "", 0
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if e.ProcessID == pid {
			return windows.UTF16ToString(e.ExeFile[:]), int(e.ParentProcessID)
		}
	}
	return "", 0
}
