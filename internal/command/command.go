// Package command is the command-tree machinery of the ccmem command:
// commands and sub-commands, each with its own flag set; flags anywhere
// among the arguments; help from the same definitions; errors as one
// "ccmem: …" line with an optional hint; and exit codes as a contract
// (0 success, 1 failure, 2 usage error). internal/cli holds the commands.
package command

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

// Command is one command or sub-command.
type Command struct {
	Name    string
	Args    string // synopsis after the name
	Summary string
	Help    string // longer text for "ccmem help NAME"
	// Subs are the sub-commands of a group such as learn or record.
	Subs []*Command
	// Setup defines the command's flags on fs and returns what runs it
	// with the flags parsed and the other arguments.
	Setup func(fs *flag.FlagSet) func(c *Ctx, args []string) error
	// NoEnv is set by commands that need no store (help, version).
	NoEnv bool
	// Rewrite, when set, rewrites the arguments before flags are parsed.
	Rewrite func(args []string) []string
}

// Ctx is one run of a command.
type Ctx struct {
	context.Context
	P      hookio.Process
	Env    store.Env
	Stdout io.Writer
	Stderr io.Writer
}

// Table is the command table, in the order help lists it.
type Table []*Command

// Find returns the command at path (["learn", "review"]), or nil.
func (t Table) Find(path []string) *Command {
	list := []*Command(t)
	var cmd *Command
	for _, name := range path {
		cmd = nil
		for _, c := range list {
			if c.Name == name {
				cmd = c
				break
			}
		}
		if cmd == nil {
			return nil
		}
		list = cmd.Subs
	}
	return cmd
}

// UsageError is a mistake in how the command was called; it exits 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// errorWithHint is an error with a line of advice for people, printed as
// "hint: …" after the error (age's convention).
type errorWithHint struct {
	err  error
	hint string
}

func (e errorWithHint) Error() string { return e.err.Error() }
func (e errorWithHint) Unwrap() error { return e.err }

// WithHint adds a line of advice to err.
func WithHint(err error, hint string) error { return errorWithHint{err, hint} }

// Usagef is a usage error with a hint.
func Usagef(hint, format string, args ...any) error {
	err := error(UsageError{fmt.Errorf(format, args...)})
	if hint != "" {
		err = WithHint(err, hint)
	}
	return err
}

// Run runs the command p's arguments name from the table and returns the
// exit status; usage prints the overview (no arguments, `help`).
func (t Table) Run(p hookio.Process, usage func(io.Writer)) int {
	return hookio.Guard("ccmem", p, true, func() int {
		c := &Ctx{P: p, Stdout: p.Stdout, Stderr: p.Stderr}
		var stop context.CancelFunc
		c.Context, stop = signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		if len(p.Args) == 0 {
			usage(c.Stderr)
			return 2
		}
		return c.fail(t.dispatch(c, p.Args))
	})
}

// dispatch finds the command the arguments name and runs it.
func (t Table) dispatch(c *Ctx, args []string) error {
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	cmd := t.Find([]string{name})
	if cmd == nil {
		return Usagef("run `ccmem help` for the list of commands", "unknown command %q", name)
	}
	path := []string{cmd.Name}
	args = args[1:]
	for len(cmd.Subs) > 0 {
		if len(args) == 0 {
			return Usagef("run `ccmem help "+strings.Join(path, " ")+"`", "%s needs a sub-command: %s", strings.Join(path, " "), subNames(cmd))
		}
		switch args[0] {
		case "-h", "-help", "--help", "help":
			PrintHelp(c.Stdout, path, cmd, nil)
			return nil
		}
		sub := t.Find(append(path, args[0]))
		if sub == nil {
			return Usagef("run `ccmem help "+strings.Join(path, " ")+"`", "unknown %s sub-command %q", strings.Join(path, " "), args[0])
		}
		path, cmd, args = append(path, sub.Name), sub, args[1:]
	}
	if !cmd.NoEnv {
		env, err := store.EnvFrom(c.P.Getenv)
		if err != nil {
			return WithHint(err, "set HOME, or CCMEM_HOME and CLAUDE_CONFIG_DIR")
		}
		c.Env = env
	}
	if cmd.Rewrite != nil {
		args = cmd.Rewrite(args)
	}
	fs := NewFlagSet(path)
	run := cmd.Setup(fs)
	pos, err := c.parse(fs, path, cmd, args)
	if err != nil {
		return err
	}
	return run(c, pos)
}

func subNames(cmd *Command) string {
	names := make([]string, len(cmd.Subs))
	for i, s := range cmd.Subs {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// fail prints err as one "ccmem: …" line (plus a hint line) and returns the
// exit status for it.
func (c *Ctx) fail(err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(c.Stderr, "ccmem: %s\n", str.OneLine(err.Error()))
	var h errorWithHint
	if errors.As(err, &h) && h.hint != "" {
		fmt.Fprintf(c.Stderr, "hint: %s\n", str.OneLine(h.hint))
	}
	if errors.As(err, new(UsageError)) {
		return 2
	}
	return 1
}

// NewFlagSet makes a flag set for a command that reports its own errors.
func NewFlagSet(path []string) *flag.FlagSet {
	fs := flag.NewFlagSet("ccmem "+strings.Join(path, " "), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses flags anywhere among the arguments and returns the others.
// -h/--help prints the command's help and returns flag.ErrHelp.
func (c *Ctx) parse(fs *flag.FlagSet, path []string, cmd *Command, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				PrintHelp(c.Stdout, path, cmd, fs)
				return nil, flag.ErrHelp
			}
			return nil, Usagef("run `"+fs.Name()+" --help` for its usage", "%s", flagError(err))
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

// NoArgs refuses arguments left over by a command that takes none.
func NoArgs(fs *flag.FlagSet, pos []string) error {
	if len(pos) > 0 {
		return Usagef("run `"+fs.Name()+" --help` for its usage", "unexpected argument %q", pos[0])
	}
	return nil
}

// PrintJSON writes v as indented JSON.
func (c *Ctx) PrintJSON(v any) error {
	enc := json.NewEncoder(c.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// PrintHelp prints a command's usage, its longer help, its sub-commands and
// its flags (fs may be nil for a group).
func PrintHelp(w io.Writer, path []string, cmd *Command, fs *flag.FlagSet) {
	synopsis := "ccmem " + strings.Join(path, " ")
	if cmd.Args != "" {
		synopsis += " " + cmd.Args
	}
	fmt.Fprintf(w, "usage: %s\n\n%s\n", synopsis, cmd.Summary)
	if cmd.Help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(cmd.Help))
	}
	if len(cmd.Subs) > 0 {
		fmt.Fprint(w, "\nsub-commands:\n")
		width := 0
		for _, s := range cmd.Subs {
			width = max(width, len(s.Name))
		}
		for _, s := range cmd.Subs {
			fmt.Fprintf(w, "  %-*s  %s\n", width, s.Name, s.Summary)
		}
		fmt.Fprintf(w, "\nRun `ccmem help %s <sub-command>` for its flags.\n", strings.Join(path, " "))
	}
	if fs == nil {
		return
	}
	var flags []string
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool {
			name += " " + strings.ToUpper(arg)
		}
		flags = append(flags, fmt.Sprintf("  %-18s %s", name, usage))
	})
	if len(flags) > 0 {
		fmt.Fprintf(w, "\nflags:\n%s\n", strings.Join(flags, "\n"))
	}
}
