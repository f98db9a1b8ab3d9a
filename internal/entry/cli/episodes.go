package cli

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdEpisodes = &command.Command{
	Name: "episodes", Args: "[--automated | --all] [--cwd DIR] [--json] | show ID",
	Summary: "list a project's recorded sessions, newest first; show one's digest",
	Help: `Lists the episodes (finished sessions) of the project that DIR belongs to
(default: the current directory), newest first, then the sessions not yet
archived: "ended" (over; the next session start in the project archives
it) or "live" (still running). Automated runs — sessions another program
started (a hook's or a plugin's background claude -p, a CI job) — are
counted, not listed: --automated lists them alone, --all with the rest.
--json prints the full records. ` + "`ccmem episodes show ID`" + ` prints one session:
its title, counts and digest (what was asked, concluded, failed and fixed).`,
	Renamed: map[string]string{"project": "cwd"},
	Subs:    []*command.Command{cmdEpisodesShow},
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		project := command.CwdFlag(fs)
		asJSON := fs.Bool("json", false, "print the records as JSON")
		automated := fs.Bool("automated", false, "list only the automated runs")
		all := fs.Bool("all", false, "list a person's sessions and automated runs")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			if *automated && *all {
				return command.Usagef("", "--automated and --all do not go together")
			}
			which := person
			switch {
			case *automated:
				which = automatedOnly
			case *all:
				which = everyone
			}
			return runEpisodes(c, *project, which, *asJSON)
		}
	},
}

// Which sessions a listing shows.
const (
	person = iota
	automatedOnly
	everyone
)

type episodeRow struct {
	State  string              `json:"state"` // "archived", "ended" or "live"
	Path   string              `json:"path"`
	Record *session.Checkpoint `json:"record"`
}

func runEpisodes(c *command.Ctx, dir string, which int, asJSON bool) error {
	p, err := projectToRead(c, dir)
	if err != nil {
		return err
	}
	cfg, _ := config.Load(c.Env, p.Root, p.Key)
	eps, live, problems := session.ListSessions(c.Env, p.Key, cfg)
	for _, pr := range problems {
		fmt.Fprintf(c.Stderr, "ccmem: warning: %s\n", pr)
	}
	rows := []episodeRow{}
	left := 0
	keep := func(r *session.Checkpoint) bool {
		ok := which == everyone || (which == automatedOnly) == r.Automated
		if !ok {
			left++
		}
		return ok
	}
	for _, r := range eps {
		if keep(r.Record) {
			rows = append(rows, episodeRow{"archived", r.Path, r.Record})
		}
	}
	for _, r := range live {
		state := "live"
		if r.Ended {
			state = "ended"
		}
		if keep(r.Record) {
			rows = append(rows, episodeRow{state, r.Path, r.Record})
		}
	}
	if asJSON {
		return c.PrintJSON(rows)
	}
	if len(rows) == 0 {
		what := "no sessions recorded yet"
		if which == automatedOnly {
			what = "no automated runs recorded"
		}
		fmt.Fprintf(c.Stdout, "%s for %s\n", what, c.Env.Tilde(p.Root))
	} else {
		tw := command.NewTable(c.Stdout)
		tw.Row("started (UTC)", "agent", "turns", "class", "title", "files", "record")
		for _, r := range rows {
			rec := r.Record
			class := rec.Friction.Class
			if r.State != "archived" {
				class = r.State
			}
			tw.Row(startedAt(rec), session.AgentName(rec.Agent), rec.Turns, class, textfmt.Shorten(titleOf(rec), 48), len(rec.FilesChanged), c.Env.Tilde(r.Path))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if which == person && left > 0 {
		fmt.Fprintf(c.Stdout, "%s not listed: `ccmem episodes --automated`\n", textfmt.Plural(left, "automated run", "automated runs"))
	}
	return nil
}

// titleOf is a session's title, or its goal for a record from before titles.
func titleOf(c *session.Checkpoint) string {
	if c.Title != "" {
		return c.Title
	}
	return c.Goal
}

func startedAt(c *session.Checkpoint) string {
	if t, err := time.Parse(time.RFC3339Nano, c.StartedAt); err == nil {
		return t.UTC().Format("2006-01-02 15:04")
	}
	return "?"
}

var cmdEpisodesShow = &command.Command{
	Name: "show", Args: "[--cwd DIR] [--json] ID",
	Summary: "print one session: its title, counts and digest",
	Help: `Prints the session ID names (its session id, a unique prefix of it, or its
episode's file name) of the project that DIR belongs to: title, when, how
long, counts, the files it changed, and its digest — each prompt, each
turn's conclusion, the commands that failed and what fixed them — as the
record holds it (redacted). --json prints the whole record.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		project := command.CwdFlag(fs)
		asJSON := fs.Bool("json", false, "print the record as JSON")
		return func(c *command.Ctx, args []string) error {
			if len(args) != 1 {
				return command.Usagef("for example: ccmem episodes show 3f2a", "show needs one session id")
			}
			p, err := projectToRead(c, *project)
			if err != nil {
				return err
			}
			f, err := session.FindSession(c.Env, p.Key, args[0])
			if err != nil {
				return err
			}
			if *asJSON {
				return c.PrintJSON(episodeRow{State: "archived", Path: f.Path, Record: f.Record})
			}
			printSession(c, f)
			return nil
		}
	},
}

// printSession prints a session's record for people.
func printSession(c *command.Ctx, f session.SessionFile) {
	r := f.Record
	w := c.Stdout
	fmt.Fprintf(w, "%s\n", textfmt.Line(titleOf(r)))
	fmt.Fprintf(w, "  session %s · %s UTC · %s · %s", r.SessionID, startedAt(r), textfmt.Plural(r.Turns, "turn", "turns"), r.Friction.Class)
	if r.Automated {
		fmt.Fprintf(w, " · automated (%s)", textfmt.Line(r.AutomatedBy))
	}
	fmt.Fprintln(w)
	if r.Parent != "" {
		fmt.Fprintf(w, "  forked from %s\n", textfmt.Line(r.Parent))
	}
	if len(r.FilesChanged) > 0 {
		fmt.Fprintf(w, "  changed: %s\n", textfmt.Line(strings.Join(r.FilesChanged, ", ")))
	}
	if r.ToolErrors > 0 || r.Declined > 0 {
		fmt.Fprintf(w, "  %s, %s\n", textfmt.Plural(r.ToolErrors, "tool error", "tool errors"), textfmt.Plural(r.Declined, "call declined", "calls declined"))
	}
	fmt.Fprintf(w, "  record: %s\n", c.Env.Tilde(f.Path))
	d := r.Digest
	if len(d.Notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range d.Notes {
		label := session.NoteLabel(n.Kind)
		text := n.Text
		if n.Cmd != "" {
			text = "`" + n.Cmd + "`: " + text
		}
		fmt.Fprintf(w, "  [%d] %-9s %s\n", n.Turn, label, textfmt.Line(text))
	}
	if len(d.Commands) > 0 {
		fmt.Fprintf(w, "\n  commands run: %s\n", textfmt.Line(strings.Join(d.Commands, " · ")))
	}
	if len(d.Read) > 0 {
		fmt.Fprintf(w, "  files read: %s\n", textfmt.Line(strings.Join(d.Read, ", ")))
	}
	if d.Dropped > 0 {
		fmt.Fprintf(w, "  (%s gave way to the digest's size cap)\n", textfmt.Plural(d.Dropped, "note", "notes"))
	}
}

var cmdGC = &command.Command{
	Name: "gc", Args: "[--dry-run] [--json]",
	Summary: "apply episode retention now and clean leftovers of interrupted writes",
	Help: `For every project in the store, moves episodes older than retention_days or
beyond the newest max_episodes to the project's archive/ folder (nothing is
deleted), drops their INDEX.md lines, and removes temporary files left by
interrupted writes. Session start does the same, as time allows.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		dryRun := fs.Bool("dry-run", false, "report what would move, move nothing")
		asJSON := fs.Bool("json", false, "print the report as JSON")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			return runGC(c, *dryRun, *asJSON)
		}
	},
}

func runGC(c *command.Ctx, dryRun, asJSON bool) error {
	rep, err := session.GC(c, c.Env, dryRun)
	if err != nil {
		return err
	}
	if asJSON {
		return c.PrintJSON(struct {
			DryRun  bool     `json:"dry_run"`
			Moved   []string `json:"moved"`
			Cleaned []string `json:"cleaned"`
		}{rep.DryRun, rep.Moved, rep.Cleaned})
	}
	verb := "moved to archive/"
	if dryRun {
		verb = "would move to archive/"
	}
	for _, m := range rep.Moved {
		fmt.Fprintf(c.Stdout, "%s  %s\n", verb, c.Env.Tilde(m))
	}
	for _, m := range rep.Cleaned {
		fmt.Fprintf(c.Stdout, "removed leftover  %s\n", c.Env.Tilde(m))
	}
	fmt.Fprintf(c.Stdout, "%s %s, %s removed, in %s\n", textfmt.Plural(len(rep.Moved), "episode", "episodes"), verb,
		textfmt.Plural(len(rep.Cleaned), "leftover", "leftovers"), textfmt.Plural(rep.Projects, "project", "projects"))
	return nil
}
