package cli

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/syncstate"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdStatus = &command.Command{
	Name: "status", Args: "[--line | --json]",
	Summary: "counts: silo backlog, pending review, episodes, last capture",
	Help: `--line prints only "N memories Claude Code saved wait to be curated, from M projects" (nothing when
N is 0), for a status line: it takes each silo's count from status.json
while that silo's memory folder is unchanged, lists only the silos that
changed, and saves the new counts; it never opens a memory file. While no
silo was added or removed, it checks the session's own silos and a window
of 256 others (the next each second), so with thousands of silos a change
in another one shows within a sweep of them all. ccmem install registers it as
Claude Code's statusLine (it reads and ignores the client's JSON on stdin).`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		line := fs.Bool("line", false, "print only the backlog line, or nothing")
		asJSON := fs.Bool("json", false, "print the counts as JSON")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			if err := command.Exclusive(fs, "line", "json"); err != nil {
				return err
			}
			if *line {
				return statusLine(c)
			}
			return runStatus(c, *asJSON)
		}
	},
}

// statusInputWait bounds the wait for the client's JSON on stdin.
const statusInputWait = 300 * time.Millisecond

// statusLine prints the backlog line for Claude Code's status line. It
// never shows an error: it would sit there for good.
func statusLine(c *command.Ctx) error {
	hookio.TuneGC() // a millisecond process, as a hook is
	// The client's JSON names the session's folders: their silos, where
	// its memory is written, are always checked.
	var focus []string
	for _, d := range claudecode.ReadStatusInput(c.P.Stdin, statusInputWait).Folders() {
		focus = append(focus, store.Slug(d))
	}
	var parts []string
	if st, err := learn.RefreshStatusLine(c, c.Env, focus); err == nil {
		if st.Backlog.Files > 0 {
			parts = append(parts, learn.BacklogLine(st.Backlog))
		}
		// The one thing only the person can do: decide.
		if st.Review > 0 {
			parts = append(parts, textfmt.Plural(st.Review, "memory", "memories")+" waiting for your review (ccmem learn review)")
		}
	}
	if n := syncstate.Note(c.Env); n != "" {
		parts = append(parts, n)
	}
	if len(parts) > 0 {
		fmt.Fprintln(c.Stdout, strings.Join(parts, " · "))
	}
	return nil
}

func runStatus(c *command.Ctx, asJSON bool) error {
	b, err := learn.CountBacklog(c, c.Env)
	if err != nil {
		return err
	}
	review, _ := learn.Pending(c.Env)
	counts := session.Count(c.Env)
	last := ""
	if !counts.LastCapture.IsZero() {
		last = counts.LastCapture.UTC().Format("2006-01-02 15:04 UTC")
	}
	if asJSON {
		return c.PrintJSON(map[string]any{
			"backlog": b, "review": len(review), "episodes": counts.Episodes, "projects": counts.Projects,
			"last_capture": last, "store": c.Env.Store,
		})
	}
	fmt.Fprintf(c.Stdout, "silo backlog     %s across %s", textfmt.Plural(b.Files, "memory", "memories"), textfmt.Plural(b.Silos, "silo", "silos"))
	if b.Files > 0 {
		fmt.Fprint(c.Stdout, " (run `ccmem learn check`)")
	}
	fmt.Fprintf(c.Stdout, "\npending review   %d\n", len(review))
	fmt.Fprintf(c.Stdout, "episodes         %d in %s\n", counts.Episodes, textfmt.Plural(counts.Projects, "project", "projects"))
	if last == "" {
		last = "never"
	}
	fmt.Fprintf(c.Stdout, "last capture     %s\n", last)
	return nil
}
