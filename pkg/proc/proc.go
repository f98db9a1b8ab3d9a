// Package proc tells whether the claude process that ran a session is still
// alive, robustly against pid reuse: a process is identified by its pid and
// its start time. Each operating system answers in its own file.
package proc

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// Info identifies a running process, so a later session can tell a live
// session from an orphan even after the pid is reused.
type Info struct {
	PID int `json:"pid,omitempty"`
	// Start is the process's start time in the operating system's own
	// units (clock ticks since boot on Linux); 0 when unknown.
	Start uint64 `json:"start,omitempty"`
}

// Claude finds the claude process that runs this hook: $CLAUDE_PID when the
// client sets it, else the nearest ancestor that is not a shell (the client
// runs hooks through "sh -c").
func Claude(getenv func(string) string) Info {
	if pid, err := strconv.Atoi(strings.TrimSpace(getenv("CLAUDE_PID"))); err == nil && pid > 1 {
		return Info{PID: pid, Start: startTime(pid)}
	}
	pid := os.Getppid()
	for i := 0; i < 4 && pid > 1; i++ {
		st, err := stat(pid)
		if err != nil {
			return Info{PID: pid}
		}
		if isShell(st.name) {
			pid = st.ppid
			continue
		}
		return Info{PID: pid, Start: st.start}
	}
	return Info{}
}

// isShell tells whether a process name is a shell or a wrapper the client
// may start hooks through.
func isShell(name string) bool {
	name = strings.TrimSuffix(strings.ToLower(name), ".exe")
	switch name {
	case "sh", "bash", "dash", "zsh", "fish", "ksh", "busybox", "timeout", "env",
		"pwsh", "powershell", "cmd":
		return true
	}
	return false
}

// Alive tells whether the process still runs. known is false when that
// cannot be told (no pid recorded, or no way to ask on this system). A
// process that has exited but was not reaped yet (a zombie) is gone.
func (p Info) Alive() (alive, known bool) {
	if p.PID <= 0 {
		return false, false
	}
	st, err := stat(p.PID)
	switch {
	case errors.Is(err, errGone):
		return false, true
	case err != nil:
		return false, false
	case st.zombie:
		return false, true
	case p.Start != 0 && st.start != p.Start:
		return false, true // the pid was reused by another process
	}
	return true, true
}

// Of identifies the running process pid (with Start 0 when it cannot be
// read).
func Of(pid int) Info { return Info{PID: pid, Start: startTime(pid)} }

func startTime(pid int) uint64 {
	st, _ := stat(pid)
	return st.start
}

// status is what each system reports of a process.
type status struct {
	name   string
	ppid   int
	start  uint64
	zombie bool
}
