package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ccmem/ccmem/pkg/memory"
)

func init() {
	register(&command{
		name: "status", args: "[--line | --json]",
		summary: "counts: silo backlog, pending review, episodes, last capture",
		help: `--line prints only "N un-ingested memories across M silos" (nothing when
N is 0), for a status line: it answers from status.json when no silo
folder changed since it was counted (a stat per silo), else lists each
silo folder; it never opens a memory file. scripts/statusline.sh, installed as Claude Code's
statusLine, runs it.`,
		run: runStatus,
	})
}

func runStatus(c *ctx, args []string) error {
	fs := c.flags("status")
	line := fs.Bool("line", false, "print only the backlog line, or nothing")
	asJSON := fs.Bool("json", false, "print the counts as JSON")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	var b memory.Backlog
	var err error
	if *line {
		b, _, err = memory.CachedBacklog(context.Background(), c.env)
	} else {
		b, err = memory.CountBacklog(context.Background(), c.env)
	}
	if *line {
		// A status line never shows an error: it would sit there for good.
		if err == nil && b.Files > 0 {
			fmt.Fprintln(c.out, memory.BacklogLine(b))
		}
		return nil
	}
	if err != nil {
		return err
	}
	review, _ := memory.PendingReview(c.env)
	episodes, projects, last := storeCounts(c.env)
	if *asJSON {
		return c.printJSON(map[string]any{
			"backlog": b, "review": len(review), "episodes": episodes, "projects": projects,
			"last_capture": last, "store": c.env.Store,
		})
	}
	fmt.Fprintf(c.out, "silo backlog     %d memories across %d silos", b.Files, b.Silos)
	if b.Files > 0 {
		fmt.Fprint(c.out, " (run `ccmem learn check`)")
	}
	fmt.Fprintf(c.out, "\npending review   %d\n", len(review))
	fmt.Fprintf(c.out, "episodes         %d across %d projects\n", episodes, projects)
	if last == "" {
		last = "never"
	}
	fmt.Fprintf(c.out, "last capture     %s\n", last)
	return nil
}

// storeCounts counts episodes and projects, and finds the newest capture.
func storeCounts(e memory.Env) (episodes, projects int, last string) {
	keys, _ := os.ReadDir(filepath.Join(e.Store, "projects"))
	var newest int64
	for _, k := range keys {
		if !k.IsDir() {
			continue
		}
		projects++
		for _, sub := range []string{"episodes", "checkpoints"} {
			ents, _ := os.ReadDir(filepath.Join(e.ProjectDir(k.Name()), sub))
			for _, de := range ents {
				if filepath.Ext(de.Name()) != ".json" {
					continue
				}
				if sub == "episodes" {
					episodes++
				}
				if fi, err := de.Info(); err == nil && fi.ModTime().UnixNano() > newest {
					newest = fi.ModTime().UnixNano()
					last = fi.ModTime().UTC().Format("2006-01-02 15:04 UTC")
				}
			}
		}
	}
	return episodes, projects, last
}
