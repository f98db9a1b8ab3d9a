// Package command is the command-tree machinery of the ccmem command:
// commands and sub-commands, each with its own flag set; flags anywhere
// among the arguments; help from the same definitions; errors as one
// "ccmem: …" line with an optional hint; and exit codes as a contract
// (0 success, 1 failure, 2 usage error). internal/entry/cli holds the commands.
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

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Command is one command or sub-command.
type Command struct {
	Name    string
	Args    string // synopsis after the name
	Summary string
	Help    string // longer text for "ccmem help NAME"
	// Subs are the sub-commands of a group such as learn or record. A
	// group with a Setup of its own runs it when no sub-command is named
	// (ccmem episodes, ccmem episodes show ID).
	Subs []*Command
	// Setup defines the command's flags on fs and returns what runs it
	// with the flags parsed and the other arguments.
	Setup func(fs *flag.FlagSet) func(c *Ctx, args []string) error
	// NoEnv is set by commands that need no store (help, version).
	NoEnv bool
	// Rewrite, when set, rewrites the arguments before flags are parsed.
	Rewrite func(args []string) []string
	// Renamed maps the old names of renamed flags to their new ones, so
	// the old name gets a pointed error.
	Renamed map[string]string
}

// Ctx is one run of a command.
type Ctx struct {
	context.Context
	P      hookio.Process
	Env    store.Env
	Stdout io.Writer
	Stderr io.Writer
	// jsonErrors is set when the command that failed was asked for
	// --json: its error is printed on stdout as JSON too.
	jsonErrors bool
	// printedJSON is set once the command printed its JSON document: an
	// error after it is said on stderr only (one document on stdout).
	printedJSON bool
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
func (t Table) Run(p hookio.Process, usage func(w io.Writer, width int)) int {
	return hookio.Contain("ccmem", p, true, func() int {
		c := &Ctx{P: p, Stdout: p.Stdout, Stderr: p.Stderr}
		var stop context.CancelFunc
		c.Context, stop = signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		if len(p.Args) == 0 {
			usage(c.Stderr, 80)
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
		return t.Unknown([]string{name})
	}
	path := []string{cmd.Name}
	args = args[1:]
	for len(cmd.Subs) > 0 {
		if cmd.Setup != nil && (len(args) == 0 || t.Find(append(path, args[0])) == nil && !isHelp(args[0])) {
			break // the group itself runs
		}
		if len(args) == 0 {
			return Usagef("run `ccmem help "+strings.Join(path, " ")+"`", "%s needs a sub-command: %s", strings.Join(path, " "), subNames(cmd))
		}
		switch args[0] {
		case "-h", "-help", "--help", "help":
			var fs *flag.FlagSet
			if cmd.Setup != nil {
				fs = NewFlagSet(path)
				cmd.Setup(fs)
			}
			c.PrintHelp(path, cmd, fs)
			return nil
		}
		sub := t.Find(append(path, args[0]))
		if sub == nil {
			return t.Unknown(append(path, args[0]))
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
	err = run(c, pos)
	if f := fs.Lookup("json"); err != nil && f != nil && f.Value.String() == "true" {
		c.jsonErrors = true
	}
	return err
}

func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// Unknown is the usage error for a command path that names no command:
// the first unknown word, with the nearest known one as a hint.
func (t Table) Unknown(path []string) error {
	list, known := []*Command(t), []string(nil)
	for i, name := range path {
		if i > 0 && len(list) == 0 {
			break
		}
		var next *Command
		for _, c := range list {
			if c.Name == name {
				next = c
			}
		}
		if next == nil {
			if i == 0 {
				return Usagef(didYouMean(name, names(list), "ccmem ", "run `ccmem help` for the list of commands"), "unknown command %q", name)
			}
			p := strings.Join(known, " ")
			return Usagef(didYouMean(name, names(list), "ccmem "+p+" ", "run `ccmem help "+p+"` for its sub-commands"), "unknown %s sub-command %q", p, name)
		}
		known, list = append(known, name), next.Subs
	}
	p := strings.Join(known, " ")
	return Usagef("run `ccmem help "+p+"`", "%s has no sub-commands", p)
}

// names are the commands' names.
func names(cmds []*Command) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.Name
	}
	return out
}

// didYouMean is a hint naming the candidate nearest to word ("did you
// mean `ccmem show`?"), then the fallback advice.
func didYouMean(word string, candidates []string, prefix, fallback string) string {
	if n := textfmt.Nearest(word, candidates); n != "" {
		return "did you mean `" + prefix + n + "`? Or " + fallback
	}
	return fallback
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
	fmt.Fprintf(c.Stderr, "ccmem: %s\n", textfmt.OneLine(err.Error()))
	var h errorWithHint
	if errors.As(err, &h) && h.hint != "" {
		fmt.Fprintf(c.Stderr, "hint: %s\n", textfmt.OneLine(h.hint))
	}
	usage := errors.As(err, new(UsageError))
	if c.jsonErrors && !c.printedJSON {
		// A script that asked for JSON gets the error as JSON too, on
		// stdout, with the rule's code when one refused it (unless the
		// command printed its document already: one document, always).
		out := map[string]any{"ok": false, "code": "ERROR", "error": textfmt.OneLine(err.Error())}
		if h.hint != "" {
			out["hint"] = textfmt.OneLine(h.hint)
		}
		var coded interface{ Code() string }
		switch {
		case errors.As(err, &coded) && coded.Code() != "":
			out["code"] = coded.Code()
		case usage:
			out["code"] = "USAGE"
		}
		// More for a script: the candidates of a refused create, …
		var more interface{ JSONFields() map[string]any }
		if errors.As(err, &more) {
			for k, v := range more.JSONFields() {
				if _, taken := out[k]; !taken {
					out[k] = v
				}
			}
		}
		c.PrintJSON(out)
	}
	if usage {
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
				c.PrintHelp(path, cmd, fs)
				return nil, flag.ErrHelp
			}
			return nil, c.flagError(fs, cmd, err)
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

// flagError rewords the flag package's errors for people, with a hint:
// the flag's new name when it was renamed, else the nearest flag.
func (c *Ctx) flagError(fs *flag.FlagSet, cmd *Command, err error) error {
	help := "run `" + fs.Name() + " --help` for its usage"
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		if to, ok := cmd.Renamed[name]; ok {
			return Usagef("use --"+to+"; "+help, "--%s is now --%s", name, to)
		}
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		return Usagef(didYouMean(name, known, "--", help), "unknown flag --%s", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return Usagef(help, "--%s needs a value", strings.TrimLeft(name, "-"))
	}
	// invalid value "x" for flag -limit: parse error
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if i := strings.Index(rest, " for flag -"); i > 0 {
			val, tail := rest[:i], rest[i+len(" for flag -"):]
			name, why, _ := strings.Cut(tail, ": ")
			if why == "parse error" {
				why = "not a number"
			}
			return Usagef(help, "invalid --%s %s: %s", strings.TrimLeft(name, "-"), val, why)
		}
	}
	return Usagef(help, "%s", msg)
}

// CwdFlag defines --cwd, the one flag every command that works on a
// project takes to choose its directory.
func CwdFlag(fs *flag.FlagSet) *string {
	return fs.String("cwd", "", "work on the project `DIR` belongs to (default: the current directory)")
}

// Exclusive refuses flags that cannot be used together, when more than
// one of them was given.
func Exclusive(fs *flag.FlagSet, names ...string) error {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			if f.Name == n {
				set = append(set, "--"+n)
			}
		}
	})
	if len(set) > 1 {
		return Usagef("run `"+fs.Name()+" --help` for its usage", "%s cannot be used together", strings.Join(set, " and "))
	}
	return nil
}

// Set tells whether the flag name was given.
func Set(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// OneOf refuses a flag value that is not one of the allowed ones.
func OneOf(fs *flag.FlagSet, name, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	hint := "it takes " + strings.Join(allowed, ", ")
	if n := textfmt.Nearest(value, allowed); n != "" {
		hint = "did you mean " + n + "? " + hint
	}
	return Usagef(hint, "invalid --%s %q", name, value)
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
	c.printedJSON = true
	enc := json.NewEncoder(c.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// PrintHelp prints a command's usage, its longer help, its sub-commands and
// its flags (fs may be nil for a group), wrapped to the output's width.
func (c *Ctx) PrintHelp(path []string, cmd *Command, fs *flag.FlagSet) {
	fmt.Fprint(c.Stdout, HelpText(path, cmd, fs, c.Width()))
}

// HelpText is PrintHelp's text for a terminal width columns wide.
func HelpText(path []string, cmd *Command, fs *flag.FlagSet, width int) string {
	var b strings.Builder
	synopsis := "usage: ccmem " + strings.Join(path, " ")
	if cmd.Args != "" {
		synopsis += " " + cmd.Args
	}
	b.WriteString(textfmt.Hanging(synopsis, width, strings.Repeat(" ", len("usage: ccmem ")+len(strings.Join(path, " "))+1)) + "\n\n")
	b.WriteString(textfmt.Wrap(cmd.Summary, width, 0) + "\n")
	if cmd.Help != "" {
		b.WriteString("\n" + textfmt.Wrap(strings.TrimSpace(cmd.Help), width, 0) + "\n")
	}
	if len(cmd.Subs) > 0 {
		var rows [][2]string
		for _, s := range cmd.Subs {
			rows = append(rows, [2]string{s.Name, s.Summary})
		}
		b.WriteString("\nsub-commands:\n" + textfmt.Columns(rows, width, 24))
		b.WriteString("\n" + textfmt.Wrap("Run `ccmem help "+strings.Join(path, " ")+" <sub-command>` for its usage and flags.", width, 0) + "\n")
	}
	if fs != nil {
		if flags := FlagRows(fs); len(flags) > 0 {
			b.WriteString("\nflags:\n" + textfmt.Columns(flags, width, 24))
		}
	}
	return b.String()
}

// FlagRows are a flag set's flags for a help table: "--name ARG" and its
// usage.
func FlagRows(fs *flag.FlagSet) [][2]string {
	var rows [][2]string
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool {
			name += " " + strings.ToUpper(arg)
		}
		rows = append(rows, [2]string{name, usage})
	})
	return rows
}
