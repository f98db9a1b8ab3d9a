package cli

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/lessons"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdFriction = &command.Command{
	Name: "friction", Args: "[--since WHEN] [--propose] [--cwd DIR] [--json]",
	Summary: "where the project's sessions went wrong, and rules to learn from it",
	Help: `Reports the friction of the project's finished sessions (archived ones too;
automated runs are counted apart): how many sessions of each class (OK,
ROUGH, FRICTION, BAD, from each session's weighted signals), the trend by
week, the worst sessions with their signals, the causes that recur in the
sessions with friction — signals, folders of the files they changed,
commands that failed and what made them work — and the best sessions.

From the friction that recurs (in 2 sessions or more) it draws candidate
rules such as "Run the tests or the command and read its result before
saying that something works", each with its evidence and a confidence by
how often it was seen (High: 5 sessions or more, Medium: 3 or more, Low:
fewer). --propose puts the new ones up for review, named for this project:
` + "`ccmem learn review`" + ` shows them (or /ccmem:review in a session), --accept
makes one a learned rule of this project (given to this project's
sessions only, evidence kept as provenance; --everywhere makes it apply in
every project), --reject remembers the no, and it is not proposed again.
A rule is never shown to a session before a person accepts it.

The steps that keep failing come first: the same command (its arguments,
paths and numbers aside) failing across sessions, calm ones too, and what
made it pass — in the same session or a later one — become a concrete
candidate ("run ` + "`make codegen`" + ` before ` + "`make build`" + `"), with the sessions, dates
and the error's first line as evidence. The general rules drawn from
signals are offered only for sessions no concrete lesson explains, and
always after them.

Every accepted rule is measured: in how many sessions its friction showed
before and since you accepted it, and in how many it bore on a call (a
command it names, a file its words match). A rule whose friction keeps
recurring is FLAGGED; one drawn from friction that bore on no call in the
15 sessions since goes back to review, proposed for retirement and no
longer applied (--accept keeps it, --reject retires it). Every report
recounts the sessions and confidence of the project's rules from the
evidence. Deterministic: no model is asked.

--since limits the report to sessions started since a date (2026-10-01)
or for a span (30d, 4w, 12h).`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		cwd := command.CwdFlag(fs)
		since := fs.String("since", "", "only sessions started since this `date or span` (2026-10-01, 30d, 4w)")
		propose := fs.Bool("propose", false, "put the new candidate rules up for `ccmem learn review`")
		asJSON := fs.Bool("json", false, "print the report as JSON")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			from, err := parseSince(*since, c.Env.Time())
			if err != nil {
				return command.Usagef("a date as 2026-10-01, or a span as 30d, 4w or 12h", "--since %q: %v", *since, err)
			}
			return runFriction(c, *cwd, from, *propose, *asJSON)
		}
	},
}

// parseSince reads --since: a date, or a span back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if u, ok := unit[s[len(s)-1]]; ok {
		n, err := strconv.Atoi(s[:len(s)-1])
		if err != nil || n < 0 || n > 36500 {
			return time.Time{}, errors.New("not a number of days or weeks")
		}
		return now.Add(-time.Duration(n) * u), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, errors.New("not a date or a span")
	}
	return now.Add(-d), nil
}

func runFriction(c *command.Ctx, cwd string, since time.Time, propose, asJSON bool) error {
	p, err := projectHere(c, cwd)
	if err != nil {
		return err
	}
	eps, problems := session.AllEpisodes(c.Env, p.Key)
	for _, pr := range problems {
		fmt.Fprintf(c.Stderr, "ccmem: warning: %s\n", pr)
	}
	rep := lessons.Analyze(eps, since)
	// The project's rules follow the evidence there is now.
	regraded, err := lessons.Regrade(c.Env, p.Root, eps)
	if err != nil {
		return err
	}
	rep.Effects = lessons.Measure(c.Env, p.Root, eps)
	var props []lessons.Proposal
	if propose {
		if props, err = lessons.Propose(c.Env, p.Root, rep.Rules); err != nil {
			return err
		}
	}
	var shown []string
	for i := range rep.Rules {
		rep.Rules[i].Name = lessons.Prefix(p.Root) + "-" + rep.Rules[i].Name
		shown = append(shown, rep.Rules[i].Name)
	}
	// A rule decided on is no candidate: an accepted one is reported with
	// what it did, a rejected one is not proposed again.
	rep.Rules = slices.DeleteFunc(rep.Rules, func(r lessons.Rule) bool {
		accepted, rejected := learn.Decided(c.Env, r.Name)
		return accepted != "" || rejected != ""
	})
	if propose {
		_ = learn.MarkSeen(c.Env, shown...) // the person has seen them: the start-up block stops pointing at them
	}
	// Looked at: the start-up block stops pointing at this project's
	// friction until a newer session goes badly.
	newest, newestAt := "", ""
	for _, f := range eps {
		if r := f.Record; r != nil && (r.Friction.Class == "FRICTION" || r.Friction.Class == "BAD") && r.StartedAt > newestAt {
			newest, newestAt = filepath.Base(f.Path), r.StartedAt
		}
	}
	if newest != "" {
		_ = learn.MarkSeen(c.Env, learn.FrictionSeen(p.Key, newest))
	}
	if asJSON {
		return c.PrintJSON(struct {
			lessons.Report
			Proposed []lessons.Proposal `json:"proposed,omitempty"`
			Regraded []lessons.Regraded `json:"regraded,omitempty"`
		}{rep, props, regraded})
	}
	w := c.Stdout
	span := ""
	if !since.IsZero() {
		span = " since " + since.UTC().Format("2006-01-02")
	}
	fmt.Fprintf(w, "friction in %s: %s%s", c.Env.Tilde(p.Root), textfmt.Plural(rep.Sessions, "session", "sessions"), span)
	if rep.Automated > 0 {
		fmt.Fprintf(w, " (%s left out)", textfmt.Plural(rep.Automated, "automated run", "automated runs"))
	}
	fmt.Fprintln(w)
	if rep.Sessions == 0 {
		return nil
	}
	var classes []string
	for _, k := range []string{"OK", "ROUGH", "FRICTION", "BAD"} {
		classes = append(classes, fmt.Sprintf("%s %d", k, rep.ByClass[k]))
	}
	fmt.Fprintf(w, "%s · mean score %.1f\n", strings.Join(classes, " · "), rep.MeanScore)

	section := func(title string) { fmt.Fprintf(w, "\n%s\n", title) }
	section("by week (from Monday, UTC)")
	tw := command.NewTable(w)
	tw.Row("  week", "sessions", "mean score", "friction", "bad")
	for _, wk := range rep.Weeks {
		tw.Row("  "+wk.Start, wk.Sessions, fmt.Sprintf("%.1f", wk.MeanScore), wk.Friction, wk.Bad)
	}
	tw.Flush()
	lines := func(title string, ls []lessons.Line) {
		if len(ls) == 0 {
			return
		}
		section(title)
		tw := command.NewTable(w)
		tw.Row("  started (UTC)", "score", "class", "turns", "title", "signals")
		for _, l := range ls {
			tw.Row("  "+l.Started, fmt.Sprintf("%.1f", l.Score), l.Class, l.Turns, textfmt.Shorten(l.Title, 48), signalList(l.Signals))
		}
		tw.Flush()
	}
	lines("worst sessions", rep.Worst)
	if len(rep.Signals)+len(rep.Files)+len(rep.Commands) > 0 {
		section("recurring causes, in the sessions with friction")
		tw := command.NewTable(w)
		tw.Row("  what", "sessions", "times", "what worked")
		for _, s := range first(rep.Signals, 8) {
			tw.Row("  signal "+s.Name, s.Sessions, s.Count, "")
		}
		for _, f := range first(rep.Files, 5) {
			tw.Row("  files in "+f.Name+"/", f.Sessions, f.Count, "")
		}
		for _, cm := range first(rep.Commands, 5) {
			tw.Row("  failed `"+cmp.Or(cm.Example, cm.Name)+"`", cm.Sessions, cm.Count, cm.Fix)
		}
		tw.Flush()
	}
	if len(rep.Lessons) > 0 {
		section("steps that keep failing, and what made them pass (every session)")
		tw := command.NewTable(w)
		tw.Row("  step", "failed in", "retries", "last", "what made it pass")
		for _, l := range first(rep.Lessons, 6) {
			fix := "`" + l.Fix + "` first"
			switch {
			case l.Fix == "" && l.FixNote != "":
				fix = l.FixNote
			case l.Fix == "":
				fix = "not seen yet"
			}
			tw.Row("  `"+l.Command+"`", textfmt.Plural(l.Sessions, "session", "sessions"), l.Retries, l.Last.UTC().Format("2006-01-02"), fix)
		}
		tw.Flush()
	}
	lines("best sessions (calm, and longest)", rep.Best)
	if len(rep.Rules) > 0 {
		section("candidate rules from recurring friction (for this project)")
		state := map[string]string{}
		for _, pr := range props {
			state[pr.Name] = pr.State
		}
		tw := command.NewTable(w)
		tw.Row("  confidence", "seen in", "rule", "name")
		for _, a := range rep.Rules {
			name := a.Name
			if s := state[a.Name]; s != "" {
				name += " (" + s + ")"
			}
			tw.Row("  "+a.Confidence, textfmt.Plural(a.Seen, "session", "sessions"), a.Rule, name)
		}
		tw.Flush()
		if !propose {
			fmt.Fprintln(w, "`ccmem friction --propose` puts the new ones up for review (`ccmem learn review`); none is given to a session before you accept it")
		}
	}
	if len(rep.Effects) > 0 {
		section("rules you accepted, and what they did (sessions before → since acceptance)")
		tw := command.NewTable(w)
		tw.Row("  rule", "friction before", "friction since", "bore on calls", "verdict")
		for _, ef := range rep.Effects {
			before, after := "-", "-"
			if ef.Pattern != "" {
				before = fmt.Sprintf("%d of %d", ef.Before.Recurred, ef.Before.Sessions)
				after = fmt.Sprintf("%d of %d", ef.Since.Recurred, ef.Since.Sessions)
			}
			tw.Row("  "+textfmt.Shorten(ef.Name, 40), before, after, fmt.Sprintf("in %d of %d", ef.Matched, ef.Since.Sessions), verdictWords[ef.Verdict])
		}
		tw.Flush()
	}
	for _, r := range regraded {
		switch r.Change {
		case "faded":
			fmt.Fprintf(w, "%s: it bore on no call in the %d sessions since you accepted it; back in review, proposed for retirement, no longer applied (`ccmem learn review`)\n", r.Name, lessons.RetireAfter)
		default:
			fmt.Fprintf(w, "%s: now seen in %s (%s confidence)\n", r.Name, textfmt.Plural(r.Seen, "session", "sessions"), r.Confidence)
		}
	}
	return nil
}

// verdictWords say a rule's verdict (lessons.Effect) to a person.
var verdictWords = map[string]string{
	"new":       "too early to say",
	"helping":   "helping: its friction recurs less",
	"recurring": "FLAGGED: its friction keeps recurring",
	"unmatched": "never bore on a call: proposed for retirement",
	"holding":   "bears on calls",
}

// signalList is a session's signals, heaviest count first: "tool_loop×3, …".
func signalList(sig map[string]int) string {
	var parts []string
	for _, k := range sortedByCount(sig) {
		if sig[k] > 1 {
			parts = append(parts, fmt.Sprintf("%s×%d", k, sig[k]))
		} else if sig[k] == 1 {
			parts = append(parts, k)
		}
	}
	return strings.Join(first(parts, 4), ", ")
}

func sortedByCount(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && (m[keys[j]] > m[keys[j-1]] || m[keys[j]] == m[keys[j-1]] && keys[j] < keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func first[T any](list []T, n int) []T { return list[:min(n, len(list))] }
