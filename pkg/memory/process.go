package memory

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// ProcessInfo identifies a running claude process, so a later session can
// tell a live session from an orphan even after the pid is reused.
type ProcessInfo struct {
	PID int `json:"pid,omitempty"`
	// Start is the process's start time in clock ticks since boot
	// (/proc/PID/stat field 22); 0 when unknown.
	Start uint64 `json:"start,omitempty"`
}

// ClaudeProcess finds the claude process that runs this hook: $CLAUDE_PID
// when the client sets it, else the nearest ancestor that is not a shell
// (the client runs hooks through "sh -c").
func ClaudeProcess(getenv func(string) string) ProcessInfo {
	if pid, err := strconv.Atoi(strings.TrimSpace(getenv("CLAUDE_PID"))); err == nil && pid > 1 {
		return ProcessInfo{PID: pid, Start: procStart(pid)}
	}
	pid := os.Getppid()
	for i := 0; i < 4 && pid > 1; i++ {
		name, ppid, _, err := procStat(pid)
		if err != nil {
			return ProcessInfo{PID: pid}
		}
		switch name {
		case "sh", "bash", "dash", "zsh", "fish", "ksh", "busybox", "timeout", "env":
			pid = ppid
			continue
		}
		return ProcessInfo{PID: pid, Start: procStart(pid)}
	}
	return ProcessInfo{}
}

// Alive tells whether the process still runs. known is false when that
// cannot be told (no pid recorded, or no /proc on this system).
func (p ProcessInfo) Alive() (alive, known bool) {
	if p.PID <= 0 {
		return false, false
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return false, false
	}
	_, _, start, err := procStat(p.PID)
	if errors.Is(err, fs.ErrNotExist) {
		return false, true
	}
	if err != nil {
		return false, false
	}
	if p.Start != 0 && start != p.Start {
		return false, true // the pid was reused by another process
	}
	return true, true
}

func procStart(pid int) uint64 {
	_, _, start, _ := procStat(pid)
	return start
}

// procStat reads a process's name, parent and start time from /proc.
func procStat(pid int) (name string, ppid int, start uint64, err error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, 0, err
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses.
	open, close := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || close < open {
		return "", 0, 0, errors.New("unreadable /proc stat")
	}
	name = string(data[open+1 : close])
	fields := strings.Fields(string(data[close+1:]))
	// fields[0] is the state (field 3); ppid is field 4; starttime field 22.
	if len(fields) < 20 {
		return name, 0, 0, errors.New("short /proc stat")
	}
	ppid, _ = strconv.Atoi(fields[1])
	start, _ = strconv.ParseUint(fields[19], 10, 64)
	return name, ppid, start, nil
}
