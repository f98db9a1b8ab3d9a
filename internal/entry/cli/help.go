package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdHelp = &command.Command{
	Name: "help", Args: "[command [sub-command]]", Summary: "show help for ccmem or one command", NoEnv: true,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		return func(c *command.Ctx, args []string) error {
			if len(args) == 0 {
				printUsage(c.Stdout, c.Width())
				return nil
			}
			cmd := commands.Find(args)
			if cmd == nil {
				return commands.Unknown(args)
			}
			var cfs *flag.FlagSet
			if cmd.Setup != nil {
				cfs = command.NewFlagSet(args)
				cmd.Setup(cfs)
			}
			c.PrintHelp(args, cmd, cfs)
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
			fmt.Fprintf(c.Stdout, "ccmem %s\n", hookio.Version())
			return nil
		}
	},
}

func printUsage(w io.Writer, width int) {
	var rows [][2]string
	for _, c := range commands {
		rows = append(rows, [2]string{c.Name, c.Summary})
	}
	fmt.Fprintf(w, "ccmem — persistent, curated memory for Claude Code\n\nusage: ccmem <command> [flags]\n\ncommands:\n%s\n", textfmt.Columns(rows, width, 16))
	fmt.Fprintln(w, textfmt.Wrap("Run `ccmem help <command>` for a command's usage and flags.\n\n"+
		"environment:\n"+
		"- CCMEM_HOME: the store (default ~/.claude/ccmem)\n"+
		"- CLAUDE_CONFIG_DIR: Claude Code's folder (default ~/.claude)\n"+
		"- CCMEM_DISABLE=1: the hooks do nothing\n"+
		"- NO_COLOR: no colour in the output\n\n"+
		"exit status: 0 success, 1 failure, 2 usage error.", width, 0))
}
