package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/store"
)

var cmdConsolidate = &command{
	name: "consolidate", args: "[--cwd DIR] [--dry-run] [--json]",
	summary: "write the project's memory into CLAUDE.md between MEMORY:START/END",
	help: `Writes the section between <!-- MEMORY:START --> and <!-- MEMORY:END --> in
the repository's CLAUDE.md from the store: project facts, high-confidence
preferences, active decisions and constraints, and the last 5 sessions.
When the markers are absent only that section is added (and CLAUDE.md is
created when missing). Nothing outside the markers ever changes, and a
second run with the same memory changes nothing.`,
	setup: func(fs *flag.FlagSet) func(c *ctx, args []string) error {
		cwd := fs.String("cwd", "", "a `directory` of the project (default: the current one)")
		dryRun := fs.Bool("dry-run", false, "say whether CLAUDE.md would change, and print the section")
		asJSON := fs.Bool("json", false, "print the result as JSON")
		return func(c *ctx, args []string) error {
			if err := noArgs(fs, args); err != nil {
				return err
			}
			return runConsolidate(c, *cwd, *dryRun, *asJSON)
		}
	},
}

func runConsolidate(c *ctx, cwd string, dryRun, asJSON bool) error {
	p, err := projectHere(c, cwd)
	if err != nil {
		return err
	}
	res, err := notes.Consolidate(c, c.env, p, dryRun)
	if err != nil {
		return err
	}
	if asJSON {
		return c.printJSON(res)
	}
	if dryRun {
		fmt.Fprintln(c.out, notes.ConsolidateSection(c, c.env, p))
	}
	switch {
	case !res.Changed:
		fmt.Fprintf(c.out, "%s is up to date\n", c.env.Tilde(res.Path))
	case dryRun:
		fmt.Fprintf(c.out, "dry run: %s would change\n", c.env.Tilde(res.Path))
	case res.Created:
		fmt.Fprintf(c.out, "created %s with the memory section\n", c.env.Tilde(res.Path))
	default:
		fmt.Fprintf(c.out, "updated the memory section of %s\n", c.env.Tilde(res.Path))
	}
	return nil
}

var cmdBriefing = &command{
	name: "briefing", args: "[--cwd DIR] [--set FILE|-]",
	summary: "print or replace the project's briefing (two previous versions kept)",
	help: `Without --set, prints the project's briefing. --set replaces it with FILE
(or standard input), keeping the previous two versions as briefing.md.1
and briefing.md.2. Session start injects at most 80 lines of it.`,
	setup: func(fs *flag.FlagSet) func(c *ctx, args []string) error {
		cwd := fs.String("cwd", "", "a `directory` of the project (default: the current one)")
		set := fs.String("set", "", "replace the briefing with this `file` (- for standard input)")
		return func(c *ctx, args []string) error {
			if err := noArgs(fs, args); err != nil {
				return err
			}
			return runBriefing(c, *cwd, *set)
		}
	},
}

func runBriefing(c *ctx, cwd, set string) error {
	p, err := projectHere(c, cwd)
	if err != nil {
		return err
	}
	if set == "" {
		data, err := store.ReadSmallFile(c.env.BriefingPath(p.Key), 16<<20)
		if errors.Is(err, fs.ErrNotExist) {
			return withHint(fmt.Errorf("no briefing for %s yet", c.env.Tilde(p.Root)), "write one and run `ccmem briefing --set FILE`")
		}
		if err != nil {
			return err
		}
		_, err = c.out.Write(data)
		return err
	}
	var data []byte
	if set == "-" {
		data, err = io.ReadAll(io.LimitReader(c.p.Stdin, 1<<20))
	} else {
		data, err = os.ReadFile(set)
	}
	if err != nil {
		return err
	}
	changed, err := notes.SetBriefing(c.env, p, string(data))
	if err != nil {
		return err
	}
	if !changed {
		fmt.Fprintln(c.out, "the briefing is unchanged")
		return nil
	}
	lines := strings.Count(strings.TrimRight(string(data), "\n"), "\n") + 1
	fmt.Fprintf(c.out, "briefing set (%d lines) in %s; the previous version is briefing.md.1\n", lines, c.env.Tilde(c.env.BriefingPath(p.Key)))
	if lines > 80 {
		fmt.Fprintf(c.err, "ccmem: warning: only the first 80 lines are injected (caps.briefing)\n")
	}
	return nil
}

var cmdDisable = &command{
	name: "disable", args: "[--global] [--cwd DIR]",
	summary: "turn ccmem's hooks off for this project (or everywhere)",
	help:    "Sets enabled: false in the project's .claude/memory/config.yaml (shared with the team), or with --global in ~/.claude/ccmem/config.yaml. `ccmem enable` turns them back on.",
	setup:   enableSetup(false),
}

var cmdEnable = &command{
	name: "enable", args: "[--global] [--cwd DIR]",
	summary: "turn ccmem's hooks back on for this project (or everywhere)",
	setup:   enableSetup(true),
}

func enableSetup(on bool) func(fs *flag.FlagSet) func(c *ctx, args []string) error {
	return func(fs *flag.FlagSet) func(c *ctx, args []string) error {
		global := fs.Bool("global", false, "everywhere: the global config")
		cwd := fs.String("cwd", "", "a `directory` of the project (default: the current one)")
		return func(c *ctx, args []string) error {
			if err := noArgs(fs, args); err != nil {
				return err
			}
			path, root := c.env.GlobalConfig(), ""
			if !*global {
				p, err := projectHere(c, *cwd)
				if err != nil {
					return err
				}
				path, root = store.RepoConfig(p.Root), p.Root
			}
			if _, err := config.SetEnabled(path, on, root); err != nil {
				return err
			}
			state := map[bool]string{true: "on", false: "off"}[on]
			fmt.Fprintf(c.out, "ccmem is %s (enabled: %v in %s)\n", state, on, c.env.Tilde(path))
			return nil
		}
	}
}
