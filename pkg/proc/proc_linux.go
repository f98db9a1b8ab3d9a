package proc

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
)

// errGone is returned by stat for a process that does not exist.
var errGone = errors.New("no such process")

var haveProc = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
})

// stat reads a process's name, state, parent and start time from
// /proc/PID/stat (proc(5), https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html:
// fields 2, 3, 4 and 22).
func stat(pid int) (status, error) {
	if !haveProc() {
		return status{}, errors.New("no /proc on this system")
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) {
		return status{}, errGone
	}
	if err != nil {
		return status{}, err
	}
	return parseStat(data)
}

// parseStat parses "pid (comm) state ppid …"; comm may hold spaces and
// parentheses, so it runs to the last ")".
func parseStat(data []byte) (status, error) {
	open, close := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || close < open {
		return status{}, errors.New("unreadable /proc stat")
	}
	st := status{name: string(data[open+1 : close])}
	fields := strings.Fields(string(data[close+1:]))
	// fields[0] is the state (field 3); ppid is field 4; starttime field 22.
	if len(fields) < 20 {
		return st, errors.New("short /proc stat")
	}
	// Z: zombie (exited, not reaped); X: dead. Either is gone.
	st.zombie = fields[0] == "Z" || fields[0] == "X"
	st.ppid, _ = strconv.Atoi(fields[1])
	st.start, _ = strconv.ParseUint(fields[19], 10, 64)
	return st, nil
}
