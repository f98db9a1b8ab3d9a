package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/ccmem/ccmem/pkg/memory"
)

func init() {
	register(&command{
		name: "show", args: "[--cwd DIR] [--source SOURCE] [--json]",
		summary: "print the block sessionstart would inject, then its sizes and cuts",
		help: `Prints exactly the memory block that the sessionstart hook would inject for a
session starting in DIR (default: the current directory), then, per section,
the lines shown of the lines available, the section's cap, its size in
characters and what was cut, and the total against budget_chars.`,
		run: runShow,
	})
	register(&command{
		name: "paths", args: "[--cwd DIR] [--json] [NAME]",
		summary: "print where ccmem keeps memory for a directory",
		help: `Prints the store, the global MEMORY.md, the project's identity and key, and
the project's files (briefing, episode index, repository memory, config).
With NAME (such as project_dir or briefing), prints only that path, for
scripts. Nothing is created.`,
		run: runPaths,
	})
}

// startDir is --cwd or the current directory.
func startDir(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	return os.Getwd()
}

func runShow(c *ctx, args []string) error {
	fs := c.flags("show")
	cwd := fs.String("cwd", "", "the session's working `directory` (default: the current one)")
	source := fs.String("source", "startup", "the session start `reason`: startup, resume, clear or compact")
	asJSON := fs.Bool("json", false, "print the block and its report as JSON")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	dir, err := startDir(*cwd)
	if err != nil {
		return err
	}
	inj := memory.Compose(context.Background(), c.env, memory.StartRequest{Cwd: dir, Source: *source})
	if *asJSON {
		return c.printJSON(struct {
			Disabled bool            `json:"disabled"`
			Project  *memory.Project `json:"project"`
			Block    memory.Block    `json:"block"`
			Warnings []string        `json:"warnings"`
		}{inj.Disabled, inj.Project, inj.Block, orEmpty(inj.Warnings)})
	}
	for _, w := range inj.Warnings {
		fmt.Fprintf(c.err, "ccmem: warning: %s\n", w)
	}
	if inj.Disabled {
		fmt.Fprintln(c.out, "ccmem is disabled for this project (enabled: false in config); nothing would be injected.")
		return nil
	}
	b := inj.Block
	fmt.Fprintln(c.out, b.Text)
	fmt.Fprintln(c.out)
	where := "no project (global memory only)"
	if inj.Project != nil {
		where = fmt.Sprintf("%s (key %s)", c.env.Tilde(inj.Project.Root), inj.Project.Key)
	}
	fmt.Fprintf(c.out, "── injected for %s ──\n", where)
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "section\tlines\tcap\tchars\tcut")
	rest := b.Chars
	for _, s := range b.Sections {
		rest -= s.Chars
	}
	fmt.Fprintf(tw, "preamble\t\t\t%d\t\n", rest)
	for _, s := range b.Sections {
		cut := ""
		if hidden := s.Total - s.Shown; hidden > 0 {
			reason := map[string]string{"cap": "over cap", "budget": "over budget"}[s.Cut]
			cut = fmt.Sprintf("%d lines (%s)", hidden, reason)
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%d\t%d\t%s\n", s.Name, s.Shown, s.Total, s.Cap, s.Chars, cut)
	}
	fmt.Fprintf(tw, "total\t\t\t%d\tof %d (budget_chars)\n", b.Chars, b.Budget)
	return tw.Flush()
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func runPaths(c *ctx, args []string) error {
	fs := c.flags("paths")
	cwd := fs.String("cwd", "", "the `directory` to resolve (default: the current one)")
	asJSON := fs.Bool("json", false, "print as JSON")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return noArgs(fs, pos[1:])
	}
	p, err := projectHere(c, *cwd)
	if err != nil {
		return err
	}
	pdir := c.env.ProjectDir(p.Key)
	rows := []struct {
		Name string `json:"name"`
		Path string `json:"path"`
	}{
		{"store", c.env.Store},
		{"global_memory", c.env.GlobalMemory()},
		{"global_config", c.env.GlobalConfig()},
		{"learned", c.env.LearnedDir()},
		{"project_root", p.Root},
		{"project_key", p.Key},
		{"project_dir", pdir},
		{"briefing", filepath.Join(pdir, "briefing.md")},
		{"episode_index", filepath.Join(pdir, "INDEX.md")},
		{"repo_memory", filepath.Join(memory.RepoMemoryDir(p.Root), "MEMORY.md")},
		{"repo_config", filepath.Join(memory.RepoMemoryDir(p.Root), "config.yaml")},
		{"silos", c.env.SilosDir()},
		{"settings", c.env.Settings()},
	}
	if len(pos) == 1 {
		for _, r := range rows {
			if r.Name == pos[0] {
				fmt.Fprintln(c.out, r.Path)
				return nil
			}
		}
		names := make([]string, len(rows))
		for i, r := range rows {
			names[i] = r.Name
		}
		return usagef("names: "+strings.Join(names, ", "), "unknown path name %q", pos[0])
	}
	if *asJSON {
		m := map[string]any{}
		for _, r := range rows {
			m[r.Name] = r.Path
		}
		m["git"] = p.Git
		m["remote"] = p.Remote
		return c.printJSON(m)
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r.Name, r.Path)
	}
	return tw.Flush()
}
