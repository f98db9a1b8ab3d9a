package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/store"
)

var cmdForget = &command.Command{
	Name: "forget", Args: "--reason WHY [--yes] [--global | --project] [--cwd DIR] [--json] FACT… | TYPE/NAME | CATEGORY/ID | --restore FACT…",
	Summary: "move a fact, a learned entry or a record to the archive, with the reason (nothing is deleted)",
	Help: `Forgotten memory is no longer injected or recalled, and nothing is
deleted: it moves to an archive, with the date and --reason.

- FACT…: the bullet of a MEMORY.md whose words are FACT (or contain it;
  any case or spacing). Without --global or --project both your global
  MEMORY.md and, in a repository, the project's are searched. It moves to
  archive/MEMORY.md beside it (for the project's, committed with the
  repository), with a topic file it links to. When several facts match,
  they are listed and nothing changes: say more of the fact. When the
  one fact that matches holds FACT only in part, ccmem asks first (at a
  terminal; elsewhere it says so and changes nothing; --yes forgets it).
  --restore FACT… puts a forgotten fact back under the section it was
  forgotten from.
- TYPE/NAME: the learned entry learned/TYPE/NAME.md (user, feedback,
  project or reference), which moves to the store's archive/TYPE/.
- CATEGORY/ID: the project record, archived as ` + "`ccmem record archive`" + ` does.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		reason := fs.String("reason", "", "`why` it is forgotten, kept in the archive (required)")
		global := fs.Bool("global", false, "only your global MEMORY.md")
		project := fs.Bool("project", false, "only the project's MEMORY.md")
		cwd := command.CwdFlag(fs)
		asJSON := fs.Bool("json", false, "print the result as JSON")
		yes := fs.Bool("yes", false, "forget the one fact that matches even when it holds FACT only in part")
		restore := fs.Bool("restore", false, "put the forgotten fact FACT… back where it was")
		return func(c *command.Ctx, args []string) error {
			if err := command.Exclusive(fs, "global", "project"); err != nil {
				return err
			}
			if len(args) == 0 {
				return command.Usagef(`for example: ccmem forget --reason "we moved to Kafka" use Postgres for the queue`, "forget needs what to forget")
			}
			if *restore {
				return restoreFact(c, forgetArgs{what: strings.Join(args, " "), global: *global, project: *project, cwd: *cwd, asJSON: *asJSON})
			}
			if strings.TrimSpace(*reason) == "" {
				return command.Usagef(`add --reason "…": the archive keeps why`, "forget needs --reason")
			}
			return runForget(c, forgetArgs{strings.Join(args, " "), *reason, *global, *project, *cwd, *asJSON, len(args) == 1, *yes})
		}
	},
}

type forgetArgs struct {
	what, reason      string
	global, project   bool
	cwd               string
	asJSON, singleArg bool
	yes               bool
}

func runForget(c *command.Ctx, a forgetArgs) error {
	if kind, rest, ok := strings.Cut(a.what, "/"); ok && a.singleArg && !strings.ContainsAny(a.what, " \t") {
		kind = strings.TrimPrefix(kind, "learned/")
		if t, name, ok := strings.Cut(strings.TrimPrefix(a.what, "learned/"), "/"); ok && slices.Contains(learn.Types, t) {
			return forgetEntry(c, t, name, a)
		}
		if slices.Contains(records.Categories, kind) {
			return forgetRecord(c, kind, rest, a)
		}
	}
	return forgetFact(c, a)
}

func forgetEntry(c *command.Ctx, typ, name string, a forgetArgs) error {
	dest, err := learn.Forget(c.Env, typ, name, "forgotten: "+a.reason)
	if errors.Is(err, learn.ErrNoEntry) {
		return command.WithHint(err, "`ccmem show` lists the learned entries sessions get")
	}
	if err != nil {
		return err
	}
	if a.asJSON {
		return c.PrintJSON(map[string]string{"forgot": typ + "/" + name, "archive": dest})
	}
	fmt.Fprintf(c.Stdout, "forgot %s/%s: moved to %s\n", typ, name, c.Env.Tilde(dest))
	return nil
}

func forgetRecord(c *command.Ctx, category, id string, a forgetArgs) error {
	dir, err := startDir(a.cwd)
	if err != nil {
		return err
	}
	s, err := records.Open(c.Env, dir)
	if err != nil {
		return err
	}
	f, err := s.SetStatus(category, id, records.StatusArchived, a.reason)
	if err != nil {
		return recordError(err)
	}
	if a.asJSON {
		return c.PrintJSON(map[string]string{"forgot": category + "/" + id, "archive": f.Path})
	}
	fmt.Fprintf(c.Stdout, "forgot %s/%s: archived in %s (kept for good, never injected; `ccmem record restore %s/%s` brings it back)\n",
		category, id, c.Env.Tilde(f.Path), category, id)
	return nil
}

// place is a MEMORY.md a fact may be in: global, or a project's.
type place struct {
	scope notes.Scope
	p     store.Project
}

// factPlaces are the MEMORY.md files a forget looks in.
func factPlaces(c *command.Ctx, a forgetArgs) ([]place, error) {
	var places []place
	var p store.Project
	var perr error
	if !a.global {
		p, perr = projectHere(c, a.cwd)
		if a.project && perr != nil {
			return nil, perr
		}
	}
	if !a.project {
		places = append(places, place{notes.Global, store.Project{}})
	}
	if !a.global && perr == nil && (p.Git || a.project) {
		places = append(places, place{notes.Project, p})
	}
	return places, nil
}

// restoreFact puts a forgotten fact back where it was.
func restoreFact(c *command.Ctx, a forgetArgs) error {
	places, err := factPlaces(c, a)
	if err != nil {
		return err
	}
	var lastErr error
	for _, pl := range places {
		res, err := notes.Restore(c.Env, pl.scope, pl.p, a.what)
		var amb *notes.AmbiguousError
		switch {
		case errors.As(err, &amb):
			return ambiguous(c, a.what, amb.Matches)
		case errors.Is(err, notes.ErrNoFact):
			lastErr = err
			continue
		case err != nil:
			return err
		}
		if a.asJSON {
			return c.PrintJSON(map[string]string{"restored": res.Text, "to": res.Path, "topic": res.Topic})
		}
		fmt.Fprintf(c.Stdout, "restored \"%s\" under \"## %s\" in %s\n", res.Text, res.Topic, c.Env.Tilde(res.Path))
		return nil
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("no forgotten fact matches %q", a.what)
	}
	return command.WithHint(lastErr, "the archive lists what was forgotten: ~/.claude/ccmem/archive/MEMORY.md, or the repository's .claude/memory/archive/MEMORY.md")
}

func forgetFact(c *command.Ctx, a forgetArgs) error {
	var places []place
	places, err := factPlaces(c, a)
	if err != nil {
		return err
	}
	// Look first, then forget in the one place that holds the fact.
	var found []notes.Match
	var at place
	for _, pl := range places {
		ms, err := notes.Matches(c.Env, pl.scope, pl.p, a.what)
		if err != nil {
			if errors.Is(err, notes.ErrNoRepository) {
				return command.WithHint(err, "run it inside the repository (or name it with --cwd DIR)")
			}
			return err
		}
		if len(ms) > 0 {
			at = pl
		}
		found = append(found, ms...)
	}
	switch {
	case len(found) == 0:
		var where []string
		for _, pl := range places {
			path, _, _ := notes.Target(c.Env, pl.scope, pl.p)
			where = append(where, c.Env.Tilde(path))
		}
		return command.WithHint(fmt.Errorf("no fact matches %q in %s", a.what, strings.Join(where, " or ")), "`ccmem show` prints the facts sessions get")
	case len(found) > 1:
		return ambiguous(c, a.what, found)
	case !found[0].Whole(a.what) && !a.yes:
		// "payment" is a word of the fact, not the fact: ask first.
		m := found[0]
		if !hookio.IsTerminal(c.P.Stdin) {
			fmt.Fprintf(c.Stderr, "ccmem: %q is only part of the fact %q (%s:%d); nothing was forgotten\n", a.what, m.Text, c.Env.Tilde(m.Path), m.Line)
			return command.WithHint(errors.New("forget it by its whole text, or add --yes"), "ccmem forget --reason \""+a.reason+"\" \""+m.Text+"\"")
		}
		fmt.Fprintf(c.Stdout, "forget %q (%s:%d)? [y/N] ", m.Text, c.Env.Tilde(m.Path), m.Line)
		line, _ := bufio.NewReader(c.P.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(c.Stdout, "nothing was forgotten")
			return nil
		}
	}
	res, err := notes.Forget(c.Env, at.scope, at.p, a.what, a.reason)
	var amb *notes.AmbiguousError
	if errors.As(err, &amb) {
		return ambiguous(c, a.what, amb.Matches)
	}
	if err != nil {
		return err
	}
	if a.asJSON {
		return c.PrintJSON(res)
	}
	fmt.Fprintf(c.Stdout, "forgot \"%s\" (under \"## %s\" in %s): moved to %s\n", res.Text, res.Topic, c.Env.Tilde(res.Path), c.Env.Tilde(res.Archive))
	for _, m := range res.Moved {
		fmt.Fprintf(c.Stdout, "moved the topic file it links to: %s\n", c.Env.Tilde(m))
	}
	return nil
}

// ambiguous lists the facts that match and changes nothing.
func ambiguous(c *command.Ctx, query string, ms []notes.Match) error {
	fmt.Fprintf(c.Stderr, "ccmem: %d facts match %q; nothing was forgotten:\n", len(ms), query)
	for _, m := range ms {
		fmt.Fprintf(c.Stderr, "  %s:%d  %s\n", c.Env.Tilde(m.Path), m.Line, m.Text)
	}
	return command.WithHint(errors.New("say more of the fact, so that one matches"), "quote it whole: ccmem forget --reason \"…\" \""+ms[0].Text+"\"")
}
