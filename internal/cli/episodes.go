package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/ccmem/ccmem/internal/command"
	"github.com/ccmem/ccmem/internal/str"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/session"
)

var cmdEpisodes = &command.Command{
	Name: "episodes", Args: "[--cwd DIR] [--json]",
	Summary: "list a project's recorded sessions, newest first",
	Help: `Lists the episodes (finished sessions) of the project that DIR belongs to
(default: the current directory), newest first, then the sessions not yet
archived: "ended" (over; the next session start in the project archives
it) or "live" (still running). --json prints the full records.`,
	Renamed: map[string]string{"project": "cwd"},
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		project := command.CwdFlag(fs)
		asJSON := fs.Bool("json", false, "print the records as JSON")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			return runEpisodes(c, *project, *asJSON)
		}
	},
}

type episodeRow struct {
	State  string              `json:"state"` // "archived", "ended" or "live"
	Path   string              `json:"path"`
	Record *session.Checkpoint `json:"record"`
}

func runEpisodes(c *command.Ctx, dir string, asJSON bool) error {
	p, err := projectHere(c, dir)
	if err != nil {
		return err
	}
	cfg, _ := config.Load(c.Env, p.Root, p.Key)
	eps, live, problems := session.ListSessions(c.Env, p.Key, cfg)
	for _, pr := range problems {
		fmt.Fprintf(c.Stderr, "ccmem: warning: %s\n", pr)
	}
	rows := []episodeRow{}
	for _, r := range eps {
		rows = append(rows, episodeRow{"archived", r.Path, r.Record})
	}
	for _, r := range live {
		state := "live"
		if r.Ended {
			state = "ended"
		}
		rows = append(rows, episodeRow{state, r.Path, r.Record})
	}
	if asJSON {
		return c.PrintJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(c.Stdout, "no sessions recorded yet for %s\n", c.Env.Tilde(p.Root))
		return nil
	}
	tw := command.NewTable(c.Stdout)
	tw.Row("started (UTC)", "turns", "class", "goal", "files", "record")
	for _, r := range rows {
		rec := r.Record
		started := "?"
		if t, err := time.Parse(time.RFC3339Nano, rec.StartedAt); err == nil {
			started = t.UTC().Format("2006-01-02 15:04")
		}
		class := rec.Friction.Class
		if r.State != "archived" {
			class = r.State
		}
		tw.Row(started, rec.Turns, class, str.Shorten(rec.Goal, 48), len(rec.FilesChanged), c.Env.Tilde(r.Path))
	}
	return tw.Flush()
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
	fmt.Fprintf(c.Stdout, "%s %s, %s removed, in %s\n", str.Plural(len(rep.Moved), "episode", "episodes"), verb,
		str.Plural(len(rep.Cleaned), "leftover", "leftovers"), str.Plural(rep.Projects, "project", "projects"))
	return nil
}
