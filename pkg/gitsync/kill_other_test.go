//go:build !unix

package gitsync_test

import "os/exec"

// inGroup does nothing where there are no process groups.
func inGroup(cmd *exec.Cmd) {}

// killGroup kills cmd alone.
func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
