package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/gitsync"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/syncstate"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdLearn = &command.Command{
	Name: "learn", Args: "check|apply|review [flags]",
	Summary: "curate Claude Code's memory folders into ccmem's store",
	Help: `Claude Code's auto memory writes per-project folders (silos) under
~/.claude/projects/*/memory/. ccmem treats them as staging and its store as
the durable, curated copy.

The model wrote them, so none becomes your word before you say so. user,
project and reference memories pass through to learned/<type>/,
deduplicated by name (the newest copy wins; all sources are listed); what
one says about you (user) reaches only the project it came from until you
accept it, and feedback waits in review/feedback/: ccmem learn review shows
each whole. Files without frontmatter, with broken YAML or an unknown type,
and symlinks, are reported and left alone.`,
	Subs: []*command.Command{cmdLearnCheck, cmdLearnApply, cmdLearnReview, cmdLearnAdvisory},
}

var cmdLearnAdvisory = &command.Command{
	Name: "advisory", Args: "[--off] NAME…",
	Summary: "mark accepted feedback as advice: given before a call, never holding it",
	Help: `A rule you accepted (or wrote) that forbids a command holds the first such
call of a session: Claude Code gives a hook's context to the model only
after the call ran, so ccmem stops the call once, with the rule as the
reason, and the same call made again runs. Marked advisory, the rule is
given to the model before a call it bears on and never holds one. --off
lets it hold again. NAME is a learned feedback entry (ccmem show lists
them); guard.hold: false in the config turns holding off for every rule.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		off := fs.Bool("off", false, "let the rules hold calls again")
		return func(c *command.Ctx, args []string) error {
			if len(args) == 0 {
				return command.Usagef("name one or more learned feedback entries (ccmem show lists them)", "no NAME")
			}
			for _, name := range args {
				p, err := learn.EntryPath(c.Env, "feedback", name)
				if err != nil {
					return command.WithHint(err, "ccmem show lists the learned feedback")
				}
				if err := learn.SetAdvisory(c.Env, p, !*off); err != nil {
					return err
				}
				if *off {
					fmt.Fprintf(c.Stdout, "%s: holds the first call it forbids in a session again\n", name)
				} else {
					fmt.Fprintf(c.Stdout, "%s: advisory, given before a call it bears on, never holding one\n", name)
				}
			}
			return nil
		}
	},
}

var cmdLearnCheck = &command.Command{
	Name: "check", Args: "[--json]",
	Summary: "show what apply would do, per silo file (writes nothing)",
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		asJSON := fs.Bool("json", false, "print the plan as JSON (input for apply --plan)")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			return runLearnCheck(c, *asJSON)
		}
	},
}

func runLearnCheck(c *command.Ctx, asJSON bool) error {
	plan, err := learn.Check(c, c.Env)
	if err != nil {
		return err
	}
	// The status cache learns which files are skipped, so the status line
	// and the nudge stop counting them.
	_, _ = learn.RefreshStatus(c, c.Env, orEmpty(plan.SkippedStamps()))
	if asJSON {
		plan.Items = orEmpty(plan.Items)
		return c.PrintJSON(plan)
	}
	if len(plan.Items) == 0 {
		fmt.Fprintf(c.Stdout, "no memories waiting in %s\n", c.Env.Tilde(c.Env.SilosDir()))
		return nil
	}
	printPlan(c, plan.Items)
	printTexts(c, plan.Items)
	fmt.Fprintf(c.Stdout, "%s in %s: %d create, %d update, %d unchanged, %d merge, %d review, %d skipped\n",
		textfmt.Plural(len(plan.Items), "file", "files"), textfmt.Plural(plan.Silos, "silo", "silos"), plan.Count(learn.ActCreate), plan.Count(learn.ActUpdate), plan.Count(learn.ActUnchanged),
		plan.Count(learn.ActMerge), plan.Count(learn.ActReview), plan.Count(learn.ActSkip))
	if n := len(plan.Items) - plan.Count(learn.ActSkip); n > 0 {
		fmt.Fprintln(c.Stdout, "run `ccmem learn apply` to carry this out")
	}
	return nil
}

func printPlan(c *command.Ctx, items []learn.Item) {
	tw := command.NewTable(c.Stdout)
	tw.Row("silo", "file", "type", "action", "detail")
	for _, it := range items {
		detail := it.Reason
		if it.Target != "" && it.Action != learn.ActSkip && it.Action != learn.ActReview {
			detail = "→ " + c.Env.Tilde(it.Target)
			if it.Reason != "" {
				detail += " (" + it.Reason + ")"
			}
		}
		typ := it.Type
		if typ == "" {
			typ = "-"
		}
		tw.Row(it.Silo, filepath.Base(it.Path), typ, it.Action, detail)
	}
	tw.Flush()
}

// printTexts shows what each memory apply would keep says, whole: the
// model wrote it. What it says about the user, and feedback, wait for the
// person's review after apply (ccmem learn review); until then they reach
// only the project they came from.
func printTexts(c *command.Ctx, items []learn.Item) {
	shown := false
	for _, it := range items {
		if it.Action == learn.ActSkip || it.Action == learn.ActUnchanged || it.Action == learn.ActMerge {
			continue
		}
		if !shown {
			fmt.Fprintln(c.Stdout, "\nWhat they say (written by the model in those projects; what is about you, and feedback, waits for your review after apply):")
			shown = true
		}
		fmt.Fprintf(c.Stdout, "── %s/%s (%s)\n", it.Type, it.Name, it.Silo)
		if it.Description != "" {
			fmt.Fprintln(c.Stdout, textfmt.Line(it.Description))
		}
		for _, l := range strings.Split(it.Body, "\n") {
			if strings.TrimSpace(l) != "" {
				fmt.Fprintln(c.Stdout, "  "+textfmt.Line(l))
			}
		}
	}
	if shown {
		fmt.Fprintln(c.Stdout)
	}
}

var cmdLearnApply = &command.Command{
	Name: "apply", Args: "[--plan FILE] [--yes] [--json]",
	Summary: "write canonical entries with provenance, delete the processed silo files, fix each silo's MEMORY.md",
	Help: `At a terminal, apply first lists the silo files it will delete (each one's
memory reaches the store before its file goes) and asks; --yes goes ahead
without asking, as apply does when it is not run at a terminal. Only what
was listed is carried out: a file changed after it was listed is left
alone. ` + "`ccmem learn check`" + ` shows the same plan and changes nothing.

With --plan FILE (from ` + "`ccmem learn check --json`" + `), only that plan is carried
out, and files changed since it was made are left alone.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		planFile := fs.String("plan", "", "apply only this `file`'s plan (from `learn check --json`); files changed since are left")
		yes := fs.Bool("yes", false, "do not ask at a terminal")
		asJSON := fs.Bool("json", false, "print the report as JSON")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			return runLearnApply(c, *planFile, *yes, *asJSON)
		}
	},
}

func runLearnApply(c *command.Ctx, planFile string, yes, asJSON bool) error {
	var expect map[string]string
	if planFile == "" && !yes && hookio.IsTerminal(c.P.Stdin) {
		var ok bool
		var err error
		if expect, ok, err = confirmApply(c); err != nil || !ok {
			return err
		}
	}
	if planFile != "" {
		data, err := os.ReadFile(planFile)
		if err != nil {
			return err
		}
		var p learn.Plan
		if err := json.Unmarshal(data, &p); err != nil {
			return command.WithHint(fmt.Errorf("%s: not a plan: %w", planFile, err), "make one with `ccmem learn check --json > plan.json`")
		}
		expect = map[string]string{}
		for _, it := range p.Items {
			if it.Action != learn.ActSkip {
				expect[it.Path] = it.Hash
			}
		}
	}
	plan, rep, err := learn.Apply(c, c.Env, expect)
	if err != nil {
		return err
	}
	_, _ = learn.RefreshStatus(c, c.Env, orEmpty(plan.SkippedStamps()))
	if asJSON {
		return c.PrintJSON(struct {
			Plan   learn.Plan   `json:"plan"`
			Report learn.Report `json:"report"`
		}{plan, rep})
	}
	for _, w := range rep.Written {
		fmt.Fprintf(c.Stdout, "wrote    %s\n", c.Env.Tilde(w))
	}
	for _, d := range rep.Deleted {
		fmt.Fprintf(c.Stdout, "removed  %s\n", c.Env.Tilde(d))
	}
	for _, i := range rep.Indexes {
		fmt.Fprintf(c.Stdout, "updated  %s\n", c.Env.Tilde(i))
	}
	for _, k := range rep.Kept {
		fmt.Fprintf(c.Stdout, "kept     %s (changed since it was planned; run check again)\n", c.Env.Tilde(k))
	}
	fmt.Fprintf(c.Stdout, "%s written, %s removed, %d left alone\n", textfmt.Plural(len(rep.Written), "entry", "entries"),
		textfmt.Plural(len(rep.Deleted), "silo file", "silo files"), plan.Count(learn.ActSkip))
	if n := plan.Count(learn.ActReview); n > 0 {
		fmt.Fprintf(c.Stdout, "%s review: run `ccmem learn review`\n", textfmt.Plural(n, "feedback memory awaits", "feedback memories await"))
	}
	return nil
}

// confirmApply shows a person at a terminal what apply will delete and
// write, and asks; ok says go on, with the plan shown as apply's expect,
// so that only what was shown is carried out.
func confirmApply(c *command.Ctx) (expect map[string]string, ok bool, err error) {
	plan, err := learn.Check(c, c.Env)
	if err != nil {
		return nil, false, err
	}
	expect = map[string]string{}
	var deletes []string
	targets := map[string]bool{}
	for _, it := range plan.Items {
		if it.Action == learn.ActSkip {
			continue
		}
		expect[it.Path] = it.Hash
		deletes = append(deletes, it.Path)
		if it.Action != learn.ActUnchanged && it.Action != learn.ActMerge {
			targets[it.Target] = true
		}
	}
	if len(deletes) == 0 {
		fmt.Fprintf(c.Stdout, "nothing to apply: no memory waits in %s that ccmem takes (`ccmem learn check` says why)\n", c.Env.Tilde(c.Env.SilosDir()))
		return nil, false, nil
	}
	fmt.Fprintf(c.Stdout, "apply will write %s to the store, then delete %s (each after its memory is in the store):\n",
		textfmt.Plural(len(targets), "entry", "entries"), textfmt.Plural(len(deletes), "silo file", "silo files"))
	for _, d := range deletes {
		fmt.Fprintf(c.Stdout, "  %s\n", c.Env.Tilde(d))
	}
	fmt.Fprint(c.Stdout, "Go on? [y/N] ")
	line, _ := bufio.NewReader(c.P.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return expect, true, nil
	}
	fmt.Fprintln(c.Stdout, "nothing changed")
	return nil, false, nil
}

// multi is a flag that may be given several times.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

var cmdLearnReview = &command.Command{
	Name: "review", Args: "[--accept NAME…] [--reject NAME…] [--reason R] [--all] [--json]",
	Summary: "decide on memory that awaits your word: feedback, the assistant's notes, what a sync brought",
	Help: `Without a decision, lists what awaits review, whole (at a terminal it asks
about each feedback memory: accept, reject, skip or quit). Names after
--accept or --reject belong to it, so "--accept a b --reject c" accepts a
and b and rejects c.

Memory you did not write is listed too, with who wrote it: a fact the
assistant saved in your global memory (MCP remember), lines and entries a
sync brought from another machine, what learn curated about you from
Claude Code's memory. Until you accept it, it is shown as what it is (the
assistant's note only in the project it came from) and is none of your
standing rules; accepted (--accept line-… or entry-TYPE/NAME), it is yours,
in every project; rejected, it goes to the archive with your reason.

A fact changed differently on two machines (a line of your memory edited
on both, an entry both changed) is listed with its two versions: both are
kept, and shown to sessions as disagreeing, until you keep one (--accept
versions-…-1 or -2; --reject one keeps the other); the other goes to the
archive. --all never chooses between versions.

Feedback memories are of two kinds. Corrections you gave in a session, which Claude Code
saved as feedback memory: while they wait, they reach the sessions of the
project they came from (as the client itself would show them), and
accepted, every project's. And candidate rules ccmem drew from a project's
recurring friction (` + "`ccmem friction --propose`" + `): never shown to a session
while they wait, and accepted, given to that project's sessions only
(--everywhere: to every project's).`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		r := &reviewFlags{}
		fs.Var(&r.accept, "accept", "accept the pending feedback `NAME` (repeatable; more names may follow)")
		fs.Var(&r.reject, "reject", "reject the pending feedback `NAME` (repeatable; more names may follow)")
		fs.BoolVar(&r.all, "all", false, "accept every pending feedback memory")
		fs.BoolVar(&r.everywhere, "everywhere", false, "with --accept: a rule drawn from one project's friction applies in every project, not only its own")
		fs.BoolVar(&r.advisory, "advisory", false, "with --accept: the rule only advises (never holds a call it forbids: ccmem learn advisory)")
		fs.StringVar(&r.reason, "reason", "", "`why`, recorded with the rejected memories")
		fs.BoolVar(&r.asJSON, "json", false, "list pending feedback as JSON")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			return runLearnReview(c, r)
		}
	},
	// "--accept a b --reject c": names after a flag belong to it.
	Rewrite: func(args []string) []string {
		var out []string
		flag := ""
		for _, a := range args {
			switch {
			case a == "--accept" || a == "-accept" || a == "--reject" || a == "-reject":
				flag = a
			case !strings.HasPrefix(a, "-") && flag != "":
				out = append(out, flag, a)
			default:
				flag = ""
				out = append(out, a)
			}
		}
		return out
	},
}

type reviewFlags struct {
	accept, reject          multi
	all, asJSON, everywhere bool
	advisory                bool
	reason                  string
	// byModel: the decision comes through the MCP server, from the model.
	// It may accept only the rules ccmem drew from friction; memory the
	// model (or a sync, or Claude Code's memory) wrote is the person's to
	// accept, or the model could make its own notes the person's word.
	byModel bool
}

func runLearnReview(c *command.Ctx, r *reviewFlags) error {
	items, err := learn.Pending(c.Env)
	if err != nil {
		return err
	}
	// A memory learned again that says what its accepted entry says asks
	// for no decision.
	items, same, err := learn.DropUnchanged(c.Env, items)
	if err != nil {
		return err
	}
	if !r.asJSON {
		for _, it := range same {
			fmt.Fprintf(c.Stdout, "nothing changed: %s is the same as the accepted entry (only where it came from differs); nothing to decide\n", it.Name)
		}
	}
	// Memory the person did not write: the assistant's notes, what a sync
	// brought, entries curated from Claude Code's memory.
	others, err := notes.ListUnconfirmed(c.Env)
	if err != nil {
		return err
	}
	// Facts both machines changed differently: two versions to choose from.
	versions := gitsync.Unsettled(c.Env)
	// Looked at: the start-up block stops pointing at these.
	var files []string
	for _, it := range items {
		files = append(files, it.File)
	}
	_ = learn.MarkSeen(c.Env, files...)
	if r.asJSON {
		all := orEmpty(items)
		for _, u := range others {
			all = append(all, learn.ReviewItem{File: u.ID, Name: u.Text, Description: u.Origin.Label(), Path: u.Path, Origin: string(u.Origin.By)})
		}
		for _, u := range versions {
			for i, v := range u.Versions {
				all = append(all, learn.ReviewItem{File: fmt.Sprintf("%s-%d", u.ID, i+1), Name: v.Text, Description: "one of two versions, from " + v.From, Path: filepath.Join(c.Env.Store, filepath.FromSlash(u.Path)), Origin: "versions"})
			}
		}
		return c.PrintJSON(all)
	}
	accept, reject := r.accept, r.reject
	if r.all {
		for _, it := range items {
			accept = append(accept, it.File)
		}
		for _, u := range others {
			accept = append(accept, u.ID)
		}
	}
	if len(accept) == 0 && len(reject) == 0 {
		if len(items) == 0 && len(others) == 0 && len(versions) == 0 {
			fmt.Fprintln(c.Stdout, "nothing awaits review")
			return nil
		}
		if len(items) > 0 && hookio.IsTerminal(c.P.Stdin) {
			if err := reviewInteractive(c, items, r.reason); err != nil {
				return err
			}
		} else if len(items) > 0 {
			printPending(c, items)
		}
		printUnconfirmed(c, others)
		printUnsettled(c, versions)
		return nil
	}
	// Each decision applies on its own and is idempotent: re-run after a
	// crash, a decision already made is reported, and the others go on.
	var unknown []string
	decide := func(name string, accept bool) error {
		if accept && r.byModel {
			// Accepting gives memory the user's authority: only the
			// person does it, in their terminal or the ui, never the model
			// (whatever a file says of where it came from).
			return fmt.Errorf("%s: only the user accepts memory; hint: ask them to run `ccmem learn review --accept %s` in their terminal, or to use `ccmem ui`", name, name)
		}
		if id, n, ok := versionName(versions, name); ok {
			keep := n
			if !accept {
				keep = 3 - n
			}
			dest, err := gitsync.Settle(c.Env, id, keep)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.Stdout, "kept      %s-%d; the other version -> %s\n", id, keep, c.Env.Tilde(filepath.Join(c.Env.Store, filepath.FromSlash(dest))))
			return nil
		}
		if u, ok := notes.FindUnconfirmed(others, name); ok {
			if accept {
				if err := notes.Confirm(c.Env, u, "cli"); err != nil {
					return err
				}
				fmt.Fprintf(c.Stdout, "accepted  %s: now yours, in every project\n", name)
				return nil
			}
			dest, err := notes.Dismiss(c.Env, u, r.reason)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.Stdout, "rejected  %s -> %s\n", name, c.Env.Tilde(dest))
			return nil
		}
		it, ok := learn.Find(items, name)
		if !ok {
			accepted, rejected := learn.Decided(c.Env, name)
			switch {
			case accept && accepted != "":
				fmt.Fprintf(c.Stdout, "accepted  %s (already) -> %s\n", name, c.Env.Tilde(accepted))
			case !accept && rejected != "":
				fmt.Fprintf(c.Stdout, "rejected  %s (already) -> %s\n", name, c.Env.Tilde(rejected))
			default:
				unknown = append(unknown, name)
			}
			return nil
		}
		var dest, verb string
		var err error
		if accept {
			dest, err = learn.Accept(c.Env, it, "cli")
			verb = "accepted"
			if err == nil && r.everywhere {
				err = learn.Widen(c.Env, dest)
				verb = "accepted for every project"
			} else if err == nil && it.Origin == learn.OriginFriction {
				verb = "accepted for its project"
			}
			if err == nil && r.advisory {
				err = learn.SetAdvisory(c.Env, dest, true)
				verb += " (advisory)"
			}
		} else {
			dest, err = learn.Reject(c.Env, it, r.reason)
			verb = "rejected"
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "%s  %s -> %s\n", verb, it.Name, c.Env.Tilde(dest))
		return nil
	}
	for _, name := range accept {
		if err := decide(name, true); err != nil {
			return err
		}
	}
	for _, name := range reject {
		if err := decide(name, false); err != nil {
			return err
		}
	}
	_, _ = learn.RefreshStatus(c, c.Env, nil)
	if len(unknown) > 0 {
		return command.WithHint(fmt.Errorf("nothing pending named %s", quoteList(unknown)), "run `ccmem learn review` to list them")
	}
	return nil
}

// versionName is the unsettled fact and the version (1 or 2) name
// (ID-1, ID-2) names.
func versionName(us []syncstate.Unsettled, name string) (string, int, bool) {
	for _, u := range us {
		for n := 1; n <= 2; n++ {
			if name == fmt.Sprintf("%s-%d", u.ID, n) {
				return u.ID, n, true
			}
		}
	}
	return "", 0, false
}

// printUnsettled shows each fact both machines changed differently, with
// its two versions, for the person to choose one.
func printUnsettled(c *command.Ctx, us []syncstate.Unsettled) {
	if len(us) == 0 {
		return
	}
	fmt.Fprintln(c.Stdout, "Changed differently on two machines (both versions are kept, and marked as disagreeing, until you choose one):")
	for _, u := range us {
		fmt.Fprintf(c.Stdout, "── %s (%s)\n", u.ID, c.Env.Tilde(filepath.Join(c.Env.Store, filepath.FromSlash(u.Path))))
		for i, v := range u.Versions {
			fmt.Fprintf(c.Stdout, "  %s-%d, from %s:\n", u.ID, i+1, v.From)
			for _, l := range strings.Split(v.Text, "\n") {
				fmt.Fprintln(c.Stdout, "    "+textfmt.Line(l))
			}
		}
		fmt.Fprintln(c.Stdout)
	}
	fmt.Fprintf(c.Stdout, "%s: keep one with `ccmem learn review --accept ID-1` (or ID-2); the other goes to the archive\n", textfmt.Plural(len(us), "fact with two versions", "facts with two versions"))
}

// printUnconfirmed shows the memory the person did not write, whole, each
// with who wrote it and its name for a decision.
func printUnconfirmed(c *command.Ctx, others []notes.Unconfirmed) {
	if len(others) == 0 {
		return
	}
	fmt.Fprintln(c.Stdout, "Memory you did not write (it is shown as what it is, and is none of your standing rules, until you accept it):")
	for _, u := range others {
		where := c.Env.Tilde(u.Path)
		if u.Line > 0 {
			where += fmt.Sprintf(":%d", u.Line)
		}
		fmt.Fprintf(c.Stdout, "── %s (%s; %s)\n", u.ID, u.Origin.Label(), where)
		fmt.Fprintln(c.Stdout, textfmt.Line(strings.ReplaceAll(u.Text, "\n", " ⏎ ")))
		fmt.Fprintln(c.Stdout)
	}
	fmt.Fprintf(c.Stdout, "%d not yours: decide with `ccmem learn review --accept ID…` / `--reject ID… [--reason R]` / `--all`\n", len(others))
}

// quoteList is "a", "b" and "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// printPending shows each pending feedback memory: whole when it is new,
// else as its changes against the accepted entry of the same name.
func printPending(c *command.Ctx, items []learn.ReviewItem) {
	for _, it := range items {
		pending, err := store.ReadSmallFile(it.Path, 1<<20)
		if err != nil {
			fmt.Fprintf(c.Stdout, "── %s (%s): %v\n\n", it.Name, c.Env.Tilde(it.Path), err)
			continue
		}
		var current []byte
		if it.Current != "" {
			current, err = store.ReadSmallFile(it.Current, 1<<20)
		}
		if it.Current == "" || err != nil {
			fmt.Fprintf(c.Stdout, "── %s (new; %s)\n", it.Name, c.Env.Tilde(it.Path))
			fmt.Fprintln(c.Stdout, reviewProse(c, pending))
			fmt.Fprintln(c.Stdout)
			continue
		}
		fmt.Fprintf(c.Stdout, "── %s (changes to the accepted entry)\n", it.Name)
		d := diff.Diff(c.Env.Tilde(it.Current)+" (accepted)", learn.ReviewText(current), c.Env.Tilde(it.Path)+" (pending)", learn.ReviewText(pending))
		if len(d) == 0 {
			fmt.Fprintln(c.Stdout, "(the same memory as the accepted entry; only where it came from differs)")
		}
		// The diff's first line repeats the names (diff a b); the two
		// header lines name them once.
		for i, line := range strings.Split(strings.TrimRight(string(d), "\n"), "\n") {
			switch {
			case i == 0 && strings.HasPrefix(line, "diff "), line == "":
				continue
			case i <= 2:
			case strings.HasPrefix(line, "+"):
				line = c.Green(line)
			case strings.HasPrefix(line, "-"):
				line = c.Red(line)
			}
			fmt.Fprintln(c.Stdout, line)
		}
		fmt.Fprintln(c.Stdout)
	}
	fmt.Fprintf(c.Stdout, "%d pending: decide with `ccmem learn review --accept NAME…` / `--reject NAME… [--reason R]` / `--all`\n", len(items))
}

// reviewProse is a pending memory as a person reads it (learn.ReviewViewOf),
// each part on its lines, the marks of emphasis dropped.
func reviewProse(c *command.Ctx, data []byte) string {
	v, ok := learn.ReviewViewOf(c.Env, data)
	if !ok {
		return strings.TrimRight(string(data), "\n")
	}
	var b strings.Builder
	for _, l := range v.Lines {
		if l == "" {
			b.WriteString("\n")
			continue
		}
		fmt.Fprintf(&b, "  %s\n", strings.NewReplacer("**", "", "__", "").Replace(l)) // a terminal shows no emphasis
	}
	fmt.Fprintf(&b, "  Applies in: %s\n", v.Applies)
	if v.Confidence != "" {
		fmt.Fprintf(&b, "  Confidence: %s\n", v.Confidence)
	}
	if v.Faded != "" {
		fmt.Fprintf(&b, "  Back in review: %s\n", v.Faded)
	}
	if len(v.Evidence) > 0 {
		b.WriteString("  Evidence:\n")
		for _, ev := range v.Evidence {
			fmt.Fprintf(&b, "    - %s\n", ev)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// reviewInteractive asks about each pending item on the terminal.
func reviewInteractive(c *command.Ctx, items []learn.ReviewItem, reason string) error {
	in := bufio.NewReader(c.P.Stdin)
	for _, it := range items {
		printPending(c, []learn.ReviewItem{it})
		for {
			fmt.Fprint(c.Stdout, "[a]ccept, [r]eject, [s]kip, [q]uit? ")
			line, err := in.ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "a", "accept":
				dest, err := learn.Accept(c.Env, it, "cli")
				if err != nil {
					return err
				}
				fmt.Fprintf(c.Stdout, "accepted -> %s\n\n", c.Env.Tilde(dest))
			case "r", "reject":
				why := reason
				if why == "" {
					fmt.Fprint(c.Stdout, "reason (optional): ")
					l, _ := in.ReadString('\n')
					why = strings.TrimSpace(l)
				}
				dest, err := learn.Reject(c.Env, it, why)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.Stdout, "rejected -> %s\n\n", c.Env.Tilde(dest))
			case "s", "skip", "":
				if errors.Is(err, io.EOF) {
					return nil
				}
				fmt.Fprintln(c.Stdout)
			case "q", "quit":
				return nil
			default:
				continue
			}
			break
		}
	}
	_, _ = learn.RefreshStatus(c, c.Env, nil)
	return nil
}
