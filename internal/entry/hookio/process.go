package hookio

import (
	"io"
	"os"
	"runtime/debug"
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

// TuneGC sets a short-lived process's garbage collection: a hook lives for
// milliseconds, so collecting only costs it time; the collector runs only
// as the heap nears 20 MB, which also bounds the peak memory of a long
// first pass over a big transcript (the process, runtime and code
// included, stays under 30 MB). Each hook's main calls it.
func TuneGC() {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(20 << 20)
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
