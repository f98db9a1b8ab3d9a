// Package cli is the ccmem command: the part of ccmem people (and slash
// commands) run. Each command parses its own flags, calls the domain
// packages (pkg/...) or internal/install, and prints aligned text or, with
// --json, JSON.
//
// Exit codes: 0 success, 1 failure, 2 usage error.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/ccmem/ccmem/internal/hookio"
	"github.com/ccmem/ccmem/internal/str"
	"github.com/ccmem/ccmem/pkg/store"
)

// command is one ccmem command or sub-command.
type command struct {
	name    string
	args    string // synopsis after the name
	summary string
	help    string // longer text for "ccmem help NAME"
	// subs are the sub-commands of a group such as learn or record.
	subs []*command
	// setup defines the command's flags on fs and returns what runs it
	// with the flags parsed and the other arguments.
	setup func(fs *flag.FlagSet) func(c *ctx, args []string) error
	// noEnv is set by commands that need no store (help, version).
	noEnv bool
	// rewrite, when set, rewrites the arguments before flags are parsed.
	rewrite func(args []string) []string
}

// commands is the command table, in the order `ccmem help` lists them.
// It is filled in init to break the initialization cycle through help.
var commands []*command

func init() {
	commands = []*command{
		cmdShow, cmdPaths, cmdStatus, cmdEpisodes, cmdGC,
		cmdLearn, cmdRemember, cmdRecord, cmdConsolidate, cmdBriefing,
		cmdEnable, cmdDisable, cmdInstall, cmdUninstall, cmdDoctor,
		cmdHelp, cmdVersion,
	}
}

// find returns the command at path (["learn", "review"]), or nil.
func find(path []string) *command {
	list := commands
	var cmd *command
	for _, name := range path {
		cmd = nil
		for _, c := range list {
			if c.name == name {
				cmd = c
				break
			}
		}
		if cmd == nil {
			return nil
		}
		list = cmd.subs
	}
	return cmd
}

// ctx is one run of the command.
type ctx struct {
	context.Context
	p   hookio.Process
	env store.Env
	out io.Writer
	err io.Writer
}

// usageError is a mistake in how ccmem was called; it exits 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// errorWithHint is an error with a line of advice for people, printed as
// "hint: …" after the error (age's convention).
type errorWithHint struct {
	err  error
	hint string
}

func (e errorWithHint) Error() string { return e.err.Error() }
func (e errorWithHint) Unwrap() error { return e.err }

func withHint(err error, hint string) error { return errorWithHint{err, hint} }

// usagef is a usage error with a hint.
func usagef(hint, format string, args ...any) error {
	err := error(usageError{fmt.Errorf(format, args...)})
	if hint != "" {
		err = withHint(err, hint)
	}
	return err
}

// Main runs ccmem with p's arguments and returns the exit status.
func Main(p hookio.Process) int {
	return hookio.Guard("ccmem", p, true, func() int {
		c := &ctx{p: p, out: p.Stdout, err: p.Stderr}
		var stop context.CancelFunc
		c.Context, stop = signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		if len(p.Args) == 0 {
			printUsage(c.err)
			return 2
		}
		return c.fail(c.dispatch(p.Args))
	})
}

// dispatch finds the command the arguments name and runs it.
func (c *ctx) dispatch(args []string) error {
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	cmd := find([]string{name})
	if cmd == nil {
		return usagef("run `ccmem help` for the list of commands", "unknown command %q", name)
	}
	path := []string{cmd.name}
	args = args[1:]
	for len(cmd.subs) > 0 {
		if len(args) == 0 {
			return usagef("run `ccmem help "+strings.Join(path, " ")+"`", "%s needs a sub-command: %s", strings.Join(path, " "), subNames(cmd))
		}
		switch args[0] {
		case "-h", "-help", "--help", "help":
			printHelp(c.out, path, cmd, nil)
			return nil
		}
		sub := find(append(path, args[0]))
		if sub == nil {
			return usagef("run `ccmem help "+strings.Join(path, " ")+"`", "unknown %s sub-command %q", strings.Join(path, " "), args[0])
		}
		path, cmd, args = append(path, sub.name), sub, args[1:]
	}
	if !cmd.noEnv {
		env, err := store.EnvFrom(c.p.Getenv)
		if err != nil {
			return withHint(err, "set HOME, or CCMEM_HOME and CLAUDE_CONFIG_DIR")
		}
		c.env = env
	}
	if cmd.rewrite != nil {
		args = cmd.rewrite(args)
	}
	fs := newFlagSet(path)
	run := cmd.setup(fs)
	pos, err := c.parse(fs, path, cmd, args)
	if err != nil {
		return err
	}
	return run(c, pos)
}

func subNames(cmd *command) string {
	names := make([]string, len(cmd.subs))
	for i, s := range cmd.subs {
		names[i] = s.name
	}
	return strings.Join(names, ", ")
}

// fail prints err as one "ccmem: …" line (plus a hint line) and returns the
// exit status for it.
func (c *ctx) fail(err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(c.err, "ccmem: %s\n", str.OneLine(err.Error()))
	var h errorWithHint
	if errors.As(err, &h) && h.hint != "" {
		fmt.Fprintf(c.err, "hint: %s\n", str.OneLine(h.hint))
	}
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// newFlagSet makes a flag set for a command that reports its own errors.
func newFlagSet(path []string) *flag.FlagSet {
	fs := flag.NewFlagSet("ccmem "+strings.Join(path, " "), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses flags anywhere among the arguments and returns the others.
// -h/--help prints the command's help and returns flag.ErrHelp.
func (c *ctx) parse(fs *flag.FlagSet, path []string, cmd *command, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printHelp(c.out, path, cmd, fs)
				return nil, flag.ErrHelp
			}
			return nil, usagef("run `"+fs.Name()+" --help` for its usage", "%s", flagError(err))
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagError rewords the flag package's errors for people.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return "unknown flag --" + strings.TrimLeft(name, "-")
	}
	return msg
}

// noArgs refuses arguments left over by a command that takes none.
func noArgs(fs *flag.FlagSet, pos []string) error {
	if len(pos) > 0 {
		return usagef("run `"+fs.Name()+" --help` for its usage", "unexpected argument %q", pos[0])
	}
	return nil
}

// printJSON writes v as indented JSON.
func (c *ctx) printJSON(v any) error {
	enc := json.NewEncoder(c.out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// startDir is a --cwd value, or the current directory.
func startDir(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	return os.Getwd()
}

// projectHere resolves the project of --cwd or the current directory.
func projectHere(c *ctx, cwd string) (store.Project, error) {
	dir, err := startDir(cwd)
	if err != nil {
		return store.Project{}, err
	}
	return store.ResolveProject(c.env, dir)
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// plural is "1 silo" or "2 silos".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
