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
	name: "consolidate", args: "[--cwd DIR] [--episodes] [--learned] [--dry-run] [--json]",
	summary: "write the project's team memory into CLAUDE.md between MEMORY:START/END",
	help: `Writes the section between <!-- MEMORY:START --> and <!-- MEMORY:END --> in
the repository's CLAUDE.md, which is committed and read by the team. By
default it holds only team content: the repository's memory bullets, the
project briefing, high-confidence preferences, and active decisions and
constraints. Your own sessions (--episodes: the last 5, without links into
your store) and the entries learned from your Claude Code memory
(--learned) go in only when you ask.
When the markers are absent only that section is added (and CLAUDE.md is
created when missing). Nothing outside the markers ever changes, and a
second run with the same memory changes nothing.`,
	setup: func(fs *flag.FlagSet) func(c *ctx, args []string) error {
		cwd := fs.String("cwd", "", "a `directory` of the project (default: the current one)")
		dryRun := fs.Bool("dry-run", false, "say whether CLAUDE.md would change, and print the section")
		asJSON := fs.Bool("json", false, "print the result as JSON")
		var opts notes.ConsolidateOptions
		fs.BoolVar(&opts.Episodes, "episodes", false, "also the last 5 sessions (your own: their goals become the team's to read)")
		fs.BoolVar(&opts.Learned, "learned", false, "also the project entries learned from your Claude Code memory")
		return func(c *ctx, args []string) error {
			if err := noArgs(fs, args); err != nil {
				return err
			}
			return runConsolidate(c, *cwd, opts, *dryRun, *asJSON)
		}
	},
}

func runConsolidate(c *ctx, cwd string, opts notes.ConsolidateOptions, dryRun, asJSON bool) error {
	p, err := projectHere(c, cwd)
	if err != nil {
		return err
	}
	res, err := notes.Consolidate(c, c.env, p, opts, dryRun)
	if err != nil {
		return err
	}
	if asJSON {
		return c.printJSON(res)
	}
	if dryRun {
		fmt.Fprintln(c.out, notes.ConsolidateSection(c, c.env, p, opts))
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
	name: "disable", args: "[--team | --global] [--cwd DIR] [--json]",
	summary: "turn ccmem's hooks off for you in this project (or the team's, or everywhere)",
	help: `Turns ccmem off for you in this project: enabled: false in your own
config for it in the store (~/.claude/ccmem/projects/<key>/config.yaml),
which overrides the repository's and writes nothing in the repository.

With --team, writes enabled: false into the repository's committed
.claude/memory/config.yaml instead: ccmem is off for everyone who works in
it once you commit that. With --global, turns it off in every project (the
global config). For one session only, start it with CCMEM_DISABLE=1 claude.
` + "`ccmem enable`" + ` with the same flag undoes it.`,
	setup: enableSetup(false),
}

var cmdEnable = &command{
	name: "enable", args: "[--team | --global] [--cwd DIR] [--json]",
	summary: "turn ccmem's hooks back on for you in this project (or the team's, or everywhere)",
	help: `Undoes ` + "`ccmem disable`" + ` at the same level: removes the enabled key from your
own config for this project (writing enabled: true there only when the
team's or the global config would still leave ccmem off for you), from the
repository's config with --team, or from the global config with --global.
It tells you when a config file it does not change still turns ccmem off.`,
	setup: enableSetup(true),
}

// enableResult is what ` + "`ccmem enable/disable --json`" + ` prints.
type enableResult struct {
	Enabled bool   `json:"enabled"`
	Scope   string `json:"scope"`
	Path    string `json:"path"`
	Changed bool   `json:"changed"`
	// OffBy names the config file that still turns ccmem off here.
	OffBy string `json:"off_by,omitempty"`
}

func enableSetup(on bool) func(fs *flag.FlagSet) func(c *ctx, args []string) error {
	return func(fs *flag.FlagSet) func(c *ctx, args []string) error {
		global := fs.Bool("global", false, "every project: the global config")
		team := fs.Bool("team", false, "everyone in this repository: its committed config")
		cwd := fs.String("cwd", "", "a `directory` of the project (default: the current one)")
		asJSON := fs.Bool("json", false, "print the outcome as JSON")
		return func(c *ctx, args []string) error {
			if err := noArgs(fs, args); err != nil {
				return err
			}
			if *global && *team {
				return usageError{errors.New("--global and --team do not go together")}
			}
			scope := map[bool]string{true: "global", false: "personal"}[*global]
			if *team {
				scope = "team"
			}
			return runEnable(c, on, scope, *cwd, *asJSON)
		}
	}
}

func runEnable(c *ctx, on bool, scope, cwd string, asJSON bool) error {
	var p *store.Project
	if q, err := projectHere(c, cwd); err == nil {
		p = &q
	} else if scope != "global" {
		return err
	}
	if p != nil && scope == "personal" {
		claimed, err := store.ClaimProject(c.env, *p)
		if err != nil {
			return err
		}
		p = &claimed
	}
	root, key := "", ""
	if p != nil {
		root, key = p.Root, p.Key
	}
	path, fileRoot := c.env.GlobalConfig(), ""
	switch scope {
	case "team":
		path, fileRoot = store.RepoConfig(root), root
	case "personal":
		path = c.env.PersonalConfig(key)
	}
	// Off is always written; on is the key's absence, unless a file below
	// this one would still leave ccmem off (then only the personal file,
	// which is the user's alone, says so).
	var want *bool
	if !on {
		want = &on
	}
	changed, err := config.SetEnabled(path, want, fileRoot)
	if err != nil {
		return err
	}
	cfg, _ := config.Load(c.env, root, key)
	if on && !cfg.Enabled && scope == "personal" {
		ch, err := config.SetEnabled(path, &on, fileRoot)
		if err != nil {
			return err
		}
		changed = changed || ch
		cfg, _ = config.Load(c.env, root, key)
	}
	res := enableResult{Enabled: cfg.Enabled, Scope: scope, Path: path, Changed: changed}
	if cfg.Enabled != on {
		res.OffBy = config.EnabledSource(c.env, root, key)
	}
	if asJSON {
		return c.printJSON(res)
	}
	state := map[bool]string{true: "on", false: "off"}[on]
	where := map[string]string{
		"personal": "for you in " + c.env.Tilde(root) + " (" + c.env.Tilde(path) + "; nothing in the repository changed)",
		"team":     "for everyone in " + c.env.Tilde(root) + " once you commit " + c.env.Tilde(path),
		"global":   "for you in every project (" + c.env.Tilde(path) + ")",
	}[scope]
	if changed {
		fmt.Fprintf(c.out, "ccmem is %s %s\n", state, where)
	} else {
		fmt.Fprintf(c.out, "ccmem was already %s %s\n", state, where)
	}
	if res.OffBy != "" {
		fmt.Fprintf(c.err, "ccmem: warning: ccmem is still off here: %s sets enabled: false\n", c.env.Tilde(res.OffBy))
	} else if p != nil && cfg.Enabled != on {
		fmt.Fprintf(c.err, "ccmem: warning: ccmem is still %s here\n", map[bool]string{true: "on", false: "off"}[cfg.Enabled])
	}
	return nil
}
