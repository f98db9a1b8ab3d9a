package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ccmem/ccmem/pkg/memory"
)

func init() {
	register(&command{
		name: "episodes", args: "[--project DIR] [--json]",
		summary: "list a project's recorded sessions, newest first",
		help: `Lists the episodes (finished sessions) of the project that DIR belongs to
(default: the current directory), newest first, then any session still live
or not yet archived. --json prints the full records.`,
		run: runEpisodes,
	})
	register(&command{
		name: "gc", args: "[--dry-run] [--json]",
		summary: "apply episode retention now and clean leftovers of interrupted writes",
		help: `For every project in the store, moves episodes older than retention_days or
beyond the newest max_episodes to the project's archive/ folder (nothing is
deleted), drops their INDEX.md lines, and removes temporary files left by
interrupted writes. Session start does the same, as time allows.`,
		run: runGC,
	})
}

type episodeRow struct {
	State  string             `json:"state"` // "archived" or "live"
	Path   string             `json:"path"`
	Record *memory.Checkpoint `json:"record"`
}

func runEpisodes(c *ctx, args []string) error {
	fs := c.flags("episodes")
	project := fs.String("project", "", "a `directory` of the project (default: the current one)")
	asJSON := fs.Bool("json", false, "print the records as JSON")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	p, err := projectHere(c, *project)
	if err != nil {
		return err
	}
	eps, live, problems := memory.ListSessions(c.env, p.Key)
	for _, pr := range problems {
		fmt.Fprintf(c.err, "ccmem: warning: %s\n", pr)
	}
	rows := []episodeRow{}
	for _, r := range eps {
		rows = append(rows, episodeRow{"archived", r.Path, r.Record})
	}
	for _, r := range live {
		rows = append(rows, episodeRow{"live", r.Path, r.Record})
	}
	if *asJSON {
		return c.printJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(c.out, "no sessions recorded yet for %s\n", c.env.Tilde(p.Root))
		return nil
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "started (UTC)\tturns\tclass\tgoal\tfiles\trecord")
	for _, r := range rows {
		rec := r.Record
		started := "?"
		if t, err := time.Parse(time.RFC3339Nano, rec.StartedAt); err == nil {
			started = t.UTC().Format("2006-01-02 15:04")
		}
		class := rec.Friction.Class
		if r.State == "live" {
			class = "live"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%s\n", started, rec.Turns, class, clip(rec.Goal, 48), len(rec.FilesChanged), c.env.Tilde(r.Path))
	}
	return tw.Flush()
}

// clip shortens s to n runes for a table cell.
func clip(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

func runGC(c *ctx, args []string) error {
	fs := c.flags("gc")
	dryRun := fs.Bool("dry-run", false, "report what would move, move nothing")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	keys, err := os.ReadDir(filepath.Join(c.env.Store, "projects"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	total := memory.ArchiveReport{}
	for _, k := range keys {
		if !k.IsDir() {
			continue
		}
		root := memory.ProjectRoot(c.env, k.Name())
		cfg, _ := c.env.LoadConfig(root)
		rep, err := memory.ApplyRetention(context.Background(), c.env, k.Name(), cfg, *dryRun)
		if err != nil {
			return fmt.Errorf("%s: %w", k.Name(), err)
		}
		total.Moved = append(total.Moved, rep.Moved...)
		total.Cleaned = append(total.Cleaned, rep.Cleaned...)
	}
	if *asJSON {
		return c.printJSON(struct {
			DryRun  bool     `json:"dry_run"`
			Moved   []string `json:"moved"`
			Cleaned []string `json:"cleaned"`
		}{*dryRun, orEmpty(total.Moved), orEmpty(total.Cleaned)})
	}
	verb := "moved to archive/"
	if *dryRun {
		verb = "would move to archive/"
	}
	for _, m := range total.Moved {
		fmt.Fprintf(c.out, "%s  %s\n", verb, c.env.Tilde(m))
	}
	for _, m := range total.Cleaned {
		fmt.Fprintf(c.out, "removed leftover  %s\n", c.env.Tilde(m))
	}
	fmt.Fprintf(c.out, "%d episodes %s, %d leftovers removed, across %d projects\n", len(total.Moved), verb, len(total.Cleaned), len(keys))
	return nil
}
