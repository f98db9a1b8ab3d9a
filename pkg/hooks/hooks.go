// Package hooks holds the bodies of ccmem's hook binaries. Each translates
// between Claude Code's hook protocol and pkg/memory, and nothing more; the
// mains only call these, so tests run them in-process too.
package hooks

import (
	"fmt"
	"io"
	"time"

	"github.com/ccmem/ccmem/pkg/hookio"
	"github.com/ccmem/ccmem/pkg/memory"
)

// handleArgs answers --help and --version; hooks take no other arguments.
// done is false when the hook should go on with its job.
func handleArgs(name, usage string, p hookio.Process) (code int, done bool) {
	if len(p.Args) == 0 {
		return 0, false
	}
	switch p.Args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(p.Stdout, usage)
		return 0, true
	case "--version", "version":
		fmt.Fprintf(p.Stdout, "%s (ccmem) %s\n", name, memory.Version)
		return 0, true
	}
	fmt.Fprintf(p.Stderr, "%s: unexpected argument %q\nhint: this is a Claude Code hook; it reads the hook JSON on stdin and takes no arguments\n", name, p.Args[0])
	return 1, true
}

// start is what every hook does first: answer --help and --version, honour
// CCMEM_DISABLE, find the store, and read the hook input by the default
// deadline. ok is false when the hook is done, with code its exit status;
// inErr is a problem with the input, which each hook handles its own way.
func start(name, usage string, p hookio.Process) (env memory.Env, in hookio.Input, started time.Time, inErr error, code int, ok bool) {
	if code, done := handleArgs(name, usage, p); done {
		return env, in, started, nil, code, false
	}
	env, err := memory.EnvFrom(p.Getenv)
	if env.Disabled {
		return env, in, started, nil, 0, false
	}
	if err != nil {
		writeLine(p.Stderr, name+": "+err.Error())
		return env, in, started, nil, 1, false
	}
	started = p.Now()
	in, inErr = hookio.ReadInput(p.Stdin, started.Add(memory.DefaultConfig().Deadline))
	return env, in, started, inErr, 0, true
}

func writeLine(w io.Writer, line string) {
	if line != "" {
		fmt.Fprintln(w, line)
	}
}

// systemMessage shows the user a hook's problem line, naming ccmem so they
// know which tool it comes from.
func systemMessage(line string) string {
	if line == "" {
		return ""
	}
	return "ccmem " + line
}
