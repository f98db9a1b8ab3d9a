//go:build unix

package gitsync_test

import (
	"os/exec"
	"syscall"
)

// inGroup makes cmd the leader of a process group of its own, so that
// killGroup kills it with every git it started (as a terminal's kill, or a
// machine going down, does).
func inGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup sends SIGKILL to cmd's whole process group.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
