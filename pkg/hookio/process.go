package hookio

import (
	"io"
	"os"
	"time"
)

// Process is what a ccmem binary gets from the operating system, passed in
// so tests can run a hook or the command in-process with pinned surroundings.
type Process struct {
	Args   []string // without the program name
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Now    func() time.Time
}

// OS is the real process.
func OS() Process {
	return Process{
		Args:   os.Args[1:],
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
		Now:    time.Now,
	}
}
