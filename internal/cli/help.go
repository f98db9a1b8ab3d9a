package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ccmem/ccmem/internal/version"
)

var cmdHelp = &command{
	name: "help", args: "[command [sub-command]]", summary: "show help for ccmem or one command", noEnv: true,
	setup: func(fs *flag.FlagSet) func(c *ctx, args []string) error {
		return func(c *ctx, args []string) error {
			if len(args) == 0 {
				printUsage(c.out)
				return nil
			}
			cmd := find(args)
			if cmd == nil {
				return usagef("run `ccmem help` for the list of commands", "unknown command %q", strings.Join(args, " "))
			}
			var cfs *flag.FlagSet
			if cmd.setup != nil {
				cfs = newFlagSet(args)
				cmd.setup(cfs)
			}
			printHelp(c.out, args, cmd, cfs)
			return nil
		}
	},
}

var cmdVersion = &command{
	name: "version", summary: "print ccmem's version", noEnv: true,
	setup: func(fs *flag.FlagSet) func(c *ctx, args []string) error {
		return func(c *ctx, args []string) error {
			if err := noArgs(fs, args); err != nil {
				return err
			}
			fmt.Fprintf(c.out, "ccmem %s\n", version.String())
			return nil
		}
	},
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, "ccmem — persistent, curated memory for Claude Code\n\nusage: ccmem <command> [flags]\n\ncommands:\n")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun `ccmem help <command>` for a command's flags.\n")
	fmt.Fprint(w, "Environment: CCMEM_HOME (store, default ~/.claude/ccmem), CLAUDE_CONFIG_DIR\n(default ~/.claude), CCMEM_DISABLE=1 (hooks do nothing).\n")
	fmt.Fprint(w, "Exit status: 0 success, 1 failure, 2 usage error.\n")
}

// printHelp prints a command's usage, its longer help, its sub-commands and
// its flags (fs may be nil for a group).
func printHelp(w io.Writer, path []string, cmd *command, fs *flag.FlagSet) {
	synopsis := "ccmem " + strings.Join(path, " ")
	if cmd.args != "" {
		synopsis += " " + cmd.args
	}
	fmt.Fprintf(w, "usage: %s\n\n%s\n", synopsis, cmd.summary)
	if cmd.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(cmd.help))
	}
	if len(cmd.subs) > 0 {
		fmt.Fprint(w, "\nsub-commands:\n")
		width := 0
		for _, s := range cmd.subs {
			width = max(width, len(s.name))
		}
		for _, s := range cmd.subs {
			fmt.Fprintf(w, "  %-*s  %s\n", width, s.name, s.summary)
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
