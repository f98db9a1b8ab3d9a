package cli

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdSearch = &command.Command{
	Name: "search", Args: "[--kind K] [--limit N] [--all-projects] [--forgotten] [--cwd DIR] [--json] QUERY… | --index [--cwd DIR] [--json]",
	Summary: "find memory by its words, ranked: every kind, archived sessions too",
	Help: `Ranks this project's memory and the memory that applies to every
project by the words of QUERY (--all-projects: every project's memory,
as the search page of ccmem ui does): lines of the global and the
repository MEMORY.md and their topic files, learned entries, records, the
briefing, and sessions (archived ones too). Words are matched case-folded and lightly stemmed ("invoice" finds
"invoices"); a name, title or goal counts more than a description, and a
description more than a body. Chinese, Japanese and Korean are matched
by overlapping pairs of characters, so a word is found inside a sentence.
A session is found by what was said in it: its hit shows the date, the
project, the session's title, the file and turn, and the passage that
matched (ccmem's MCP get returns that turn with the turns around it).
Among near-equal matches the newer ranks first, and time words in QUERY
("yesterday", "last week", "in March", "上周") favour that span. Each other
hit shows the file to read (with its line for a line of a file). --kind limits the kinds (comma-separated):
` + strings.Join(search.Kinds, ", ") + `. --all-projects searches every
project in the store. Retired and archived records are forgotten: never
found or recalled unless --forgotten asks for them. No match says so on
stderr (--json prints []) and exits 0.

The index lives in ~/.claude/ccmem/search/; it is rebuilt wherever its
files changed, so it never answers from stale memory. --index brings up
to date the part a search here covers (with --all-projects, all of it)
and exits: a session start or a prompt that finds it stale runs it in
the background, and ccmem import when it ends, so that no prompt waits
for it (a prompt answers from the index there is).`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		kind := fs.String("kind", "", "only these `kinds`, comma-separated")
		limit := fs.Int("limit", 10, "the most `hits` to show")
		all := fs.Bool("all-projects", false, "search every project in the store")
		forgotten := fs.Bool("forgotten", false, "also retired and archived records")
		cwd := command.CwdFlag(fs)
		asJSON := fs.Bool("json", false, "print the hits as a JSON array")
		index := fs.Bool("index", false, "bring the search index up to date, and search nothing")
		return func(c *command.Ctx, args []string) error {
			if *index {
				if len(args) > 0 {
					return command.Usagef("ccmem search --index", "--index takes no query")
				}
				return runIndex(c, *cwd, *all, *asJSON)
			}
			query := strings.Join(args, " ")
			if strings.TrimSpace(query) == "" {
				return command.Usagef(`for example: ccmem search invoice export`, "search needs words to look for")
			}
			if *limit < 1 {
				return command.Usagef("", "--limit must be at least 1, not %d", *limit)
			}
			var kinds []string
			for _, k := range strings.Split(*kind, ",") {
				if k = strings.TrimSpace(k); k == "" {
					continue
				}
				if !contains(search.Kinds, k) {
					return command.Usagef("kinds: "+strings.Join(search.Kinds, ", "), "unknown kind %q", k)
				}
				kinds = append(kinds, k)
			}
			return runSearch(c, query, search.Options{Kinds: kinds, Limit: *limit, Scope: search.Scope{All: *all}, Forgotten: *forgotten}, *cwd, *asJSON)
		}
	},
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// searchScope is the scope of a search run in dir: its project, if any.
// A --cwd that names no folder is an error, not a search of nothing.
func searchScope(c *command.Ctx, cwd string, all bool) (search.Scope, error) {
	p, err := projectHere(c, cwd)
	if err == nil {
		return search.ScopeOf(&p, all), nil
	}
	if cwd != "" {
		return search.Scope{}, fmt.Errorf("--cwd %s: %w", cwd, err)
	}
	return search.ScopeOf(nil, all), nil
}

// runIndex brings the index of this project's scope up to date.
func runIndex(c *command.Ctx, cwd string, all, asJSON bool) error {
	sc, err := searchScope(c, cwd, all)
	if err != nil {
		return err
	}
	rep, err := search.Refresh(c, c.Env, sc)
	if err != nil {
		return err
	}
	if asJSON {
		return c.PrintJSON(rep)
	}
	fmt.Fprintf(c.Stdout, "search index: %d of %d files built (the others were current)\n", rep.Built, rep.Units)
	return nil
}

func runSearch(c *command.Ctx, query string, opt search.Options, cwd string, asJSON bool) error {
	sc, err := searchScope(c, cwd, opt.Scope.All)
	if err != nil {
		return err
	}
	opt.Scope = sc
	hits, err := search.Search(c, c.Env, query, opt)
	hits = search.WithAgents(hits)
	if err != nil {
		return err
	}
	names := projectNames{env: c.Env}
	for i := range hits {
		hits[i].Project = names.of(hits[i].Path)
	}
	if asJSON {
		return c.PrintJSON(orEmpty(hits))
	}
	if len(hits) == 0 {
		hint := "fewer or other words"
		if !opt.Scope.All {
			hint += ", or --all-projects to search every project"
		}
		fmt.Fprintf(c.Stderr, "ccmem: no memory matches %q (hint: %s)\n", query, hint)
		return nil
	}
	for i, h := range hits {
		if h.Kind == search.KindEpisode {
			// A session: when, which project, which session; then the
			// passage that matched, quoted around the query's words.
			head := []string{}
			if !h.Time.IsZero() {
				head = append(head, h.Time.Local().Format("2006-01-02"))
			}
			if h.Project != "" {
				head = append(head, h.Project)
			}
			head = append(head, strconv.Quote(textfmt.Line(h.Title)))
			if h.Agent != "" {
				head = append(head, "in "+h.Agent)
			}
			fmt.Fprintf(c.Stdout, "%2d. [%s] %s  (%.2f)\n    %s\n", i+1, h.Kind, strings.Join(head, " · "), h.Score, hitLocation(c.Env, h))
			if h.Snippet != "" {
				fmt.Fprintf(c.Stdout, "    %s\n", textfmt.Line(search.QuotePassage(h.Snippet, query, 240)))
			}
			continue
		}
		kind := h.Kind
		if h.Label != "" {
			kind += ": " + h.Label // who wrote it, when not you
		}
		fmt.Fprintf(c.Stdout, "%2d. [%s] %s  (%.2f)\n    %s\n", i+1, kind, textfmt.Line(h.Title), h.Score, hitLocation(c.Env, h))
		if h.Snippet != "" {
			fmt.Fprintf(c.Stdout, "    %s\n", textfmt.Line(h.Snippet))
		}
	}
	return nil
}

// projectNames names the projects of hits by their store folders, each
// read once.
type projectNames struct {
	env   store.Env
	names map[string]string
}

// of is the name of the project whose store folder holds path: the base
// name of its root ("" outside every project's folder).
func (p *projectNames) of(path string) string {
	key := p.env.ProjectKeyOf(path)
	if key == "" {
		return ""
	}
	if n, ok := p.names[key]; ok {
		return n
	}
	if p.names == nil {
		p.names = map[string]string{}
	}
	n := key
	if root := p.env.ProjectRoot(key); root != "" {
		n = filepath.Base(root)
	}
	p.names[key] = n
	return n
}

// hitLocation is where a hit is: its file, and line (for a passage of a
// session, its turn).
func hitLocation(e store.Env, h search.Hit) string {
	if h.Turn > 0 {
		return fmt.Sprintf("%s (turn %d)", e.Tilde(h.Path), h.Turn)
	}
	if h.Line > 0 {
		return fmt.Sprintf("%s:%d", e.Tilde(h.Path), h.Line)
	}
	return e.Tilde(h.Path)
}
