// Package cli is the ccmem command: the part of ccmem people (and slash
// commands) run. Each subcommand parses its flags, calls pkg/memory or
// pkg/install, and prints aligned text or, with --json, JSON.
//
// Exit codes: 0 success, 1 failure, 2 usage error.
package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ccmem/ccmem/pkg/hookio"
	"github.com/ccmem/ccmem/pkg/memory"
)

// command is one ccmem subcommand.
type command struct {
	name    string
	args    string // synopsis after the name
	summary string
	help    string // longer text for "ccmem help NAME"
	run     func(c *ctx, args []string) error
}

var commands []*command

func register(c *command) { commands = append(commands, c) }

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// ctx is one run of the command.
type ctx struct {
	p   hookio.Process
	env memory.Env
	out io.Writer
	err io.Writer
}

// usageError is a mistake in how ccmem was called; it exits 2.
type usageError struct{ msg, hint string }

func (e usageError) Error() string { return e.msg }

func usagef(hint, format string, args ...any) error {
	return usageError{msg: fmt.Sprintf(format, args...), hint: hint}
}

// hinted is an error with a hint line for people.
type hinted struct {
	err  error
	hint string
}

func (e hinted) Error() string { return e.err.Error() }
func (e hinted) Unwrap() error { return e.err }

func withHint(err error, hint string) error { return hinted{err, hint} }

// Main runs ccmem with p's arguments and returns the exit status.
func Main(p hookio.Process) int {
	c := &ctx{p: p, out: p.Stdout, err: p.Stderr}
	return hookio.Guard("ccmem", p.Stderr, true, func() int {
		args := p.Args
		if len(args) == 0 {
			printUsage(c.err)
			return 2
		}
		name := args[0]
		switch name {
		case "-h", "-help", "--help":
			name = "help"
		case "--version", "-version":
			name = "version"
		}
		cmd := lookup(name)
		if cmd == nil {
			return c.fail(usagef("run `ccmem help` for the list of commands", "unknown command %q", name))
		}
		env, err := memory.EnvFrom(p.Getenv)
		if err != nil && cmd.name != "help" && cmd.name != "version" {
			return c.fail(withHint(err, "set HOME, or CCMEM_HOME and CLAUDE_CONFIG_DIR"))
		}
		c.env = env
		return c.fail(cmd.run(c, args[1:]))
	})
}

// fail prints err as one "ccmem: …" line (plus a hint line) and returns the
// exit status for it.
func (c *ctx) fail(err error) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	msg := strings.TrimSpace(err.Error())
	hint := ""
	if i := strings.Index(msg, "\nhint: "); i >= 0 {
		msg, hint = msg[:i], msg[i+len("\nhint: "):]
	}
	var ue usageError
	var he hinted
	switch {
	case errors.As(err, &ue):
		hint = ue.hint
	case errors.As(err, &he):
		hint = he.hint
	}
	fmt.Fprintf(c.err, "ccmem: %s\n", oneLine(msg))
	if hint != "" {
		fmt.Fprintf(c.err, "hint: %s\n", oneLine(hint))
	}
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// flags makes a flag set for a subcommand that reports its own errors.
func (c *ctx) flags(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet("ccmem "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses flags anywhere among the arguments and returns the others.
// -h/--help prints the command's help and returns flag.ErrHelp.
func (c *ctx) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printHelp(c.out, lookup(strings.TrimPrefix(fs.Name(), "ccmem ")), fs)
				return nil, flag.ErrHelp
			}
			return nil, usagef("run `"+fs.Name()+" --help` for its usage", "%s", strings.TrimPrefix(err.Error(), "flag provided but not defined: "))
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

// parseNoArgs parses flags for a command that takes no other arguments.
func (c *ctx) parseNoArgs(fs *flag.FlagSet, args []string) error {
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	return noArgs(fs, pos)
}

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

func printUsage(w io.Writer) {
	fmt.Fprint(w, "ccmem — persistent, curated memory for Claude Code\n\nusage: ccmem <command> [flags]\n\ncommands:\n")
	list := append([]*command(nil), commands...)
	sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	width := 0
	for _, c := range list {
		width = max(width, len(c.name))
	}
	for _, c := range list {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun `ccmem help <command>` for a command's flags.\n")
	fmt.Fprint(w, "Environment: CCMEM_HOME (store, default ~/.claude/ccmem), CLAUDE_CONFIG_DIR\n(default ~/.claude), CCMEM_DISABLE=1 (hooks do nothing).\n")
	fmt.Fprint(w, "Exit status: 0 success, 1 failure, 2 usage error.\n")
}

func printHelp(w io.Writer, cmd *command, fs *flag.FlagSet) {
	if cmd == nil {
		printUsage(w)
		return
	}
	fmt.Fprintf(w, "usage: ccmem %s %s\n\n%s\n", cmd.name, cmd.args, cmd.summary)
	if cmd.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(cmd.help))
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

func init() {
	register(&command{
		name: "help", args: "[command]", summary: "show help for ccmem or one command",
		run: func(c *ctx, args []string) error {
			if len(args) == 0 {
				printUsage(c.out)
				return nil
			}
			cmd := lookup(args[0])
			if cmd == nil {
				return usagef("run `ccmem help` for the list of commands", "unknown command %q", args[0])
			}
			return cmd.run(c, []string{"--help"})
		},
	})
	register(&command{
		name: "version", args: "", summary: "print ccmem's version",
		run: func(c *ctx, args []string) error {
			fs := c.flags("version")
			pos, err := c.parse(fs, args)
			if err != nil {
				return err
			}
			if err := noArgs(fs, pos); err != nil {
				return err
			}
			fmt.Fprintf(c.out, "ccmem %s\n", memory.Version)
			return nil
		},
	})
}
