package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/store"
)

var cmdEdit = &command.Command{
	Name: "edit", Args: "[memory | project | briefing | config [--team | --global] | TYPE/NAME] [--cwd DIR]",
	Summary: "open a memory file in your editor ($VISUAL, $EDITOR), checked before it is saved",
	Help: `Opens a copy of the file in your editor and saves it back when you quit,
if it changed (and nothing else changed the file meanwhile):

- memory (the default): your global MEMORY.md
- project: the repository's .claude/memory/MEMORY.md (committed, shared)
- briefing: the project's briefing (the previous version is kept as
  briefing.md.1, as with ` + "`ccmem briefing --set`" + `)
- config: your own config for this project; --team the repository's
  committed one, --global the one for every project. A config with an
  error is not saved: your edit is kept and its path printed.
- TYPE/NAME: the learned entry learned/TYPE/NAME.md

Records change only through ` + "`ccmem record update`" + `, which validates them.
The editor is $VISUAL, else $EDITOR, else vi (notepad on Windows).`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		team := fs.Bool("team", false, "config: the repository's committed config, for everyone")
		global := fs.Bool("global", false, "config: the config for every project")
		cwd := command.CwdFlag(fs)
		return func(c *command.Ctx, args []string) error {
			if err := command.Exclusive(fs, "team", "global"); err != nil {
				return err
			}
			if len(args) > 1 {
				return command.Usagef("run `ccmem help edit`", "edit takes one file, not %d", len(args))
			}
			what := "memory"
			if len(args) == 1 {
				what = args[0]
			}
			if (*team || *global) && what != "config" {
				return command.Usagef("run `ccmem help edit`", "--team and --global choose a config: ccmem edit config --team")
			}
			scope := "personal"
			switch {
			case *team:
				scope = "team"
			case *global:
				scope = "global"
			}
			t, err := editTarget(c, what, scope, *cwd)
			if err != nil {
				return err
			}
			return runEdit(c, t)
		}
	},
}

// editable is a file ccmem edit opens: where it is, how it is read and
// written (the repository's files without following symlinks), and what
// must hold before it is saved.
type editable struct {
	path  string
	read  func() ([]byte, error)
	write func([]byte) error
	check func([]byte) error
	// saved, when set, runs after the file is saved (before, after: what
	// it held and holds).
	saved func(before, after []byte) error
}

func editTarget(c *command.Ctx, what, scope, cwd string) (editable, error) {
	e := c.Env
	inStore := func(path string) editable {
		return editable{path: path,
			read:  func() ([]byte, error) { return store.ReadSmallFile(path, 16<<20) },
			write: func(b []byte) error { return store.WriteFileAtomic(path, b) }}
	}
	inRepo := func(p store.Project, path string) editable {
		return editable{path: path,
			read:  func() ([]byte, error) { return store.ReadFileIn(p.Root, path, 16<<20) },
			write: func(b []byte) error { return store.WriteFileIn(p.Root, path, b) }}
	}
	repo := func() (store.Project, error) {
		p, err := projectHere(c, cwd)
		if err != nil {
			return p, err
		}
		if !p.Git {
			_, _, err := notes.Target(e, notes.Project, p)
			return p, command.WithHint(err, "run it inside the repository (or name it with --cwd DIR)")
		}
		return store.ClaimProject(e, p)
	}
	switch what {
	case "memory", "global":
		t := inStore(e.GlobalMemory())
		t.saved = func(before, after []byte) error { return attestEdit(e, t.path, before, after) }
		return t, nil
	case "project":
		p, err := repo()
		if err != nil {
			return editable{}, err
		}
		return inRepo(p, store.RepoMemory(p.Root)), nil
	case "briefing":
		p, err := projectHere(c, cwd)
		if err != nil {
			return editable{}, err
		}
		t := inStore(e.BriefingPath(p.Key))
		t.write = func(b []byte) error { _, err := notes.SetBriefing(e, p, string(b)); return err }
		return t, nil
	case "config":
		check := func(b []byte) error {
			_, files := config.Merge(func(string) ([]byte, error) { return b, nil }, "config.yaml")
			if err := files[0].Err; err != nil {
				return err
			}
			if probs := config.Problems(store.Env{}, files); len(probs) > 0 {
				return errors.New(strings.TrimPrefix(probs[0], "config.yaml: "))
			}
			return nil
		}
		var t editable
		switch scope {
		case "global":
			t = inStore(e.GlobalConfig())
		case "team":
			p, err := repo()
			if err != nil {
				return editable{}, err
			}
			t = inRepo(p, store.RepoConfig(p.Root))
		default:
			p, err := projectHere(c, cwd)
			if err != nil {
				return editable{}, err
			}
			if p, err = store.ClaimProject(e, p); err != nil {
				return editable{}, err
			}
			t = inStore(e.PersonalConfig(p.Key))
		}
		t.check = check
		return t, nil
	}
	if typ, name, ok := strings.Cut(strings.TrimPrefix(what, "learned/"), "/"); ok && slices.Contains(learn.Types, typ) {
		path, err := learn.EntryPath(e, typ, name)
		if err != nil {
			return editable{}, command.WithHint(err, "`ccmem show` lists the learned entries sessions get")
		}
		t := inStore(path)
		// An entry the person accepted stays theirs as they edit it; one
		// they did not stays to be reviewed.
		t.saved = func(before, after []byte) error {
			if provenance.Load(e).File(path, provenance.Digest(before)).Standing() {
				return provenance.AttestFile(e, "edit", path, provenance.Digest(after))
			}
			return nil
		}
		t.check = func(b []byte) error {
			front, _, err := frontmatter.Split(b)
			if err == nil {
				_, err = frontmatter.Parse(front)
			}
			if err != nil {
				return fmt.Errorf("its frontmatter no longer parses: %w", err)
			}
			return nil
		}
		return t, nil
	}
	if cat, _, ok := strings.Cut(what, "/"); ok && slices.Contains(records.Categories, cat) {
		return editable{}, command.WithHint(fmt.Errorf("records are not edited by hand"), "`ccmem record show "+what+"` prints it with its hash; change it with `ccmem record update "+what+" --hash H`, which validates it")
	}
	return editable{}, command.Usagef("run `ccmem help edit` for what it opens", "edit does not know %q", what)
}

// runEdit opens a private copy of the file in the editor and saves it back
// when it changed, passes its check, and the file did not change
// meanwhile; otherwise the edited copy is kept and named.
func runEdit(c *command.Ctx, t editable) error {
	before, err := t.read()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp("", "ccmem-edit-*-"+filepath.Base(t.path))
	if err != nil {
		return err
	}
	keep := false
	defer func() {
		if !keep {
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(before); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := runEditor(c, tmp.Name()); err != nil {
		return err
	}
	after, err := os.ReadFile(tmp.Name())
	if err != nil {
		return err
	}
	if bytes.Equal(after, before) {
		fmt.Fprintf(c.Stdout, "%s is unchanged\n", c.Env.Tilde(t.path))
		return nil
	}
	if t.check != nil {
		if err := t.check(after); err != nil {
			keep = true
			return command.WithHint(fmt.Errorf("%s was not saved: %w", c.Env.Tilde(t.path), err), "your edit is kept in "+tmp.Name()+"; fix it there and copy it over, or run ccmem edit again")
		}
	}
	now, err := t.read()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !bytes.Equal(now, before) {
		keep = true
		return command.WithHint(fmt.Errorf("%s changed while you edited it, so your edit was not saved over it", c.Env.Tilde(t.path)), "your edit is kept in "+tmp.Name())
	}
	if t.saved == nil {
		if err := t.write(after); err != nil {
			return err
		}
	} else {
		// The ledger first: killed between, it names words that are not
		// there yet (nothing), never words that pass for the person's.
		if err := t.saved(before, after); err != nil {
			keep = true
			return command.WithHint(fmt.Errorf("%s was not saved: %w", c.Env.Tilde(t.path), err), "your edit is kept in "+tmp.Name())
		}
		if err := t.write(after); err != nil {
			return err
		}
	}
	fmt.Fprintf(c.Stdout, "saved %s\n", c.Env.Tilde(t.path))
	return nil
}

// attestEdit records, for an edit of the file at path the person made in
// their editor, the lines they wrote or changed as theirs and the lines
// they took out as no longer theirs; the lines they left as they were
// keep what the ledger said of them (a line nobody confirmed is not
// confirmed by being left alone).
func attestEdit(e store.Env, path string, before, after []byte) error {
	had := map[string]bool{}
	for _, l := range strings.Split(string(before), "\n") {
		had[provenance.Canonical(l)] = true
	}
	has := map[string]bool{}
	var wrote []string
	for _, l := range strings.Split(string(after), "\n") {
		c := provenance.Canonical(l)
		has[c] = true
		if c != "" && !had[c] && provenance.ShapeOf(l).Kind != provenance.Heading {
			wrote = append(wrote, l)
		}
	}
	var gone []string
	for _, l := range strings.Split(string(before), "\n") {
		if c := provenance.Canonical(l); c != "" && !has[c] {
			gone = append(gone, l)
		}
	}
	if err := provenance.Attest(e, "edit", path, wrote...); err != nil {
		return err
	}
	return provenance.Revoke(e, path, gone)
}

// runEditor runs the user's editor on path, attached to the terminal.
func runEditor(c *command.Ctx, path string) error {
	editor := c.P.Getenv("VISUAL")
	if editor == "" {
		editor = c.P.Getenv("EDITOR")
	}
	var cmd *exec.Cmd
	switch {
	case editor == "" && runtime.GOOS == "windows":
		editor = "notepad"
		cmd = exec.Command(editor, path)
	case editor == "":
		editor = "vi"
		cmd = exec.Command(editor, path)
	case runtime.GOOS == "windows":
		f := strings.Fields(editor)
		cmd = exec.Command(f[0], append(f[1:], path)...)
	default:
		// As git does: the editor may carry arguments ("code --wait").
		cmd = exec.Command("sh", "-c", editor+` "$@"`, editor, path)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.P.Stdin, c.Stdout, c.Stderr
	if err := cmd.Run(); err != nil {
		return command.WithHint(fmt.Errorf("the editor (%s) failed: %w; nothing was saved", editor, err), "set VISUAL or EDITOR to your editor")
	}
	return nil
}
