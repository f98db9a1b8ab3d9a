package cli

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdShow = &command.Command{
	Name: "show", Args: "[--cwd DIR] [--source SOURCE] [--json] | --recall PROMPT [--cwd DIR] [--json]",
	Summary: "print the block sessionstart would inject, or what a prompt would recall, and why",
	Help: `Prints exactly the memory block that the sessionstart hook would inject for a
session starting in DIR (default: the current directory), then, per section,
the lines shown of the lines available, the section's cap, its size in
characters, the characters its share guarantees it (shares in config: a
section needing less leaves the rest to the others), what was cut and why,
and the total against budget_chars.

It composes as the next session start will: sessions that have ended but
are not yet archived are shown as the episodes that start will archive
(nothing is written).

With --recall PROMPT it prints instead what the userpromptsubmit hook would
add to PROMPT typed as the first prompt of a new session in DIR (after that
session's start-up block, whose memories recall does not repeat), then why:
each word of the prompt with its weight in this memory, the sessions that
hold it and whether it counts (small talk, request words and words most of
your sessions hold do not), the first hits of ccmem search for the prompt
with what each holds of it, and, when nothing is recalled, the reason.
Recall gives the model search's first hit and the ones after it that clear
the bar, or nothing.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := command.CwdFlag(fs)
		source := fs.String("source", "startup", "the session start `reason`: startup, resume, clear or compact")
		prompt := fs.String("recall", "", "show what `PROMPT` would recall, and why")
		asJSON := fs.Bool("json", false, "print the block and its report as JSON")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			if err := command.OneOf(fs, "source", *source, "startup", "resume", "clear", "compact"); err != nil {
				return err
			}
			if err := command.Exclusive(fs, "recall", "source"); err != nil {
				return err
			}
			if command.Set(fs, "recall") {
				if strings.TrimSpace(*prompt) == "" {
					return command.Usagef("ccmem show --recall \"what port does staging use?\"", "--recall needs a prompt")
				}
				return runShowRecall(c, *cwd, *prompt, *asJSON)
			}
			return runShow(c, *cwd, *source, *asJSON)
		}
	},
}

func runShowRecall(c *command.Ctx, cwd, prompt string, asJSON bool) error {
	dir, err := startDir(cwd)
	if err != nil {
		return err
	}
	ex, err := memory.ExplainPrompt(c, c.Env, dir, prompt)
	if err != nil {
		return err
	}
	if asJSON {
		return c.PrintJSON(ex)
	}
	if ex.Context != "" {
		fmt.Fprintln(c.Stdout, ex.Context)
	} else {
		fmt.Fprintf(c.Stdout, "(nothing would be recalled: %s)\n", ex.Silent)
	}
	if ex.Disabled {
		return nil
	}
	if ex.Shown > 0 {
		fmt.Fprintf(c.Stdout, "(the start-up block shows %s: recall does not repeat them)\n", textfmt.Plural(ex.Shown, "memory", "memories"))
	}
	fmt.Fprintln(c.Stdout)
	// A word weighs by how many sessions hold it in a session, and by how
	// many other memories do in one of those: the columns of a kind this
	// memory has none of are left out.
	if ex.Sessions+ex.Others > 0 {
		fmt.Fprintf(c.Stdout, "── the prompt's words, as recall weighs them (searched: %s and %s) ──\n",
			textfmt.Plural(ex.Sessions, "session", "sessions"), textfmt.Plural(ex.Others, "other memory", "other memories"))
	} else {
		fmt.Fprintln(c.Stdout, "── the prompt's words (no memory was searched) ──")
	}
	tw := command.NewTable(c.Stdout)
	head := []any{"word"}
	if ex.Sessions > 0 {
		head = append(head, "in a session", "sessions")
	}
	if ex.Others > 0 {
		head = append(head, "in another memory", "memories")
	}
	tw.Row(append(head, "counts toward the bar")...)
	for _, t := range ex.Terms {
		name := t.Term
		switch {
		case strings.HasPrefix(name, "@day:"):
			name = "the day " + strings.TrimPrefix(name, "@day:")
		case strings.HasPrefix(name, "@month:"):
			name = "the month " + strings.TrimPrefix(name, "@month:")
		}
		if t.Related {
			name += " (related)"
		}
		counts := "yes"
		if t.Weak != "" {
			counts = "no: " + t.Weak
		}
		row := []any{textfmt.Line(name)}
		if ex.Sessions > 0 {
			row = append(row, fmt.Sprintf("%.2f", t.Weight), t.In)
		}
		if ex.Others > 0 {
			row = append(row, fmt.Sprintf("%.2f", t.LineWeight), t.InOther)
		}
		tw.Row(append(row, counts)...)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(ex.Ranked) == 0 {
		return nil
	}
	fmt.Fprintln(c.Stdout)
	fmt.Fprintln(c.Stdout, "── ccmem search's first hits for it ──")
	tw = command.NewTable(c.Stdout)
	tw.Row("#", "holds", "share", "score", "recalled", "memory")
	for i, h := range ex.Ranked {
		verdict := "yes"
		if i < len(ex.Verdicts) && ex.Verdicts[i] != "" {
			verdict = "no: " + ex.Verdicts[i]
		}
		what := h.Title
		if !h.Time.IsZero() {
			what = h.Time.UTC().Format("2006-01-02") + " " + what
		}
		if h.Turn > 0 {
			what += fmt.Sprintf(" (turn %d)", h.Turn)
		}
		tw.Row(i+1, fmt.Sprintf("%.2f", h.Evidence), fmt.Sprintf("%.0f%%", 100*h.Share), fmt.Sprintf("%.2f", h.Score), verdict, textfmt.Line(textfmt.Shorten(what, 70)))
	}
	return tw.Flush()
}

func runShow(c *command.Ctx, cwd, source string, asJSON bool) error {
	dir, err := startDir(cwd)
	if err != nil {
		return err
	}
	inj := memory.Compose(c, c.Env, memory.StartRequest{Cwd: dir, Source: source, CCMem: func() string {
		exe, _ := os.Executable()
		return claudecode.CommandFor(exe)
	}})
	if asJSON {
		return c.PrintJSON(struct {
			Disabled bool           `json:"disabled"`
			Project  *store.Project `json:"project"`
			Block    any            `json:"block"`
			Warnings []string       `json:"warnings"`
		}{inj.Disabled, inj.Project, inj.Block, orEmpty(inj.Warnings)})
	}
	for _, w := range inj.Warnings {
		fmt.Fprintf(c.Stderr, "ccmem: warning: %s\n", w)
	}
	if inj.Disabled {
		by := "config"
		if inj.Project != nil {
			by = c.Env.Tilde(config.EnabledSource(c.Env, inj.Project.Root, inj.Project.Key))
		}
		fmt.Fprintf(c.Stdout, "ccmem is disabled for this project by %s (enabled: false); nothing would be injected.\n", by)
		return nil
	}
	b := inj.Block
	fmt.Fprintln(c.Stdout, b.Text)
	fmt.Fprintln(c.Stdout)
	where := "no project (global memory only)"
	if inj.Project != nil {
		where = fmt.Sprintf("%s (key %s)", c.Env.Tilde(inj.Project.Root), inj.Project.Key)
	}
	fmt.Fprintf(c.Stdout, "── injected for %s ──\n", where)
	tw := command.NewTable(c.Stdout)
	tw.Row("section", "lines", "cap", "chars", "guaranteed", "cut")
	rest := b.Chars
	for _, s := range b.Sections {
		rest -= s.Chars
	}
	tw.Row("preamble", "", "", rest, "", "")
	for _, s := range b.Sections {
		cut := ""
		if hidden := s.Total - s.Shown; hidden > 0 {
			reason := map[string]string{"cap": "over cap", "budget": "over budget"}[s.Cut]
			cut = fmt.Sprintf("%s (%s)", textfmt.Plural(hidden, "line", "lines"), reason)
		}
		name := s.Name
		if s.Full {
			name += " (with bodies)"
		}
		tw.Row(name, fmt.Sprintf("%d/%d", s.Shown, s.Total), s.Cap, s.Chars, s.Guaranteed, cut)
	}
	tw.Row("total", "", "", b.Chars, fmt.Sprintf("of %d", b.Budget), "(budget_chars)")
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(c.Stdout, useLine(session.ReadUse(c.Env)))
	return nil
}

// useLine says what this machine's sessions did with what per-prompt
// recall gave them (see checkpoint.Use).
func useLine(u session.UseStats) string {
	if u.Sessions == 0 {
		return "recall's use: no finished session was given anything yet"
	}
	part := func(kind, what string) string {
		if u.Given[kind] == 0 {
			return "no " + what + " given"
		}
		return fmt.Sprintf("%s used in %d of %d (%.0f%%)", what, u.Used[kind], u.Given[kind], 100*u.Rate(kind))
	}
	line := fmt.Sprintf("recall's use, over %s it spoke in: %s; %s", textfmt.Plural(u.Sessions, "session", "sessions"),
		part(session.GivenPassage, "passages"), part(session.GivenPointer, "one-line pointers"))
	if u.PointerShift != 0 {
		line += fmt.Sprintf(" (pointers now need %+.0f%% of the bar, by that use)", 100*u.PointerShift)
	}
	return line + "; the start-up block's lines are not measured"
}

var cmdPaths = &command.Command{
	Name: "paths", Args: "[--cwd DIR] [--json] [NAME]",
	Summary: "print where ccmem keeps memory for a directory",
	Help: `Prints the store, the global MEMORY.md, the project's identity and key, and
the project's files (briefing, episode index, repository memory, config).
With NAME (such as project_dir or briefing), prints only that path, for
scripts. Nothing is created.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := command.CwdFlag(fs)
		asJSON := fs.Bool("json", false, "print as JSON")
		return func(c *command.Ctx, args []string) error {
			if len(args) > 1 {
				return command.NoArgs(fs, args[1:])
			}
			return runPaths(c, *cwd, *asJSON, args)
		}
	},
}

// namedPath is one row of `ccmem paths`.
type namedPath struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// layout lists where memory lives for a project, as `ccmem paths` shows it.
func layout(e store.Env, p store.Project) []namedPath {
	return []namedPath{
		{"store", e.Store},
		{"global_memory", e.GlobalMemory()},
		{"global_config", e.GlobalConfig()},
		{"learned", e.LearnedDir()},
		{"project_root", p.Root},
		{"project_key", p.Key},
		{"project_dir", e.ProjectDir(p.Key)},
		{"briefing", e.BriefingPath(p.Key)},
		{"episode_index", e.IndexPath(p.Key)},
		{"repo_memory", store.RepoMemory(p.Root)},
		{"repo_config", store.RepoConfig(p.Root)},
		{"silos", e.SilosDir()},
		{"settings", e.Settings()},
	}
}

func runPaths(c *command.Ctx, cwd string, asJSON bool, names []string) error {
	p, err := projectHere(c, cwd)
	if err != nil {
		return err
	}
	rows := layout(c.Env, p)
	if len(names) == 1 {
		for _, r := range rows {
			if r.Name == names[0] {
				fmt.Fprintln(c.Stdout, r.Path)
				return nil
			}
		}
		all := make([]string, len(rows))
		for i, r := range rows {
			all[i] = r.Name
		}
		return command.Usagef("names: "+strings.Join(all, ", "), "unknown path name %q", names[0])
	}
	if asJSON {
		m := map[string]any{}
		for _, r := range rows {
			m[r.Name] = r.Path
		}
		m["git"] = p.Git
		m["remote"] = p.Remote
		return c.PrintJSON(m)
	}
	tw := command.NewTable(c.Stdout)
	for _, r := range rows {
		tw.Row(r.Name, r.Path)
	}
	return tw.Flush()
}
