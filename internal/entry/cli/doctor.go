package cli

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/service/doctor"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdDoctor = &command.Command{
	Name: "doctor", Args: "[--settings FILE] [--prefix DIR] [--fix] [--json]",
	Summary: "check the install: binaries, registrations, store permissions, config, hooks",
	Help: `Checks that ccmem's binaries are present and executable, that settings.json
registers each hook exactly once and at the installed binary (on the
plugin's route: that the plugin registers the hooks and the MCP server,
and settings.json does not register them again), that the store
is private (folders 0700, files 0600), that the config files parse, and runs
each hook once on a harmless sample, timed. It exits 1 with the list of
problems when something is wrong. --fix makes store files and folders
private; anything else it names a command for.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		var o doctor.Options
		fs.StringVar(&o.Settings, "settings", "", "the settings.json `file` to check (default: ~/.claude/settings.json)")
		fs.StringVar(&o.Prefix, "prefix", "", "where ccmem was installed: `DIR`/bin, DIR/lib/ccmem (default: where this ccmem runs from, else ~/.local)")
		fs.BoolVar(&o.Fix, "fix", false, "make the store's files 0600 and folders 0700")
		asJSON := fs.Bool("json", false, "print the checks as JSON")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			o.Env = c.Env
			o.Path, o.Shell = c.P.Getenv("PATH"), c.P.Getenv("SHELL")
			o.Cwd, _ = os.Getwd()
			return runDoctor(c, o, *asJSON)
		}
	},
}

func runDoctor(c *command.Ctx, o doctor.Options, asJSON bool) error {
	checks := doctor.Run(o)
	failed := 0
	for _, ch := range checks {
		if !ch.OK {
			failed++
		}
	}
	if asJSON {
		if err := c.PrintJSON(struct {
			OK     bool           `json:"ok"`
			Checks []doctor.Check `json:"checks"`
		}{failed == 0, checks}); err != nil {
			return err
		}
	} else {
		width := 0
		for _, ch := range checks {
			width = max(width, len(ch.What))
		}
		for _, ch := range checks {
			mark := "ok  "
			if !ch.OK {
				mark = c.Red("FAIL")
			}
			fmt.Fprintln(c.Stdout, strings.TrimRight(fmt.Sprintf("%s  %-*s  %s", mark, width, ch.What, ch.Detail), " "))
		}
	}
	if failed > 0 {
		return fmt.Errorf("doctor found %s", textfmt.Plural(failed, "problem", "problems"))
	}
	if !asJSON {
		fmt.Fprintln(c.Stdout, "no problems found")
	}
	return nil
}
