package cli

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdRemember = &command.Command{
	Name: "remember", Args: "[--global | --project] [--topic T] [--cwd DIR] TEXT…",
	Summary: "add a fact as a bullet to the right MEMORY.md",
	Help: `Adds TEXT as one bullet under the "## T" header (default: Notes) of a
MEMORY.md, creating the file and the header when needed. A fact already
there is not added twice, and one whose words nearly all match a fact
there already is refused, naming it (look before you create): edit or
forget that one, or --force adds this anyway. It says which sessions will
see the fact, and warns when none will: a MEMORY.md past its share of the
start-up block keeps the fact but no session is shown it (the hint says
how to make room). --global (the default) writes your private
~/.claude/ccmem/MEMORY.md, for every project; --project writes the
repository's .claude/memory/MEMORY.md, which is committed and shared with
the team. Secrets in TEXT are redacted.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		fs.Bool("global", false, "about you, for every project (the default)")
		project := fs.Bool("project", false, "about this project: committed and shared with the team")
		topic := fs.String("topic", notes.DefaultTopic, "the `header` to file the fact under")
		cwd := command.CwdFlag(fs)
		asJSON := fs.Bool("json", false, "print the result as JSON")
		force := fs.Bool("force", false, "add the fact even when one nearly the same is there")
		return func(c *command.Ctx, args []string) error {
			if err := command.Exclusive(fs, "global", "project"); err != nil {
				return err
			}
			text := strings.Join(args, " ")
			if strings.TrimSpace(text) == "" {
				return command.Usagef(`for example: ccmem remember --project --topic Build "make db-up before make test"`, "remember needs the fact to remember")
			}
			return runRemember(c, *project, *topic, *cwd, text, *asJSON, *force)
		}
	},
}

func runRemember(c *command.Ctx, project bool, topic, cwd, text string, asJSON, force bool) error {
	scope, p := notes.Global, store.Project{}
	if project {
		scope = notes.Project
		var err error
		if p, err = projectHere(c, cwd); err != nil {
			return err
		}
	}
	root := p.Root
	// The person's own command: the fact is theirs (see provenance; the
	// slash commands never pre-approve it for the model, so a remember
	// the model proposes passes the client's permission prompt first).
	by := provenance.Origin{By: provenance.Person, Via: "cli", At: c.Env.Time()}
	res, err := notes.RememberWith(c.Env, scope, p, topic, text, notes.RememberOptions{Force: force, Origin: by})
	if errors.Is(err, notes.ErrSimilar) {
		return command.WithHint(detailed{codedError{err, "SIMILAR"}, map[string]any{"similar": res.Similar, "path": res.Path}},
			"`ccmem edit` opens the file; `ccmem remember --force` adds it anyway")
	}
	if errors.Is(err, notes.ErrNoRepository) {
		return command.WithHint(err, "run it inside the repository (or name it with --cwd DIR); --global keeps the fact for you, in every project")
	}
	if err != nil {
		return err
	}
	// Where the fact will be seen, and whether: a MEMORY.md past its
	// share of the start-up block keeps a fact no session is shown.
	dir, _ := startDir(cwd)
	vis := memory.Seen(c, c.Env, dir, res.Path, provenance.ShapeOf(res.Line).Text, scope == notes.Global)
	if asJSON {
		return c.PrintJSON(struct {
			notes.RememberResult
			Visibility memory.Visibility `json:"visibility"`
		}{res, vis})
	}
	where := c.Env.Tilde(res.Path)
	if rel, err := filepath.Rel(root, res.Path); scope == notes.Project && err == nil {
		where = rel + " (in the repository: the team reads it once you commit it)"
	}
	switch {
	case res.Confirmed:
		fmt.Fprintf(c.Stdout, "already in %s, not confirmed by you until now: yours now\n", where)
	case !res.Added:
		fmt.Fprintf(c.Stdout, "already remembered in %s\n", where)
	default:
		fmt.Fprintf(c.Stdout, "remembered under \"## %s\" in %s\n", res.Topic, where)
	}
	if vis.Shown {
		fmt.Fprintf(c.Stdout, "%s start with it\n", capitalize(vis.Where))
	} else {
		fmt.Fprintf(c.Stderr, "ccmem: warning: no session will see it: %s; %s\n", vis.Why, c.Env.Tilde(res.Path))
		fmt.Fprintf(c.Stderr, "hint: move a section of it into a topic file beside it (ccmem edit), leaving one line `- [Title](topic.md) — what it holds`; topic files are read when a prompt needs them\n")
	}
	if res.Redactions > 0 {
		fmt.Fprintf(c.Stderr, "ccmem: warning: %s redacted from the fact\n", textfmt.Plural(res.Redactions, "secret was", "secrets were"))
	}
	return nil
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
