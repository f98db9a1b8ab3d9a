package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/ccmem/ccmem/pkg/hookio"
	"github.com/ccmem/ccmem/pkg/memory"
)

func init() {
	register(&command{
		name: "learn", args: "check|apply|review [flags]",
		summary: "curate Claude Code's memory folders into ccmem's store",
		help: `Claude Code's auto memory writes per-project folders (silos) under
~/.claude/projects/*/memory/. ccmem treats them as staging and its store as
the durable, curated copy:

  ccmem learn check [--json]     what apply would do, per silo file
  ccmem learn apply [--plan F]   write canonical entries with provenance,
                                 delete the processed silo files, fix each
                                 silo's MEMORY.md (F: a check --json plan;
                                 files changed since it are left alone)
  ccmem learn review [--accept NAME…] [--reject NAME…] [--all] [--reason R]
                                 decide on pending feedback memories

user, project and reference memories pass through to learned/<type>/,
deduplicated by name (the newest copy wins; all sources are listed);
feedback waits in review/feedback/ for a person. Files without frontmatter,
with broken YAML or an unknown type, and symlinks, are reported and left
alone.`,
		run: runLearn,
	})
}

func runLearn(c *ctx, args []string) error {
	if len(args) == 0 {
		return usagef("run `ccmem help learn`", "learn needs a subcommand: check, apply or review")
	}
	switch args[0] {
	case "check":
		return runLearnCheck(c, args[1:])
	case "apply":
		return runLearnApply(c, args[1:])
	case "review":
		return runLearnReview(c, args[1:])
	case "-h", "--help", "help":
		printHelp(c.out, lookup("learn"), nil)
		return nil
	}
	return usagef("run `ccmem help learn`", "unknown learn subcommand %q", args[0])
}

func runLearnCheck(c *ctx, args []string) error {
	fs := c.flags("learn check")
	asJSON := fs.Bool("json", false, "print the plan as JSON (input for apply --plan)")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	plan, err := memory.LearnCheck(context.Background(), c.env)
	if err != nil {
		return err
	}
	// The status cache learns which files are skipped, so the status line
	// and the nudge stop counting them.
	_, _ = memory.RefreshStatus(context.Background(), c.env, orNone(plan.SkippedStamps()))
	if *asJSON {
		if plan.Items == nil {
			plan.Items = []memory.LearnItem{}
		}
		return c.printJSON(plan)
	}
	if len(plan.Items) == 0 {
		fmt.Fprintf(c.out, "no memories waiting in %s\n", c.env.Tilde(c.env.SilosDir()))
		return nil
	}
	c.printPlan(plan.Items)
	fmt.Fprintf(c.out, "%d files in %d silos: %d create, %d update, %d unchanged, %d merge, %d review, %d skipped\n",
		len(plan.Items), plan.Silos, plan.Count(memory.ActCreate), plan.Count(memory.ActUpdate), plan.Count(memory.ActUnchanged),
		plan.Count(memory.ActMerge), plan.Count(memory.ActReview), plan.Count(memory.ActSkip))
	if n := len(plan.Items) - plan.Count(memory.ActSkip); n > 0 {
		fmt.Fprintln(c.out, "run `ccmem learn apply` to carry this out")
	}
	return nil
}

// orNone makes a nil list an empty one, so RefreshStatus replaces the
// remembered skipped files instead of keeping them.
func orNone(s []memory.FileStamp) []memory.FileStamp {
	if s == nil {
		return []memory.FileStamp{}
	}
	return s
}

func (c *ctx) printPlan(items []memory.LearnItem) {
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "silo\tfile\ttype\taction\tdetail")
	for _, it := range items {
		detail := it.Reason
		if it.Target != "" && it.Action != memory.ActSkip && it.Action != memory.ActReview {
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

func runLearnApply(c *ctx, args []string) error {
	fs := c.flags("learn apply")
	planFile := fs.String("plan", "", "apply only this `file`'s plan (from `learn check --json`); files changed since are left")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	var expect map[string]string
	if *planFile != "" {
		data, err := os.ReadFile(*planFile)
		if err != nil {
			return err
		}
		var p memory.LearnPlan
		if err := json.Unmarshal(data, &p); err != nil {
			return withHint(fmt.Errorf("%s: not a plan: %v", *planFile, err), "make one with `ccmem learn check --json > plan.json`")
		}
		expect = map[string]string{}
		for _, it := range p.Items {
			if it.Action != memory.ActSkip {
				expect[it.Path] = it.Hash
			}
		}
	}
	plan, rep, err := memory.LearnApply(context.Background(), c.env, expect)
	if err != nil {
		return err
	}
	_, _ = memory.RefreshStatus(context.Background(), c.env, orNone(plan.SkippedStamps()))
	if *asJSON {
		return c.printJSON(struct {
			Plan   memory.LearnPlan   `json:"plan"`
			Report memory.LearnReport `json:"report"`
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
	fmt.Fprintf(c.out, "%d entries written, %d silo files removed, %d left alone\n", len(rep.Written), len(rep.Deleted), plan.Count(memory.ActSkip))
	if n := plan.Count(memory.ActReview); n > 0 {
		fmt.Fprintf(c.out, "%d feedback memories await review: run `ccmem learn review`\n", n)
	}
	return nil
}

// multi is a flag that may be given several times.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func runLearnReview(c *ctx, args []string) error {
	fs := c.flags("learn review")
	var accept, reject multi
	fs.Var(&accept, "accept", "accept the pending feedback `NAME` (repeatable; more names may follow)")
	fs.Var(&reject, "reject", "reject the pending feedback `NAME` (repeatable; more names may follow)")
	all := fs.Bool("all", false, "accept every pending feedback memory")
	reason := fs.String("reason", "", "why, recorded with rejected memories")
	asJSON := fs.Bool("json", false, "list pending feedback as JSON")
	// "--accept a b --reject c": names after a flag belong to it.
	var mode *multi
	var rest []string
	for _, a := range args {
		switch {
		case a == "--accept" || a == "-accept":
			mode = &accept
		case a == "--reject" || a == "-reject":
			mode = &reject
		case !strings.HasPrefix(a, "-") && mode != nil:
			*mode = append(*mode, a)
		default:
			mode = nil
			rest = append(rest, a)
		}
	}
	pos, err := c.parse(fs, rest)
	if err != nil {
		return err
	}
	if err := noArgs(fs, pos); err != nil {
		return err
	}
	items, err := memory.PendingReview(c.env)
	if err != nil {
		return err
	}
	if *asJSON {
		if items == nil {
			items = []memory.ReviewItem{}
		}
		return c.printJSON(items)
	}
	if *all {
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
			return c.reviewInteractive(items, *reason)
		}
		c.printPending(items)
		return nil
	}
	for _, name := range accept {
		it, ok := memory.FindReview(items, name)
		if !ok {
			return withHint(fmt.Errorf("no pending feedback named %q", name), "run `ccmem learn review` to list them")
		}
		dest, err := memory.AcceptReview(c.env, it)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.out, "accepted  %s -> %s\n", it.Name, c.env.Tilde(dest))
	}
	for _, name := range reject {
		it, ok := memory.FindReview(items, name)
		if !ok {
			return withHint(fmt.Errorf("no pending feedback named %q", name), "run `ccmem learn review` to list them")
		}
		dest, err := memory.RejectReview(c.env, it, *reason)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.out, "rejected  %s -> %s\n", it.Name, c.env.Tilde(dest))
	}
	_, _ = memory.RefreshStatus(context.Background(), c.env, nil)
	return nil
}

func (c *ctx) printPending(items []memory.ReviewItem) {
	for _, it := range items {
		fmt.Fprintf(c.out, "── %s (%s)\n", it.Name, c.env.Tilde(it.Path))
		if data, err := memory.ReadSmallFile(it.Path, 1<<20); err == nil {
			fmt.Fprintln(c.out, strings.TrimRight(string(data), "\n"))
		}
		if it.Current != "" {
			fmt.Fprintf(c.out, "── currently accepted (%s):\n", c.env.Tilde(it.Current))
			if data, err := memory.ReadSmallFile(it.Current, 1<<20); err == nil {
				fmt.Fprintln(c.out, strings.TrimRight(string(data), "\n"))
			}
		}
		fmt.Fprintln(c.out)
	}
	fmt.Fprintf(c.out, "%d pending: decide with `ccmem learn review --accept NAME…` / `--reject NAME… [--reason R]` / `--all`\n", len(items))
}

// reviewInteractive asks about each pending item on the terminal.
func (c *ctx) reviewInteractive(items []memory.ReviewItem, reason string) error {
	in := bufio.NewReader(c.p.Stdin)
	for _, it := range items {
		c.printPending([]memory.ReviewItem{it})
		for {
			fmt.Fprint(c.out, "[a]ccept, [r]eject, [s]kip, [q]uit? ")
			line, err := in.ReadString('\n')
			if err != nil && err != io.EOF {
				return err
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "a", "accept":
				dest, err := memory.AcceptReview(c.env, it)
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
				dest, err := memory.RejectReview(c.env, it, why)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.out, "rejected -> %s\n\n", c.env.Tilde(dest))
			case "s", "skip", "":
				if err == io.EOF {
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
	_, _ = memory.RefreshStatus(context.Background(), c.env, nil)
	return nil
}
