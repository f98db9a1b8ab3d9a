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

// ClaudeAncestor names the nearest process above p (its parent, and theirs,
// up to 32 levels) that is a Claude Code client, or "" when none is: a
// session whose client was started by another client's process — a hook's
// or a plugin's background `claude -p`, a live session's Bash tool call —
// is automated work, not a person's session. A `claude -p` a person types
// has a shell and a terminal above it, no client.
func ClaudeAncestor(p Info) string {
	if p.PID <= 1 {
		return ""
	}
	st, err := stat(p.PID)
	if err != nil {
		return ""
	}
	seen := map[int]bool{p.PID: true}
	for pid, i := st.ppid, 0; pid > 1 && i < 32 && !seen[pid]; i++ {
		seen[pid] = true
		up, err := stat(pid)
		if err != nil {
			return ""
		}
		if isClaude(up.name) {
			return up.name + " (pid " + strconv.Itoa(pid) + ")"
		}
		pid = up.ppid
	}
	return ""
}

// isClaude tells whether a process name is Claude Code's client: its
// native binary, "claude" (or "claude.exe").
func isClaude(name string) bool {
	return strings.TrimSuffix(strings.ToLower(name), ".exe") == "claude"
}

// CI names the continuous-integration service whose environment a process
// runs in (the variables each sets), or "".
func CI(getenv func(string) string) string {
	for _, v := range []struct{ name, service string }{
		{"GITHUB_ACTIONS", "GitHub Actions"}, {"GITLAB_CI", "GitLab CI"}, {"BUILDKITE", "Buildkite"},
		{"CIRCLECI", "CircleCI"}, {"JENKINS_URL", "Jenkins"}, {"TF_BUILD", "Azure Pipelines"},
		{"TRAVIS", "Travis CI"}, {"BITBUCKET_BUILD_NUMBER", "Bitbucket Pipelines"}, {"TEAMCITY_VERSION", "TeamCity"},
	} {
		if getenv(v.name) != "" {
			return v.service
		}
	}
	if ci := strings.ToLower(getenv("CI")); ci != "" && ci != "false" && ci != "0" {
		return "CI"
	}
	return ""
}

// Automation says what other program started the session whose client is
// p — a CI job, or another Claude Code client (a hook's or a plugin's
// background run, a live session's Bash call) — or "" for a person.
func Automation(getenv func(string) string, p Info) string {
	if ci := CI(getenv); ci != "" {
		return "a CI job (" + ci + ")"
	}
	if a := ClaudeAncestor(p); a != "" {
		return "started by another Claude Code process, " + a
	}
	return ""
}

// StartDetached starts the program at path with args in the background,
// in dir, in a session of its own with no input or output: the caller (a
// hook) returns at once and the program outlives it. It returns the
// program's process id. (os.StartProcess, not os/exec: hooks link this
// package.)
func StartDetached(path string, args []string, dir string) (int, error) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return 0, &os.PathError{Op: "start", Path: path, Err: os.ErrNotExist}
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	p, err := os.StartProcess(path, append([]string{path}, args...), &os.ProcAttr{
		Dir: dir, Files: []*os.File{devnull, devnull, devnull}, Sys: detached(),
	})
	if err != nil {
		return 0, err
	}
	pid := p.Pid
	return pid, p.Release()
}
