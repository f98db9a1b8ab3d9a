// Package hooks holds the bodies of ccmem's hook binaries. Each translates
// between Claude Code's hook protocol and pkg/memory, and nothing more; the
// mains only call these, so tests run them in-process too.
package hooks

import (
	"fmt"
	"io"
	"time"

	"github.com/ccmem/ccmem/internal/service/registration"
	"github.com/ccmem/ccmem/pkg/claudecode"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/version"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
)

// run is one hook invocation after its common start.
type run struct {
	name    string
	p       hookio.Process
	env     store.Env
	started time.Time
	in      claudecode.Input
	// inErr is a problem with the input, which each hook handles its own way.
	inErr error
}

// begin is what every hook does first: answer --help and --version, honour
// CCMEM_DISABLE, find the store, and read the hook input. When the hook is
// done already, r is nil and code is its exit status.
func begin(name, usage string, p hookio.Process) (r *run, code int) {
	if code, done := handleArgs(name, usage, p); done {
		return nil, code
	}
	env, err := store.EnvFrom(p.Getenv)
	if env.Disabled {
		return nil, 0
	}
	if err != nil {
		writeLine(p.Stderr, name+": "+err.Error())
		return nil, 1
	}
	if p.Getenv("CLAUDE_PLUGIN_ROOT") != "" && registration.Registered(env.Settings()) {
		// Run as the plugin while `ccmem install` registered the same hooks
		// in settings.json: those do the work; the plugin stands aside.
		if name == "sessionstart" {
			msg, _ := claudecode.Output{SystemMessage: "ccmem is installed twice, as the " + claudecode.PluginID +
				" plugin and with `ccmem install`; the plugin stands aside. Keep one: `ccmem uninstall` (the plugin then works alone) or `claude plugin uninstall " + claudecode.PluginID + "`."}.Encode()
			p.Stdout.Write(msg)
		}
		return nil, 0
	}
	r = &run{name: name, p: p, env: env, started: p.Now()}
	// The input comes before the configuration (which depends on its cwd),
	// so reading it is bounded by the default deadline; pkg/memory then
	// bounds the work by the configured one, counted from r.started.
	r.in, r.inErr = hookio.ReadInput(p.Stdin, r.started.Add(config.DefaultDeadline))
	return r, 0
}

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
		fmt.Fprintf(p.Stdout, "%s (ccmem) %s\n", name, version.String())
		return 0, true
	}
	fmt.Fprintf(p.Stderr, "%s: unexpected argument %q\nhint: this is a Claude Code hook; it reads the hook JSON on stdin and takes no arguments\n", name, p.Args[0])
	return 1, true
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
