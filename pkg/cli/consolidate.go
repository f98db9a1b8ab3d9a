package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/ccmem/ccmem/pkg/memory"
)

func init() {
	register(&command{
		name: "consolidate", args: "[--cwd DIR] [--dry-run] [--json]",
		summary: "write the project's memory into CLAUDE.md between MEMORY:START/END",
		help: `Writes the section between <!-- MEMORY:START --> and <!-- MEMORY:END --> in
the repository's CLAUDE.md from the store: project facts, high-confidence
preferences, active decisions and constraints, and the last 5 sessions.
When the markers are absent only that section is added (and CLAUDE.md is
created when missing). Nothing outside the markers ever changes, and a
second run with the same memory changes nothing.`,
		run: runConsolidate,
	})
	register(&command{
		name: "briefing", args: "[--cwd DIR] [--set FILE|-]",
		summary: "print or replace the project's briefing (two previous versions kept)",
		help: `Without --set, prints the project's briefing. --set replaces it with FILE
(or standard input), keeping the previous two versions as briefing.md.1
and briefing.md.2. Session start injects at most 80 lines of it.`,
		run: runBriefing,
	})
	register(&command{
		name: "disable", args: "[--global] [--cwd DIR]",
		summary: "turn ccmem's hooks off for this project (or everywhere)",
		help:    "Sets enabled: false in the project's .claude/memory/config.yaml (shared with the team), or with --global in ~/.claude/ccmem/config.yaml. `ccmem enable` turns them back on.",
		run:     func(c *ctx, args []string) error { return runEnable(c, args, false) },
	})
	register(&command{
		name: "enable", args: "[--global] [--cwd DIR]",
		summary: "turn ccmem's hooks back on for this project (or everywhere)",
		run:     func(c *ctx, args []string) error { return runEnable(c, args, true) },
	})
}

func projectHere(c *ctx, cwd string) (memory.Project, error) {
	dir, err := startDir(cwd)
	if err != nil {
		return memory.Project{}, err
	}
	return memory.ResolveProject(c.env, dir)
}

func runConsolidate(c *ctx, args []string) error {
	fs := c.flags("consolidate")
	cwd := fs.String("cwd", "", "a `directory` of the project (default: the current one)")
	dryRun := fs.Bool("dry-run", false, "say whether CLAUDE.md would change, and print the section")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	p, err := projectHere(c, *cwd)
	if err != nil {
		return err
	}
	res, err := memory.Consolidate(context.Background(), c.env, p, *dryRun)
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(res)
	}
	if *dryRun {
		fmt.Fprintln(c.out, memory.ConsolidateSection(context.Background(), c.env, p))
	}
	switch {
	case !res.Changed:
		fmt.Fprintf(c.out, "%s is up to date\n", c.env.Tilde(res.Path))
	case *dryRun:
		fmt.Fprintf(c.out, "dry run: %s would change\n", c.env.Tilde(res.Path))
	case res.Created:
		fmt.Fprintf(c.out, "created %s with the memory section\n", c.env.Tilde(res.Path))
	default:
		fmt.Fprintf(c.out, "updated the memory section of %s\n", c.env.Tilde(res.Path))
	}
	return nil
}

func runBriefing(c *ctx, args []string) error {
	fs := c.flags("briefing")
	cwd := fs.String("cwd", "", "a `directory` of the project (default: the current one)")
	set := fs.String("set", "", "replace the briefing with this `file` (- for standard input)")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	p, err := projectHere(c, *cwd)
	if err != nil {
		return err
	}
	if *set == "" {
		data, err := os.ReadFile(c.env.BriefingPath(p.Key))
		if os.IsNotExist(err) {
			return withHint(fmt.Errorf("no briefing for %s yet", c.env.Tilde(p.Root)), "write one and run `ccmem briefing --set FILE`")
		}
		if err != nil {
			return err
		}
		_, err = c.out.Write(data)
		return err
	}
	var data []byte
	if *set == "-" {
		data, err = io.ReadAll(io.LimitReader(c.p.Stdin, 1<<20))
	} else {
		data, err = os.ReadFile(*set)
	}
	if err != nil {
		return err
	}
	changed, err := memory.SetBriefing(c.env, p, string(data))
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

var enabledLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^enabled:.*$`) })

func runEnable(c *ctx, args []string, on bool) error {
	name := map[bool]string{true: "enable", false: "disable"}[on]
	fs := c.flags(name)
	global := fs.Bool("global", false, "everywhere: the global config")
	cwd := fs.String("cwd", "", "a `directory` of the project (default: the current one)")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	path := c.env.GlobalConfig()
	if !*global {
		p, err := projectHere(c, *cwd)
		if err != nil {
			return err
		}
		path = filepath.Join(memory.RepoMemoryDir(p.Root), "config.yaml")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
	}
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	line := fmt.Sprintf("enabled: %v", on)
	next := string(old)
	if enabledLine().MatchString(next) {
		next = enabledLine().ReplaceAllString(next, line)
	} else {
		if next != "" && !strings.HasSuffix(next, "\n") {
			next += "\n"
		}
		next += line + "\n"
	}
	if _, files := memory.LoadConfig(func(string) ([]byte, error) { return []byte(next), nil }, path); files[0].Err != nil {
		return fmt.Errorf("%s would not parse after the change (%v); edit it by hand", c.env.Tilde(path), files[0].Err)
	}
	if next != string(old) {
		if err := memory.WriteFileAtomic(path, []byte(next)); err != nil {
			return err
		}
		if !*global {
			_ = os.Chmod(path, 0o644)
		}
	}
	state := map[bool]string{true: "on", false: "off"}[on]
	fmt.Fprintf(c.out, "ccmem is %s (enabled: %v in %s)\n", state, on, c.env.Tilde(path))
	return nil
}
