package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/profiles"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdProfile = &command.Command{
	Name: "profile", Args: "[list] | show SKILL | draft SKILL [--write] | set SKILL [--input FILE|-] | edit SKILL",
	Summary: "skill profiles: what a session is told when it runs a skill in this project",
	Help: `A skill profile is a short note — at most 30 lines — about how a
skill is used in one project: what it is for here, what to watch for, what
earlier runs found. When the model runs the skill (Claude Code's Skill
tool), the pretooluse hook gives it the profile, once a session. Profiles
live in the store, private: ~/.claude/ccmem/projects/<key>/profiles/.

- list (the default): the project's profiles, and the skills its sessions
  ran (from the episodes' skills_used)
- show SKILL: print one, and the sessions that ran the skill
- draft SKILL: draft one from the sessions that ran the skill (their
  runs, the commands and files they share, what failed and what fixed
  it), for you to review; --write saves it as the profile when the skill
  has none yet
- set SKILL: replace it with --input FILE (or standard input)
- edit SKILL: open it in your editor`,
	Subs: []*command.Command{cmdProfileShow, cmdProfileDraft, cmdProfileSet, cmdProfileEdit},
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := command.CwdFlag(fs)
		asJSON := fs.Bool("json", false, "print the list as JSON")
		return func(c *command.Ctx, args []string) error {
			if len(args) > 0 && args[0] == "list" {
				args = args[1:]
			}
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			return listProfiles(c, *cwd, *asJSON)
		}
	},
}

type profileRow struct {
	Skill string `json:"skill"`
	Path  string `json:"path,omitempty"`
	Lines int    `json:"lines"`
	// Runs is how many of the project's sessions ran the skill.
	Runs int `json:"runs"`
}

// skillRuns counts the project's sessions that ran each skill, and lists
// them, newest first.
func skillRuns(c *command.Ctx, key string) map[string][]string {
	eps, _ := session.AllEpisodes(c.Env, key)
	runs := map[string][]string{}
	for _, f := range eps {
		for _, sk := range f.Record.SkillsUsed {
			t := f.Record.Title
			if t == "" {
				t = f.Record.Goal
			}
			when := f.Record.StartedAt
			if len(when) >= 10 {
				when = when[:10]
			}
			runs[sk] = append(runs[sk], fmt.Sprintf("%s %q — %s", when, textfmt.Shorten(t, 60), c.Env.Tilde(f.Path)))
		}
	}
	return runs
}

func listProfiles(c *command.Ctx, cwd string, asJSON bool) error {
	p, err := projectHere(c, cwd)
	if err != nil {
		return err
	}
	rows := map[string]*profileRow{}
	ents, err := store.ReadDirIn(c.Env.ProjectDir(p.Key), c.Env.ProfilesDir(p.Key))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, de := range ents {
		n := de.Name()
		if !strings.HasSuffix(n, ".md") || strings.HasPrefix(n, ".") {
			continue
		}
		skill := strings.TrimSuffix(n, ".md")
		r := &profileRow{Skill: skill, Path: c.Env.ProfilePath(p.Key, skill)}
		if h, err := store.ReadHeadIn(c.Env.ProjectDir(p.Key), r.Path, store.Limits{Lines: 1000, Chars: 1 << 20}); err == nil {
			r.Lines = len(h.Lines)
		}
		rows[skill] = r
	}
	for sk, list := range skillRuns(c, p.Key) {
		if rows[sk] == nil {
			rows[sk] = &profileRow{Skill: sk}
		}
		rows[sk].Runs = len(list)
	}
	var out []profileRow
	for _, r := range rows {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b profileRow) int { return strings.Compare(a.Skill, b.Skill) })
	if asJSON {
		if out == nil {
			out = []profileRow{}
		}
		return c.PrintJSON(out)
	}
	if len(out) == 0 {
		fmt.Fprintf(c.Stdout, "no skill profiles for %s, and no session ran a skill yet\n", c.Env.Tilde(p.Root))
		return nil
	}
	tw := command.NewTable(c.Stdout)
	tw.Row("skill", "profile", "sessions that ran it")
	for _, r := range out {
		prof := "none: `ccmem profile edit " + r.Skill + "`"
		if r.Path != "" {
			prof = textfmt.Plural(r.Lines, "line", "lines")
		}
		tw.Row(r.Skill, prof, r.Runs)
	}
	return tw.Flush()
}

// skillArg reads the one SKILL argument of a sub-command.
func skillArg(fs *flag.FlagSet, args []string) (string, error) {
	if len(args) == 0 {
		return "", command.Usagef("name the skill, as the Skill tool does", "%s needs a skill", strings.TrimPrefix(fs.Name(), "ccmem "))
	}
	if err := command.NoArgs(fs, args[1:]); err != nil {
		return "", err
	}
	if strings.TrimSpace(args[0]) == "" || len(args[0]) > 120 {
		return "", command.Usagef("", "bad skill name %q", args[0])
	}
	return args[0], nil
}

var cmdProfileShow = &command.Command{
	Name: "show", Args: "SKILL [--cwd DIR]",
	Summary: "print a skill's profile and the sessions that ran it",
	Setup: func(flags *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := command.CwdFlag(flags)
		return func(c *command.Ctx, args []string) error {
			skill, err := skillArg(flags, args)
			if err != nil {
				return err
			}
			p, err := projectHere(c, *cwd)
			if err != nil {
				return err
			}
			path := c.Env.ProfilePath(p.Key, skill)
			data, err := store.ReadFileIn(c.Env.ProjectDir(p.Key), path, 1<<20)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				fmt.Fprintf(c.Stdout, "# no profile for %q in %s (`ccmem profile edit %s` writes one)\n", skill, c.Env.Tilde(p.Root), skill)
			case err != nil:
				return err
			default:
				fmt.Fprintf(c.Stdout, "# %s\n%s", c.Env.Tilde(path), data)
				if len(data) > 0 && data[len(data)-1] != '\n' {
					fmt.Fprintln(c.Stdout)
				}
			}
			if runs := skillRuns(c, p.Key)[skill]; len(runs) > 0 {
				fmt.Fprintf(c.Stdout, "# sessions that ran it (%d):\n", len(runs))
				for _, r := range runs[:min(10, len(runs))] {
					fmt.Fprintf(c.Stdout, "#   %s\n", textfmt.Line(r))
				}
			}
			return nil
		}
	},
}

var cmdProfileDraft = &command.Command{
	Name: "draft", Args: "SKILL [--write] [--cwd DIR] [--json]",
	Summary: "draft a skill's profile from the sessions that ran it, for review",
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := command.CwdFlag(fs)
		write := fs.Bool("write", false, "save the draft as the profile (only when the skill has none yet)")
		asJSON := fs.Bool("json", false, "print the draft as JSON")
		return func(c *command.Ctx, args []string) error {
			skill, err := skillArg(fs, args)
			if err != nil {
				return err
			}
			p, err := projectHere(c, *cwd)
			if err != nil {
				return err
			}
			eps, _ := session.AllEpisodes(c.Env, p.Key)
			draft, ran := notes.DraftProfile(skill, eps, 20)
			saved := ""
			if *write {
				if ran == 0 {
					return fmt.Errorf("no session of this project ran %q yet: there is nothing to draft its profile from", skill)
				}
				if profiles.Exists(c.Env, p.Key, skill) {
					return command.WithHint(fmt.Errorf("%q has a profile already; the draft was not saved over it", skill),
						"ccmem profile draft "+skill+" > draft.md, then merge what you want with `ccmem profile edit "+skill+"`")
				}
				if saved, _, err = profiles.Write(c.Env, p, skill, []byte(draft)); err != nil {
					return err
				}
			}
			if *asJSON {
				return c.PrintJSON(struct {
					Skill string `json:"skill"`
					Draft string `json:"draft"`
					Saved string `json:"saved,omitempty"`
				}{skill, draft, saved})
			}
			fmt.Fprint(c.Stdout, draft)
			if saved != "" {
				fmt.Fprintf(c.Stderr, "saved as the profile of %q: %s (a session that runs the skill is given it)\n", skill, c.Env.Tilde(saved))
			}
			return nil
		}
	},
}

var cmdProfileSet = &command.Command{
	Name: "set", Args: "SKILL [--input FILE|-] [--cwd DIR]",
	Summary: "replace a skill's profile",
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := command.CwdFlag(fs)
		input := fs.String("input", "-", "the profile: a `file`, or - for standard input")
		return func(c *command.Ctx, args []string) error {
			skill, err := skillArg(fs, args)
			if err != nil {
				return err
			}
			var data []byte
			if *input == "-" {
				data, err = io.ReadAll(io.LimitReader(c.P.Stdin, 1<<20))
			} else {
				data, err = os.ReadFile(*input)
			}
			if err != nil {
				return err
			}
			p, err := projectHere(c, *cwd)
			if err != nil {
				return err
			}
			path, lines, err := profiles.Write(c.Env, p, skill, data)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.Stdout, "profile of %q set (%s) in %s\n", skill, textfmt.Plural(lines, "line", "lines"), c.Env.Tilde(path))
			if lines > profiles.MaxLines {
				fmt.Fprintf(c.Stderr, "ccmem: warning: only the first %d lines are given when the skill runs\n", profiles.MaxLines)
			}
			return nil
		}
	},
}

var cmdProfileEdit = &command.Command{
	Name: "edit", Args: "SKILL [--cwd DIR]",
	Summary: "open a skill's profile in your editor",
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := command.CwdFlag(fs)
		return func(c *command.Ctx, args []string) error {
			skill, err := skillArg(fs, args)
			if err != nil {
				return err
			}
			p, err := projectHere(c, *cwd)
			if err != nil {
				return err
			}
			path := c.Env.ProfilePath(p.Key, skill)
			return runEdit(c, editable{path: path,
				read:  func() ([]byte, error) { return store.ReadFileIn(c.Env.ProjectDir(p.Key), path, 1<<20) },
				write: func(b []byte) error { _, _, err := profiles.Write(c.Env, p, skill, b); return err }})
		}
	},
}
