package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdTriage = &command.Command{
	Name: "triage", Args: "[--all] [--sessions N] [--cwd DIR] [--json] | keep ID… [--title T] [--dry-run] | dismiss ID…|--all",
	Summary: "what recent sessions held worth keeping: keep each as a project record, or dismiss it",
	Help: `After each turn, ccmem notes what looks worth keeping in the session's record:
a decision with its reason, how an error was fixed, a constraint, work
deferred on purpose, a stated preference, or a long session's worth of
work (one of each kind a session). Nothing of it reaches a session until
you keep it. The next session start in the project says in one line that
something waits; this command lists what waits in the newest sessions
(--sessions, 200 by default; --all lists what you decided on too).

` + "`ccmem triage keep ID`" + ` saves one as a project record (in the repository's
.claude/memory/records/, shared with the team: check it holds no secret;
--dry-run prints the record without saving; --title names it).
` + "`ccmem triage dismiss ID`" + ` sets one aside (--all: everything listed). Turn the
noting off with triage.enabled: false; triage.ask_model: true also asks
the model to save the record itself.`,
	Subs: []*command.Command{cmdTriageKeep, cmdTriageDismiss},
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		o := addTriageFlags(fs)
		all := fs.Bool("all", false, "list the findings you kept or dismissed too")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			p, list, err := o.findings(c)
			if err != nil {
				return err
			}
			var shown []notes.Finding
			for _, f := range list {
				if *all || f.Decided == "" {
					shown = append(shown, f)
				}
			}
			if *o.asJSON {
				return c.PrintJSON(map[string]any{"project": p.Root, "findings": nonNil(shown)})
			}
			if len(shown) == 0 {
				fmt.Fprintf(c.Stdout, "nothing waits: the newest sessions of %s held nothing new worth keeping\n", c.Env.Tilde(p.Root))
				return nil
			}
			fmt.Fprintf(c.Stdout, "%s of %s may be worth keeping as project records:\n\n",
				textfmt.Plural(len(shown), "thing the newest sessions", "things the newest sessions"), c.Env.Tilde(p.Root))
			t := command.NewTable(c.Stdout)
			t.Row("ID", "KIND", "DAY", "STATE", "WHAT")
			for _, f := range shown {
				what := f.Excerpt
				if what == "" {
					what = "the work of the session"
				}
				state := f.Decided
				if state == "" {
					state = "waits"
				}
				t.Row(f.ID, strings.ReplaceAll(f.Category, "_", " "), f.Day, state,
					textfmt.Shorten(what, 100)+" — in "+fmt.Sprintf("%q", textfmt.Shorten(f.Title, 50)))
			}
			if err := t.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(c.Stdout, "\n`ccmem triage keep ID` saves one as a project record (`--dry-run` shows it first); `ccmem triage dismiss ID` sets it aside")
			return nil
		}
	},
}

var cmdTriageKeep = &command.Command{
	Name: "keep", Args: "ID… [--title T] [--dry-run] [--cwd DIR] [--json]",
	Summary: "save findings as project records",
	Help: `Saves each finding named (its ID from ` + "`ccmem triage`" + `) as a project record:
its words as the session said them, the files the session changed, and,
for a fix, the commands that fixed it. The record is committed with the
repository, so check it first (--dry-run prints it without saving); change
it later with ` + "`ccmem record update`" + `.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		o := addTriageFlags(fs)
		title := fs.String("title", "", "the record's `title` (one finding only)")
		dry := fs.Bool("dry-run", false, "print the records without saving them")
		return func(c *command.Ctx, args []string) error {
			if len(args) == 0 {
				return command.Usagef("`ccmem triage` lists the findings with their IDs", "triage keep needs an ID")
			}
			if *title != "" && len(args) > 1 {
				return command.Usagef("", "--title names one record: give one ID")
			}
			p, list, err := o.findings(c)
			if err != nil {
				return err
			}
			picked, err := pickFindings(list, args)
			if err != nil {
				return err
			}
			if *dry {
				// What record create would be given: the pipeline adds the rest.
				var out []map[string]any
				for _, f := range picked {
					r := notes.DraftRecord(f)
					if *title != "" {
						r.Title = *title
					}
					out = append(out, map[string]any{"id": f.ID, "category": r.Category, "title": r.Title, "tags": r.Tags,
						"related_files": nonNil(r.RelatedFiles), "content": r.Content})
				}
				return c.PrintJSON(out)
			}
			s, err := recordFlags{cwd: o.cwd, asJSON: o.asJSON}.open(c)
			if err != nil {
				return err
			}
			var kept []records.File
			for _, f := range picked {
				rf, err := notes.Keep(c.Env, p.Key, s, f, *title)
				if err != nil {
					return recordError(err)
				}
				kept = append(kept, rf)
				if !*o.asJSON {
					fmt.Fprintf(c.Stdout, "kept %s as %s/%s in %s\n", f.ID, rf.Record.Category, rf.Record.ID, c.Env.Tilde(rf.Path))
				}
			}
			if *o.asJSON {
				return c.PrintJSON(kept)
			}
			return nil
		}
	},
}

var cmdTriageDismiss = &command.Command{
	Name: "dismiss", Args: "ID…|--all [--cwd DIR] [--json]",
	Summary: "set findings aside: they are listed no more",
	Help: `Sets aside each finding named (its ID from ` + "`ccmem triage`" + `), or with --all every
one that waits: ` + "`ccmem triage`" + ` lists them no more (--all there shows them).
Nothing is deleted: the sessions' records keep what they said.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		o := addTriageFlags(fs)
		all := fs.Bool("all", false, "dismiss every finding that waits")
		return func(c *command.Ctx, args []string) error {
			if len(args) == 0 && !*all {
				return command.Usagef("`ccmem triage` lists the findings with their IDs", "triage dismiss needs an ID or --all")
			}
			if len(args) > 0 && *all {
				return command.Usagef("", "give IDs or --all, not both")
			}
			p, list, err := o.findings(c)
			if err != nil {
				return err
			}
			var picked []notes.Finding
			if *all {
				for _, f := range list {
					if f.Decided == "" {
						picked = append(picked, f)
					}
				}
			} else if picked, err = pickFindings(list, args); err != nil {
				return err
			}
			if err := notes.DismissFindings(c.Env, p.Key, picked); err != nil {
				return err
			}
			if *o.asJSON {
				return c.PrintJSON(map[string]any{"dismissed": nonNil(picked)})
			}
			fmt.Fprintf(c.Stdout, "dismissed %s\n", textfmt.Plural(len(picked), "finding", "findings"))
			return nil
		}
	},
}

// triageFlags are the flags every triage command has.
type triageFlags struct {
	cwd      *string
	asJSON   *bool
	sessions *int
}

func addTriageFlags(fs *flag.FlagSet) triageFlags {
	return triageFlags{
		cwd:      command.CwdFlag(fs),
		asJSON:   fs.Bool("json", false, "print JSON"),
		sessions: fs.Int("sessions", 200, "look in this many of the newest `sessions`"),
	}
}

// findings reads what triage noted in the project's newest sessions, those
// still running first.
func (o triageFlags) findings(c *command.Ctx) (store.Project, []notes.Finding, error) {
	if *o.sessions < 1 || *o.sessions > 100000 {
		return store.Project{}, nil, command.Usagef("", "--sessions must be between 1 and 100000, not %d", *o.sessions)
	}
	p, err := projectToRead(c, *o.cwd)
	if err != nil {
		return p, nil, err
	}
	live, problems := session.LiveSessions(c.Env, p.Key)
	eps, _, more := session.RecentEpisodes(c.Env, p.Key, *o.sessions)
	for _, pr := range append(problems, more...) {
		fmt.Fprintf(c.Stderr, "ccmem: warning: %s\n", pr)
	}
	return p, notes.Findings(c.Env, p.Key, p.Root, append(live, eps...)), nil
}

// pickFindings finds each ID (or a unique start of one, 4 characters or
// more) among the findings.
func pickFindings(list []notes.Finding, ids []string) ([]notes.Finding, error) {
	var out []notes.Finding
	for _, id := range ids {
		var match []notes.Finding
		for _, f := range list {
			if len(id) >= 4 && strings.HasPrefix(f.ID, strings.ToLower(id)) {
				match = append(match, f)
			}
		}
		switch len(match) {
		case 0:
			return nil, command.WithHint(fmt.Errorf("no finding %q in the newest sessions here", textfmt.Line(id)), "`ccmem triage --all` lists them with their IDs")
		case 1:
			out = append(out, match[0])
		default:
			return nil, command.WithHint(fmt.Errorf("%q names %d findings", textfmt.Line(id), len(match)), "give more of the ID")
		}
	}
	return out, nil
}

// nonNil is list, or an empty one: JSON prints [] rather than null.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
