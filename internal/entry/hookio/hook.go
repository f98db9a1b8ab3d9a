package hookio

// What every hook body does first and last: answer --help and --version,
// honour CCMEM_DISABLE, stand aside for a second install, read the hook's
// input, and print its output. The bodies live one event apart
// (internal/entry/hooks/capture: Stop and PreCompact; start; prompt;
// tool), so that each hook binary links only its own chain; the mains
// only call them, so tests run them in-process too.

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// Run is one hook invocation after its common start.
type Run struct {
	Name    string
	P       Process
	Env     store.Env
	Started time.Time
	In      claudecode.Input
	// InErr is a problem with the input, which each hook handles its own way.
	InErr error
}

// Begin is what every hook does first: answer --help and --version, honour
// CCMEM_DISABLE, find the store, and read the hook input. When the hook is
// done already, r is nil and code is its exit status.
func Begin(name, usage string, p Process) (r *Run, code int) {
	if code, done := handleArgs(name, usage, p); done {
		return nil, code
	}
	env, err := store.EnvFrom(p.Getenv)
	if env.Disabled {
		return nil, 0
	}
	if err != nil {
		WriteLine(p.Stderr, name+": "+err.Error())
		return nil, 1
	}
	if p.Getenv("CLAUDE_PLUGIN_ROOT") != "" && registeredIn(env.Settings()) {
		// Run as the plugin while `ccmem install` registered the same hooks
		// in settings.json: those do the work; the plugin stands aside.
		if name == "sessionstart" {
			msg, _ := claudecode.Output{SystemMessage: "ccmem is installed twice, as the " + claudecode.PluginID +
				" plugin and with `ccmem install`; the plugin stands aside. Keep one: `ccmem uninstall` (the plugin then works alone) or `claude plugin uninstall " + claudecode.PluginID + "`."}.Encode()
			p.Stdout.Write(msg)
		}
		return nil, 0
	}
	r = &Run{Name: name, P: p, Env: env, Started: p.Now()}
	// The input comes before the configuration (which depends on its cwd),
	// so reading it is bounded by the default deadline; pkg/memory then
	// bounds the work by the configured one, counted from r.started.
	r.In, r.InErr = ReadInput(p.Stdin, r.Started.Add(config.DefaultDeadline))
	if name, ok := transcript.GeminiRecording(r.In.TranscriptPath); ok {
		// Gemini CLI: the session goes by its recording's name, as an
		// import of it would name it, not by the hooks' session_id.
		r.In.SessionID = name
	}
	return r, 0
}

// BeginInput is Begin for a body that needs its input: a problem with
// the input is its one stderr line and exit 1 (never 2).
func BeginInput(name, usage string, p Process) (r *Run, code int) {
	r, code = Begin(name, usage, p)
	if r != nil && r.InErr != nil {
		WriteLine(p.Stderr, name+": "+r.InErr.Error())
		return nil, 1
	}
	return r, code
}

// handleArgs answers --help and --version; hooks take no other arguments.
// done is false when the hook should go on with its job.
func handleArgs(name, usage string, p Process) (code int, done bool) {
	if len(p.Args) == 0 {
		return 0, false
	}
	switch p.Args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(p.Stdout, usage)
		return 0, true
	case "--version", "version":
		fmt.Fprintf(p.Stdout, "%s (ccmem) %s\n", name, Version())
		return 0, true
	}
	fmt.Fprintf(p.Stderr, "%s: unexpected argument %q\nhint: this is a Claude Code hook; it reads the hook JSON on stdin and takes no arguments\n", name, p.Args[0])
	return 1, true
}

// WriteLine writes a problem line, if there is one.
func WriteLine(w io.Writer, line string) {
	if line != "" {
		fmt.Fprintln(w, line)
	}
}

// SystemMessage shows the user a hook's problem line, naming ccmem so they
// know which tool it comes from.
func SystemMessage(line string) string {
	if line == "" {
		return ""
	}
	return "ccmem " + line
}

// EmitContext prints {"hookSpecificOutput":{"hookEventName":event,
// "additionalContext":text}}.
func EmitContext(p Process, name, event, text string) int {
	return Emit(p, name, claudecode.Context(event, text))
}

// Emit prints a hook's output, one JSON object.
func Emit(p Process, name string, out claudecode.Output) int {
	data, err := out.Encode()
	if err != nil {
		WriteLine(p.Stderr, name+": encoding output: "+err.Error())
		return 1
	}
	if _, err := p.Stdout.Write(data); err != nil {
		WriteLine(p.Stderr, name+": writing output: "+err.Error())
		return 1
	}
	return 0
}

// CCMemCommand is how the model can run ccmem (claudecode.CommandFor this
// hook's executable).
func CCMemCommand() string {
	exe, _ := os.Executable()
	return claudecode.CommandFor(exe)
}

// CCMemBinary is the path of the ccmem command installed beside this hook.
func CCMemBinary() string {
	exe, _ := os.Executable()
	return claudecode.CCMemBeside(exe)
}

// registeredIn tells whether the settings file at path registers ccmem's
// hooks; a missing or unreadable one registers none.
func registeredIn(path string) bool {
	data, err := store.ReadSmallFile(path, 16<<20)
	return err == nil && claudecode.Registered(data)
}
