package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/importer"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdImport = &command.Command{
	Name: "import", Args: "[--cwd DIR] [--limit N] [--dry-run] [--follow] [--session ID] [--json]",
	Summary: "turn the sessions your agents already keep into episodes, so memory starts full",
	Help: `Reads the sessions your agents keep — Claude Code's transcripts in
~/.claude/projects/, Codex CLI's rollouts in ~/.codex/sessions/, Gemini
CLI's recordings in ~/.gemini/tmp/ and opencode's storage and database in
~/.local/share/opencode/ — and records each finished session as an
episode of its project (another agent's marked "in Codex", "in Gemini
CLI", "in opencode"), through the
same capture the hooks run: its title, counts, files and digest (what was
asked, concluded, failed and fixed), secrets redacted. The next session in
each project then has a menu, and search and recall find what was said:
the imported sessions are indexed for search before it ends.

It is safe to run again: a session already recorded is left alone, so a
second run adds nothing, and a run stopped midway goes on where it stopped.
Sessions that ended with the hooks recording them are archived first, in
every project. A session written to in the last 30 minutes that no hook
records (it began before ccmem was installed, and may still be going) is
imported as it is and followed: a session start runs ` + "`ccmem import --follow`" + `
in the background now and then, which brings its episode up to date until
the session ends (nothing written to it for 30 minutes). Automated runs (a headless claude -p that another
session's Bash call started, or one of three or more headless runs of a
project that open with the same prompt, on clients old and new) are
recorded but kept out of the menu. Sessions left out are counted by agent
and cause (no folder recorded, another system's folder, nothing said).

--cwd imports only the project DIR belongs to; --limit stops after N
sessions; --dry-run says what would be imported and writes nothing;
--follow only brings the followed sessions up to date. --session brings
the record of one opencode session up to date, as the hooks do after each
turn for the other agents: ccmem's opencode plugin runs it when a turn
ends.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := fs.String("cwd", "", "import only the sessions of the project `DIR` belongs to")
		limit := fs.Int("limit", 0, "import at most `N` sessions (0: all)")
		dryRun := fs.Bool("dry-run", false, "say what would be imported, write nothing")
		follow := fs.Bool("follow", false, "only bring the sessions an earlier import follows up to date (quietly)")
		asJSON := fs.Bool("json", false, "print the report as JSON")
		sid := fs.String("session", "", "bring the record of the opencode session `ID` up to date (what ccmem's opencode plugin runs after each turn)")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			if *sid != "" {
				if *cwd != "" || *limit != 0 || *dryRun || *follow {
					return command.Usagef("--session goes alone (with --json): it brings one session's record up to date", "--session with --cwd, --limit, --dry-run or --follow")
				}
				return runEndTurn(c, *sid, *asJSON)
			}
			if *limit < 0 {
				return command.Usagef("", "--limit must be 0 or more, not %d", *limit)
			}
			if *follow {
				// The background catch-up a session start runs: quiet,
				// bounded.
				ctx, cancel := context.WithTimeout(c, followFor)
				defer cancel()
				// Whatever a store holds (a crafted database whose pages
				// take long to walk between two looks at the clock), the
				// catch-up ends at its bound: every write is atomic, and
				// the next one goes on.
				go func() {
					<-ctx.Done()
					time.Sleep(followGrace)
					if ctx.Err() == context.DeadlineExceeded {
						fmt.Fprintln(c.Stderr, "ccmem: import --follow stopped at its bound; the next session start goes on")
						os.Exit(1)
					}
				}()
				_, err := importer.Import(ctx, c.Env, importer.ImportOptions{Follow: true,
					Config: func(root, key string) config.Config { cfg, _ := config.Load(c.Env, root, key); return cfg }})
				return err
			}
			return runImport(c, *cwd, *limit, *dryRun, *asJSON)
		}
	},
}

// followFor bounds the background catch-up a session start runs, and
// followGrace is how long past it the process may take to notice.
const (
	followFor   = 2 * time.Minute
	followGrace = 5 * time.Second
)

func runImport(c *command.Ctx, cwd string, limit int, dryRun, asJSON bool) error {
	opt := importer.ImportOptions{Limit: limit, DryRun: dryRun,
		Config: func(root, key string) config.Config { cfg, _ := config.Load(c.Env, root, key); return cfg }}
	if cwd != "" {
		p, err := projectHere(c, cwd)
		if err != nil {
			return err
		}
		opt.Only = func(root string) bool { return root == p.Root }
	}
	// Progress on a terminal, at most every half second.
	if !asJSON && hookio.IsTerminalOut(c.P.Stderr) {
		last := time.Time{}
		opt.Progress = func(done, total int) {
			if time.Since(last) < 500*time.Millisecond && done < total {
				return
			}
			last = time.Now()
			fmt.Fprintf(c.Stderr, "\rimport: %d of %d transcripts read…", done, total)
			if done == total {
				fmt.Fprint(c.Stderr, "\r\x1b[K")
			}
		}
	}
	rep, err := importer.Import(c, c.Env, opt)
	if err != nil {
		return err
	}
	// The sessions imported are indexed for search now, so that no prompt
	// waits for it later.
	indexed := 0
	if !dryRun {
		for _, root := range rep.Projects {
			p := store.ProjectAt(c.Env, root)
			ir, err := search.Refresh(c, c.Env, search.ScopeOf(&p, false))
			if err != nil {
				return fmt.Errorf("indexing %s for search: %w", c.Env.Tilde(root), err)
			}
			indexed += ir.Built
		}
	}
	if asJSON {
		return c.PrintJSON(struct {
			importer.ImportReport
			Indexed int `json:"indexed"`
		}{rep, indexed})
	}
	printImport(c, rep, dryRun)
	return nil
}

// runEndTurn brings one opencode session's record up to date.
func runEndTurn(c *command.Ctx, sid string, asJSON bool) error {
	rep, err := importer.EndOpencodeTurn(c, c.Env, sid, proc.Claude(c.P.Getenv))
	if err != nil {
		return err
	}
	if asJSON {
		return c.PrintJSON(rep)
	}
	fmt.Fprintf(c.Stdout, "recorded opencode session %s: %s in %s\n", rep.Session, textfmt.Plural(rep.Turns, "turn", "turns"), c.Env.Tilde(rep.Project))
	return nil
}

// printImport says what an import did, for people.
func printImport(c *command.Ctx, rep importer.ImportReport, dryRun bool) {
	verb := "imported"
	if dryRun {
		verb = "would import"
		fmt.Fprintln(c.Stdout, "dry run: nothing was written")
	}
	fmt.Fprintf(c.Stdout, "%s %s into %s", verb, textfmt.Plural(rep.Imported, "session", "sessions"), textfmt.Plural(len(rep.Projects), "project", "projects"))
	if rep.Automated > 0 {
		fmt.Fprintf(c.Stdout, " (%s kept out of the menus)", textfmt.Plural(rep.Automated, "automated run", "automated runs"))
	}
	fmt.Fprintf(c.Stdout, "; %d already recorded, %d left out\n", rep.Known, rep.Empty)
	for _, d := range rep.Dropped {
		fmt.Fprintf(c.Stdout, "  left out: %s: %s\n", textfmt.Plural(d.N, d.Agent+" session", d.Agent+" sessions"), d.Cause)
	}
	if rep.Refreshed > 0 {
		fmt.Fprintf(c.Stdout, "brought %s that went on since up to date\n", textfmt.Plural(rep.Refreshed, "imported session", "imported sessions"))
	}
	if rep.Recent > 0 {
		fmt.Fprintf(c.Stdout, "%s written to in the last 30 minutes (possibly still going): imported as %s now, and brought up to date in the background until %s ends\n",
			textfmt.Plural(rep.Recent, "session", "sessions"), map[bool]string{true: "it is", false: "they are"}[rep.Recent == 1], map[bool]string{true: "it", false: "each"}[rep.Recent == 1])
	}
	if rep.Settled > 0 {
		fmt.Fprintf(c.Stdout, "%s that had ended archived first\n", textfmt.Plural(rep.Settled, "recorded session", "recorded sessions"))
	}
	for _, p := range rep.Projects {
		fmt.Fprintf(c.Stdout, "  %s\n", c.Env.Tilde(p))
	}
	for _, f := range rep.Failed {
		fmt.Fprintf(c.Stderr, "ccmem: warning: %s\n", f)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(c.Stdout, "note: %s\n", n)
	}
	if rep.Left > 0 {
		fmt.Fprintf(c.Stdout, "%s left: run ccmem import again to go on\n", textfmt.Plural(rep.Left, "transcript", "transcripts"))
	}
}

// importable counts the transcripts an import would read, for install's
// offer.
func importable(e store.Env) int {
	n, _ := importer.CountUnrecorded(e)
	return n
}
