package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdConsolidate = &command.Command{
	Name: "consolidate", Args: "[--cwd DIR] [--briefing] [--episodes] [--learned] [--write] [--json]",
	Summary: "write the project's team memory into CLAUDE.md between MEMORY:START/END",
	Help: `Writes the section between <!-- MEMORY:START --> and <!-- MEMORY:END --> in
the repository's CLAUDE.md, which is committed and read by the team. By
default it holds only what the repository already holds for the team: its
memory bullets, high-confidence preferences, and active decisions and
constraints. What lives in your private store goes in only when you ask:
the project briefing (--briefing), your own sessions (--episodes: the last
5, without links into your store) and the entries learned from your Claude
Code memory (--learned).
Without --write it only shows the section and whether CLAUDE.md would
change: a committed file is written when you say so. With --write, when
the markers are absent only that section is added (and CLAUDE.md is
created when missing). Nothing outside the markers ever changes, and a
second run with the same memory changes nothing.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := command.CwdFlag(fs)
		write := fs.Bool("write", false, "write the section into CLAUDE.md (without it: only show it)")
		preview := fs.Bool("dry-run", false, "only show the section and whether CLAUDE.md would change (the default)")
		asJSON := fs.Bool("json", false, "print the result as JSON")
		var opts notes.ConsolidateOptions
		fs.BoolVar(&opts.Briefing, "briefing", false, "also the project briefing (from your private store)")
		fs.BoolVar(&opts.Episodes, "episodes", false, "also the last 5 sessions (your own: their goals become the team's to read)")
		fs.BoolVar(&opts.Learned, "learned", false, "also the project entries learned from your Claude Code memory")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			if *write && *preview {
				return command.Usagef("--write writes it; without it, ccmem only shows it", "--write and --dry-run cannot go together")
			}
			return runConsolidate(c, *cwd, opts, !*write, *asJSON)
		}
	},
}

func runConsolidate(c *command.Ctx, cwd string, opts notes.ConsolidateOptions, dryRun, asJSON bool) error {
	p, err := projectHere(c, cwd)
	if err != nil {
		return err
	}
	res, err := notes.Consolidate(c, c.Env, p, opts, dryRun)
	if err != nil {
		return err
	}
	if asJSON {
		return c.PrintJSON(res)
	}
	if dryRun {
		fmt.Fprintln(c.Stdout, notes.ConsolidateSection(c, c.Env, p, opts))
	}
	switch {
	case !res.Changed:
		fmt.Fprintf(c.Stdout, "%s is up to date\n", c.Env.Tilde(res.Path))
	case dryRun:
		fmt.Fprintf(c.Stdout, "%s would change: `ccmem consolidate --write` writes it (CLAUDE.md is committed: the team reads it)\n", c.Env.Tilde(res.Path))
	case res.Created:
		fmt.Fprintf(c.Stdout, "created %s with the memory section\n", c.Env.Tilde(res.Path))
	default:
		fmt.Fprintf(c.Stdout, "updated the memory section of %s\n", c.Env.Tilde(res.Path))
	}
	return nil
}

var cmdBriefing = &command.Command{
	Name: "briefing", Args: "[--cwd DIR] [--set FILE|-] | draft [--apply]",
	Summary: "print, replace or draft the project's briefing (two previous versions kept)",
	Help: `Without --set, prints the project's briefing. --set replaces it with FILE
(or standard input), keeping the previous two versions as briefing.md.1
and briefing.md.2. Session start injects at most 80 lines of it.
` + "`ccmem briefing draft`" + ` drafts one from the newest sessions.`,
	Subs: []*command.Command{cmdBriefingDraft},
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := command.CwdFlag(fs)
		set := fs.String("set", "", "replace the briefing with this `file` (- for standard input)")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			return runBriefing(c, *cwd, *set)
		}
	},
}

func runBriefing(c *command.Ctx, cwd, set string) error {
	p, err := projectHere(c, cwd)
	if err != nil {
		return err
	}
	if set == "" {
		data, err := store.ReadSmallFile(c.Env.BriefingPath(p.Key), 16<<20)
		if errors.Is(err, fs.ErrNotExist) {
			return command.WithHint(fmt.Errorf("no briefing for %s yet", c.Env.Tilde(p.Root)), "write one and run `ccmem briefing --set FILE`")
		}
		if err != nil {
			return err
		}
		_, err = c.Stdout.Write(data)
		return err
	}
	var data []byte
	if set == "-" {
		data, err = io.ReadAll(io.LimitReader(c.P.Stdin, 1<<20))
	} else {
		data, err = os.ReadFile(set)
	}
	if err != nil {
		return err
	}
	changed, err := notes.SetBriefing(c.Env, p, string(data))
	if err != nil {
		return err
	}
	if !changed {
		fmt.Fprintln(c.Stdout, "the briefing is unchanged")
		return nil
	}
	lines := strings.Count(strings.TrimRight(string(data), "\n"), "\n") + 1
	fmt.Fprintf(c.Stdout, "briefing set (%s) in %s; the previous version is briefing.md.1\n", textfmt.Plural(lines, "line", "lines"), c.Env.Tilde(c.Env.BriefingPath(p.Key)))
	if lines > 80 {
		fmt.Fprintf(c.Stderr, "ccmem: warning: only the first 80 lines are injected (caps.briefing)\n")
	}
	return nil
}

var cmdBriefingDraft = &command.Command{
	Name: "draft", Args: "[--apply] [--sessions N] [--cwd DIR] [--json]",
	Summary: "draft a briefing from the newest sessions; --apply makes it the briefing",
	Help: `Drafts the project's briefing (at most 80 lines) from its newest sessions'
records (--sessions, 20 by default; automated runs left out) and the
repository's records: the goals being worked toward (sessions on one
subject are one goal, with how its last session ended), the decisions in
force (active decision records, then the decisions sessions stated, a later
one on the same subject replacing the earlier), the open threads (a command
that failed and no later session ran cleanly, a session that went badly
with nothing on its subject since, deferred work and next steps the records
hold), what changed since the current briefing was written, and the files
and commands that recur. Every line comes from the records; no model is
asked, so the same sessions give the same draft.

It prints the draft as a diff against the current briefing ("-" lines
go, "+" lines come). --apply writes it as the new briefing, keeping the
two previous versions (briefing.md.1, .2) for rollback. Edit it after:
the draft is a start, not the last word.`,
	Setup: func(flags *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := command.CwdFlag(flags)
		apply := flags.Bool("apply", false, "write the draft as the new briefing")
		n := flags.Int("sessions", 20, "draft from this many of the newest `sessions`")
		asJSON := flags.Bool("json", false, "print the draft and the current briefing as JSON")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(flags, args); err != nil {
				return err
			}
			if *n < 1 || *n > 1000 {
				return command.Usagef("", "--sessions must be between 1 and 1000, not %d", *n)
			}
			p, err := projectHere(c, *cwd)
			if err != nil {
				return err
			}
			eps, problems := session.AllEpisodes(c.Env, p.Key)
			for _, pr := range problems {
				fmt.Fprintf(c.Stderr, "ccmem: warning: %s\n", pr)
			}
			// What changed is told since the current briefing was written.
			var since time.Time
			if fi, err := os.Lstat(c.Env.BriefingPath(p.Key)); err == nil && fi.Mode().IsRegular() {
				since = fi.ModTime()
			}
			draft := notes.DraftBriefing(p, eps, *n, since)
			_ = learn.MarkSeen(c.Env, learn.BriefingSeen(p.Key, since)) // the start-up block stops suggesting a draft
			cur, err := store.ReadSmallFile(c.Env.BriefingPath(p.Key), 16<<20)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			changed := false
			if *apply {
				if changed, err = notes.SetBriefing(c.Env, p, draft); err != nil {
					return err
				}
			}
			if *asJSON {
				return c.PrintJSON(map[string]any{"draft": draft, "current": string(cur), "applied": *apply && changed, "path": c.Env.BriefingPath(p.Key)})
			}
			diff := lineDiff(strings.Split(strings.TrimRight(string(cur), "\n"), "\n"), strings.Split(strings.TrimRight(draft, "\n"), "\n"))
			if len(cur) == 0 {
				fmt.Fprintln(c.Stdout, "--- no briefing yet")
			} else {
				fmt.Fprintf(c.Stdout, "--- %s\n", c.Env.Tilde(c.Env.BriefingPath(p.Key)))
			}
			fmt.Fprintln(c.Stdout, "+++ draft")
			for _, l := range diff {
				fmt.Fprintln(c.Stdout, textfmt.Line(l))
			}
			switch {
			case *apply && changed:
				fmt.Fprintf(c.Stdout, "briefing set from the draft in %s; the previous version is briefing.md.1\n", c.Env.Tilde(c.Env.BriefingPath(p.Key)))
			case *apply:
				fmt.Fprintln(c.Stdout, "the briefing is unchanged")
			default:
				fmt.Fprintln(c.Stdout, "`ccmem briefing draft --apply` makes it the briefing (the current one is kept as briefing.md.1)")
			}
			return nil
		}
	},
}

// lineDiff is a line diff of a and b: each line of the longest common
// subsequence with "  ", the lines only a has with "- ", only b with "+ ".
func lineDiff(a, b []string) []string {
	if len(a) == 1 && a[0] == "" {
		a = nil
	}
	var out []string
	for _, d := range textfmt.LineDiff(a, b) {
		out = append(out, string(d.Op)+" "+d.Line)
	}
	return out
}

var cmdDisable = &command.Command{
	Name: "disable", Args: "[--team | --global] [--cwd DIR] [--json]",
	Summary: "turn ccmem's hooks off for you in this project (or the team's, or everywhere)",
	Help: `Turns ccmem off for you in this project: enabled: false in your own
config for it in the store (~/.claude/ccmem/projects/<key>/config.yaml),
which overrides the repository's and writes nothing in the repository.

With --team, writes enabled: false into the repository's committed
.claude/memory/config.yaml instead: ccmem is off for everyone who works in
it once you commit that. With --global, turns it off in every project (the
global config). For one session only, start it with CCMEM_DISABLE=1 claude.
` + "`ccmem enable`" + ` with the same flag undoes it.`,
	Setup: enableSetup(false),
}

var cmdEnable = &command.Command{
	Name: "enable", Args: "[--team | --global] [--cwd DIR] [--json]",
	Summary: "turn ccmem's hooks back on for you in this project (or the team's, or everywhere)",
	Help: `Undoes ` + "`ccmem disable`" + ` at the same level: removes the enabled key from your
own config for this project (writing enabled: true there only when the
team's or the global config would still leave ccmem off for you), from the
repository's config with --team, or from the global config with --global.
It tells you when a config file it does not change still turns ccmem off.`,
	Setup: enableSetup(true),
}

func enableSetup(on bool) func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
	return func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		global := fs.Bool("global", false, "every project: the global config")
		team := fs.Bool("team", false, "everyone in this repository: its committed config")
		cwd := command.CwdFlag(fs)
		asJSON := fs.Bool("json", false, "print the outcome as JSON")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			if *global && *team {
				return command.UsageError{Err: errors.New("--global and --team do not go together")}
			}
			scope := config.Personal
			switch {
			case *global:
				scope = config.Global
			case *team:
				scope = config.Team
			}
			return runEnable(c, on, scope, *cwd, *asJSON)
		}
	}
}

func runEnable(c *command.Ctx, on bool, scope config.Scope, cwd string, asJSON bool) error {
	var p *store.Project
	if q, err := projectHere(c, cwd); err == nil {
		p = &q
	} else if scope != config.Global {
		return err
	}
	if p != nil && scope == config.Personal {
		// The personal file lives in the project's folder in the store.
		claimed, err := store.ClaimProject(c.Env, *p)
		if err != nil {
			return err
		}
		p = &claimed
	}
	root, key := "", ""
	if p != nil {
		root, key = p.Root, p.Key
	}
	res, err := config.Switch(c.Env, root, key, scope, on)
	if err != nil {
		return err
	}
	if asJSON {
		return c.PrintJSON(res)
	}
	state := map[bool]string{true: "on", false: "off"}[on]
	path := c.Env.Tilde(res.Path)
	where := map[config.Scope]string{
		config.Personal: "for you in " + c.Env.Tilde(root) + " (" + path + "; nothing in the repository changed)",
		config.Team:     "for everyone in " + c.Env.Tilde(root) + " once you commit " + path,
		config.Global:   "for you in every project (" + path + ")",
	}[scope]
	if res.Changed {
		fmt.Fprintf(c.Stdout, "ccmem is %s %s\n", state, where)
	} else {
		fmt.Fprintf(c.Stdout, "ccmem was already %s %s\n", state, where)
	}
	if res.OffBy != "" {
		fmt.Fprintf(c.Stderr, "ccmem: warning: ccmem is still off here: %s sets enabled: false\n", c.Env.Tilde(res.OffBy))
	} else if p != nil && res.Enabled != on {
		fmt.Fprintf(c.Stderr, "ccmem: warning: ccmem is still %s here\n", map[bool]string{true: "on", false: "off"}[res.Enabled])
	}
	return nil
}
