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
	"text/tabwriter"

	"github.com/ccmem/ccmem/internal/hookio"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/store"
)

var cmdLearn = &command{
	name: "learn", args: "check|apply|review [flags]",
	summary: "curate Claude Code's memory folders into ccmem's store",
	help: `Claude Code's auto memory writes per-project folders (silos) under
~/.claude/projects/*/memory/. ccmem treats them as staging and its store as
the durable, curated copy.

user, project and reference memories pass through to learned/<type>/,
deduplicated by name (the newest copy wins; all sources are listed);
feedback waits in review/feedback/ for a person. Files without frontmatter,
with broken YAML or an unknown type, and symlinks, are reported and left
alone.`,
	subs: []*command{cmdLearnCheck, cmdLearnApply, cmdLearnReview},
}

var cmdLearnCheck = &command{
	name: "check", args: "[--json]",
	summary: "show what apply would do, per silo file (writes nothing)",
	setup: func(fs *flag.FlagSet) func(c *ctx, args []string) error {
		asJSON := fs.Bool("json", false, "print the plan as JSON (input for apply --plan)")
		return func(c *ctx, args []string) error {
			if err := noArgs(fs, args); err != nil {
				return err
			}
			return runLearnCheck(c, *asJSON)
		}
	},
}

func runLearnCheck(c *ctx, asJSON bool) error {
	plan, err := learn.Check(c, c.env)
	if err != nil {
		return err
	}
	// The status cache learns which files are skipped, so the status line
	// and the nudge stop counting them.
	_, _ = learn.RefreshStatus(c, c.env, orEmpty(plan.SkippedStamps()))
	if asJSON {
		plan.Items = orEmpty(plan.Items)
		return c.printJSON(plan)
	}
	if len(plan.Items) == 0 {
		fmt.Fprintf(c.out, "no memories waiting in %s\n", c.env.Tilde(c.env.SilosDir()))
		return nil
	}
	c.printPlan(plan.Items)
	fmt.Fprintf(c.out, "%d files in %d silos: %d create, %d update, %d unchanged, %d merge, %d review, %d skipped\n",
		len(plan.Items), plan.Silos, plan.Count(learn.ActCreate), plan.Count(learn.ActUpdate), plan.Count(learn.ActUnchanged),
		plan.Count(learn.ActMerge), plan.Count(learn.ActReview), plan.Count(learn.ActSkip))
	if n := len(plan.Items) - plan.Count(learn.ActSkip); n > 0 {
		fmt.Fprintln(c.out, "run `ccmem learn apply` to carry this out")
	}
	return nil
}

func (c *ctx) printPlan(items []learn.Item) {
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "silo\tfile\ttype\taction\tdetail")
	for _, it := range items {
		detail := it.Reason
		if it.Target != "" && it.Action != learn.ActSkip && it.Action != learn.ActReview {
			detail = "→ " + c.env.Tilde(it.Target)
			if it.Reason != "" {
				detail += " (" + it.Reason + ")"
			}
		}
		typ := it.Type
		if typ == "" {
			typ = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", it.Silo, filepath.Base(it.Path), typ, it.Action, detail)
	}
	tw.Flush()
}

var cmdLearnApply = &command{
	name: "apply", args: "[--plan FILE] [--json]",
	summary: "write canonical entries with provenance, delete the processed silo files, fix each silo's MEMORY.md",
	help: `With --plan FILE (from ` + "`ccmem learn check --json`" + `), only that plan is carried
out, and files changed since it was made are left alone.`,
	setup: func(fs *flag.FlagSet) func(c *ctx, args []string) error {
		planFile := fs.String("plan", "", "apply only this `file`'s plan (from `learn check --json`); files changed since are left")
		asJSON := fs.Bool("json", false, "print the report as JSON")
		return func(c *ctx, args []string) error {
			if err := noArgs(fs, args); err != nil {
				return err
			}
			return runLearnApply(c, *planFile, *asJSON)
		}
	},
}

func runLearnApply(c *ctx, planFile string, asJSON bool) error {
	var expect map[string]string
	if planFile != "" {
		data, err := os.ReadFile(planFile)
		if err != nil {
			return err
		}
		var p learn.Plan
		if err := json.Unmarshal(data, &p); err != nil {
			return withHint(fmt.Errorf("%s: not a plan: %w", planFile, err), "make one with `ccmem learn check --json > plan.json`")
		}
		expect = map[string]string{}
		for _, it := range p.Items {
			if it.Action != learn.ActSkip {
				expect[it.Path] = it.Hash
			}
		}
	}
	plan, rep, err := learn.Apply(c, c.env, expect)
	if err != nil {
		return err
	}
	_, _ = learn.RefreshStatus(c, c.env, orEmpty(plan.SkippedStamps()))
	if asJSON {
		return c.printJSON(struct {
			Plan   learn.Plan   `json:"plan"`
			Report learn.Report `json:"report"`
		}{plan, rep})
	}
	for _, w := range rep.Written {
		fmt.Fprintf(c.out, "wrote    %s\n", c.env.Tilde(w))
	}
	for _, d := range rep.Deleted {
		fmt.Fprintf(c.out, "removed  %s\n", c.env.Tilde(d))
	}
	for _, i := range rep.Indexes {
		fmt.Fprintf(c.out, "updated  %s\n", c.env.Tilde(i))
	}
	for _, k := range rep.Kept {
		fmt.Fprintf(c.out, "kept     %s (changed since it was planned; run check again)\n", c.env.Tilde(k))
	}
	fmt.Fprintf(c.out, "%d entries written, %d silo files removed, %d left alone\n", len(rep.Written), len(rep.Deleted), plan.Count(learn.ActSkip))
	if n := plan.Count(learn.ActReview); n > 0 {
		fmt.Fprintf(c.out, "%d feedback memories await review: run `ccmem learn review`\n", n)
	}
	return nil
}

// multi is a flag that may be given several times.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

var cmdLearnReview = &command{
	name: "review", args: "[--accept NAME…] [--reject NAME…] [--reason R] [--all] [--json]",
	summary: "decide on pending feedback memories",
	help: `Without a decision, lists the feedback memories awaiting review (at a
terminal it asks about each one: accept, reject, skip or quit). Names after
--accept or --reject belong to it, so "--accept a b --reject c" accepts a
and b and rejects c.`,
	setup: func(fs *flag.FlagSet) func(c *ctx, args []string) error {
		r := &reviewFlags{}
		fs.Var(&r.accept, "accept", "accept the pending feedback `NAME` (repeatable; more names may follow)")
		fs.Var(&r.reject, "reject", "reject the pending feedback `NAME` (repeatable; more names may follow)")
		fs.BoolVar(&r.all, "all", false, "accept every pending feedback memory")
		fs.StringVar(&r.reason, "reason", "", "why, recorded with rejected memories")
		fs.BoolVar(&r.asJSON, "json", false, "list pending feedback as JSON")
		return func(c *ctx, args []string) error {
			if err := noArgs(fs, args); err != nil {
				return err
			}
			return runLearnReview(c, r)
		}
	},
	// "--accept a b --reject c": names after a flag belong to it.
	rewrite: func(args []string) []string {
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
	accept, reject multi
	all, asJSON    bool
	reason         string
}

func runLearnReview(c *ctx, r *reviewFlags) error {
	items, err := learn.Pending(c.env)
	if err != nil {
		return err
	}
	if r.asJSON {
		return c.printJSON(orEmpty(items))
	}
	accept, reject := r.accept, r.reject
	if r.all {
		for _, it := range items {
			accept = append(accept, it.File)
		}
	}
	if len(accept) == 0 && len(reject) == 0 {
		if len(items) == 0 {
			fmt.Fprintln(c.out, "no feedback awaits review")
			return nil
		}
		if hookio.IsTerminal(c.p.Stdin) {
			return c.reviewInteractive(items, r.reason)
		}
		c.printPending(items)
		return nil
	}
	// Each decision applies on its own and is idempotent: re-run after a
	// crash, a decision already made is reported, and the others go on.
	var unknown []string
	decide := func(name string, accept bool) error {
		it, ok := learn.Find(items, name)
		if !ok {
			accepted, rejected := learn.Decided(c.env, name)
			switch {
			case accept && accepted != "":
				fmt.Fprintf(c.out, "accepted  %s (already) -> %s\n", name, c.env.Tilde(accepted))
			case !accept && rejected != "":
				fmt.Fprintf(c.out, "rejected  %s (already) -> %s\n", name, c.env.Tilde(rejected))
			default:
				unknown = append(unknown, name)
			}
			return nil
		}
		var dest, verb string
		var err error
		if accept {
			dest, err = learn.Accept(c.env, it)
			verb = "accepted"
		} else {
			dest, err = learn.Reject(c.env, it, r.reason)
			verb = "rejected"
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(c.out, "%s  %s -> %s\n", verb, it.Name, c.env.Tilde(dest))
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
	_, _ = learn.RefreshStatus(c, c.env, nil)
	if len(unknown) > 0 {
		return withHint(fmt.Errorf("no pending feedback named %s", quoteList(unknown)), "run `ccmem learn review` to list them")
	}
	return nil
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


func (c *ctx) printPending(items []learn.ReviewItem) {
	for _, it := range items {
		fmt.Fprintf(c.out, "── %s (%s)\n", it.Name, c.env.Tilde(it.Path))
		if data, err := store.ReadSmallFile(it.Path, 1<<20); err == nil {
			fmt.Fprintln(c.out, strings.TrimRight(string(data), "\n"))
		}
		if it.Current != "" {
			fmt.Fprintf(c.out, "── currently accepted (%s):\n", c.env.Tilde(it.Current))
			if data, err := store.ReadSmallFile(it.Current, 1<<20); err == nil {
				fmt.Fprintln(c.out, strings.TrimRight(string(data), "\n"))
			}
		}
		fmt.Fprintln(c.out)
	}
	fmt.Fprintf(c.out, "%d pending: decide with `ccmem learn review --accept NAME…` / `--reject NAME… [--reason R]` / `--all`\n", len(items))
}

// reviewInteractive asks about each pending item on the terminal.
func (c *ctx) reviewInteractive(items []learn.ReviewItem, reason string) error {
	in := bufio.NewReader(c.p.Stdin)
	for _, it := range items {
		c.printPending([]learn.ReviewItem{it})
		for {
			fmt.Fprint(c.out, "[a]ccept, [r]eject, [s]kip, [q]uit? ")
			line, err := in.ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "a", "accept":
				dest, err := learn.Accept(c.env, it)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.out, "accepted -> %s\n\n", c.env.Tilde(dest))
			case "r", "reject":
				why := reason
				if why == "" {
					fmt.Fprint(c.out, "reason (optional): ")
					l, _ := in.ReadString('\n')
					why = strings.TrimSpace(l)
				}
				dest, err := learn.Reject(c.env, it, why)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.out, "rejected -> %s\n\n", c.env.Tilde(dest))
			case "s", "skip", "":
				if errors.Is(err, io.EOF) {
					return nil
				}
				fmt.Fprintln(c.out)
			case "q", "quit":
				return nil
			default:
				continue
			}
			break
		}
	}
	_, _ = learn.RefreshStatus(c, c.env, nil)
	return nil
}
