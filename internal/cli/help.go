package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ccmem/ccmem/internal/command"
	"github.com/ccmem/ccmem/internal/version"
)

var cmdHelp = &command.Command{
	Name: "help", Args: "[command [sub-command]]", Summary: "show help for ccmem or one command", NoEnv: true,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		return func(c *command.Ctx, args []string) error {
			if len(args) == 0 {
				printUsage(c.Stdout)
				return nil
			}
			cmd := commands.Find(args)
			if cmd == nil {
				return command.Usagef("run `ccmem help` for the list of commands", "unknown command %q", strings.Join(args, " "))
			}
			var cfs *flag.FlagSet
			if cmd.Setup != nil {
				cfs = command.NewFlagSet(args)
				cmd.Setup(cfs)
			}
			command.PrintHelp(c.Stdout, args, cmd, cfs)
			return nil
		}
	},
}

var cmdVersion = &command.Command{
	Name: "version", Summary: "print ccmem's version", NoEnv: true,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			fmt.Fprintf(c.Stdout, "ccmem %s\n", version.String())
			return nil
		}
	},
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, "ccmem — persistent, curated memory for Claude Code\n\nusage: ccmem <command> [flags]\n\ncommands:\n")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.Name))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprint(w, "\nRun `ccmem help <command>` for a command's flags.\n")
	fmt.Fprint(w, "Environment: CCMEM_HOME (store, default ~/.claude/ccmem), CLAUDE_CONFIG_DIR\n(default ~/.claude), CCMEM_DISABLE=1 (hooks do nothing).\n")
	fmt.Fprint(w, "Exit status: 0 success, 1 failure, 2 usage error.\n")
}
