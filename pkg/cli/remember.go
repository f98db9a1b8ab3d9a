package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/pkg/memory"
)

func init() {
	register(&command{
		name: "remember", args: "[--global | --project] [--topic T] [--cwd DIR] TEXT…",
		summary: "add a fact as a bullet to the right MEMORY.md",
		help: `Adds TEXT as one bullet under the "## T" header (default: Notes) of a
MEMORY.md, creating the file and the header when needed. A fact already
there is not added twice. --global (the default) writes your private
~/.claude/ccmem/MEMORY.md, for every project; --project writes the
repository's .claude/memory/MEMORY.md, which is committed and shared with
the team. Secrets in TEXT are redacted.`,
		run: runRemember,
	})
}

func runRemember(c *ctx, args []string) error {
	fs := c.flags("remember")
	global := fs.Bool("global", false, "about you, for every project (the default)")
	project := fs.Bool("project", false, "about this project: committed and shared with the team")
	topic := fs.String("topic", memory.DefaultTopic, "the `header` to file the fact under")
	cwd := fs.String("cwd", "", "a `directory` of the project (default: the current one)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if *global && *project {
		return usagef("choose one scope", "--global and --project exclude each other")
	}
	text := strings.Join(pos, " ")
	if strings.TrimSpace(text) == "" {
		return usagef(`for example: ccmem remember --project --topic Build "make db-up before make test"`, "remember needs the fact to remember")
	}
	scope, root := "global", ""
	if *project {
		scope = "project"
		p, err := projectHere(c, *cwd)
		if err != nil {
			return err
		}
		root = p.Root
		// The repository's memory folder is shared: readable like the code.
		if err := os.MkdirAll(memory.RepoMemoryDir(root), 0o755); err != nil {
			return err
		}
	}
	path, err := c.env.RememberPath(scope, root)
	if err != nil {
		return err
	}
	res, err := memory.Remember(path, *topic, text)
	if err != nil {
		return err
	}
	if scope == "project" && res.Added {
		_ = os.Chmod(path, 0o644)
	}
	if *asJSON {
		return c.printJSON(res)
	}
	where := c.env.Tilde(path)
	if rel, err := filepath.Rel(root, path); scope == "project" && err == nil {
		where = rel + " (committed with the repository)"
	}
	switch {
	case !res.Added:
		fmt.Fprintf(c.out, "already remembered in %s\n", where)
	default:
		fmt.Fprintf(c.out, "remembered under \"## %s\" in %s\n", res.Topic, where)
	}
	if res.Redactions > 0 {
		fmt.Fprintf(c.err, "ccmem: warning: %d secret%s redacted from the fact\n", res.Redactions, map[bool]string{true: " was", false: "s were"}[res.Redactions == 1])
	}
	return nil
}
