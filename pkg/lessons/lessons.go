// Package lessons turns the friction of a project's past sessions into
// something to learn from: a report — the trend by week, the worst and
// the best sessions, the causes that recur (signals, files, failing
// commands) — and candidate rules drawn from the friction that recurs
// ("run the tests before saying it works"), each with its evidence,
// proposed for a person's review and, once accepted, applied in that
// project alone. Deterministic: no model is asked.
package lessons

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/textfmt"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// Report is the friction of a project's sessions.
type Report struct {
	Since     time.Time      `json:"since,omitzero"`
	Sessions  int            `json:"sessions"`
	Automated int            `json:"automated_left_out"`
	ByClass   map[string]int `json:"by_class"`
	MeanScore float64        `json:"mean_score"`
	Weeks     []Week         `json:"weeks"`
	Worst     []Line         `json:"worst"`
	Best      []Line         `json:"best"`
	Signals   []Cause        `json:"signals"`
	Files     []Cause        `json:"files"`
	Commands  []Cause        `json:"commands"`
	// Lessons are the steps that keep failing and what made them pass,
	// in every session (calm ones too).
	Lessons []Lesson `json:"lessons"`
	Rules   []Rule   `json:"rules"`
	// Effects are what became of the rules accepted in the project (see
	// Measure; filled by the caller, which knows the store).
	Effects []Effect `json:"effects"`
}

// Week is one week's sessions (weeks start on Monday, UTC).
type Week struct {
	Start     string  `json:"start"`
	Sessions  int     `json:"sessions"`
	MeanScore float64 `json:"mean_score"`
	Bad       int     `json:"bad"`
	Friction  int     `json:"friction"`
}

// Line is one session in the report.
type Line struct {
	Started string         `json:"started"`
	Title   string         `json:"title"`
	Score   float64        `json:"score"`
	Class   string         `json:"class"`
	Turns   int            `json:"turns"`
	Signals map[string]int `json:"signals,omitempty"`
	Path    string         `json:"path"`
}

// Cause is something that recurs in the sessions with friction: a signal,
// a folder of the files they changed, a command that failed.
type Cause struct {
	Name     string `json:"name"`
	Sessions int    `json:"sessions"`
	Count    int    `json:"count"`
	// Fix is what made a failing command succeed, the last time one did;
	// Example is the command as it last failed.
	Fix     string `json:"fix,omitempty"`
	Example string `json:"example,omitempty"`
}

// Rule is a candidate rule drawn from recurring friction.
type Rule struct {
	// Pattern is what it was drawn from, the same in every project:
	// "signal:false_success", "cmd:<command>", "dir:<folder>". Name (its
	// file name in review, Propose gives it the project's prefix) follows
	// from it.
	Pattern string `json:"pattern"`
	Name    string `json:"name"`
	Rule    string `json:"rule"`
	// Why says what it was drawn from.
	Why string `json:"why"`
	// Seen is in how many sessions; Confidence follows from it (High at 5
	// or more, Medium at 3 or more, Low below).
	Seen       int      `json:"seen"`
	Confidence string   `json:"confidence"`
	Evidence   []string `json:"evidence"`
}

// Confidence is the tier of a pattern seen in n sessions.
func Confidence(n int) string {
	switch {
	case n >= 5:
		return "High"
	case n >= 3:
		return "Medium"
	}
	return "Low"
}

// minSeen is how many sessions a pattern needs to recur in to be proposed.
const minSeen = 2

// Analyze reports on a project's finished sessions started at or after
// since (zero: all); automated runs are counted apart, not analysed.
func Analyze(eps []session.SessionFile, since time.Time) Report {
	rep := Report{Since: since, ByClass: map[string]int{}, Weeks: []Week{}, Worst: []Line{}, Best: []Line{},
		Signals: []Cause{}, Files: []Cause{}, Commands: []Cause{}, Lessons: []Lesson{}, Rules: []Rule{}, Effects: []Effect{}}
	type sess struct {
		f       session.SessionFile
		started time.Time
		line    Line
	}
	var all []sess
	for _, f := range eps {
		c := f.Record
		t, _ := time.Parse(time.RFC3339Nano, c.StartedAt)
		if !since.IsZero() && t.Before(since) {
			continue
		}
		if c.Automated {
			rep.Automated++
			continue
		}
		title := c.Title
		if title == "" {
			title = c.Goal
		}
		class := c.Friction.Class
		if class == "" {
			class = friction.Class(c.Friction.Score, c.Friction.Signals)
		}
		l := Line{Started: t.UTC().Format("2006-01-02 15:04"), Title: textfmt.Line(textfmt.Shorten(title, 80)), Score: c.Friction.Score, Class: class,
			Turns: c.Turns, Signals: c.Friction.Signals, Path: f.Path}
		all = append(all, sess{f, t, l})
	}
	rep.Sessions = len(all)
	if len(all) == 0 {
		return rep
	}
	// The trend, week by week.
	weeks := map[string]*Week{}
	total := 0.0
	for _, s := range all {
		rep.ByClass[s.line.Class]++
		total += s.line.Score
		d := s.started.UTC()
		monday := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -int((d.Weekday()+6)%7))
		k := monday.Format("2006-01-02")
		w := weeks[k]
		if w == nil {
			w = &Week{Start: k}
			weeks[k] = w
		}
		w.Sessions++
		w.MeanScore += s.line.Score
		switch s.line.Class {
		case "BAD":
			w.Bad++
		case "FRICTION":
			w.Friction++
		}
	}
	rep.MeanScore = round(total / float64(len(all)))
	for _, w := range weeks {
		w.MeanScore = round(w.MeanScore / float64(w.Sessions))
		rep.Weeks = append(rep.Weeks, *w)
	}
	sort.Slice(rep.Weeks, func(i, j int) bool { return rep.Weeks[i].Start < rep.Weeks[j].Start })
	// The worst and the best: by score; the best are the longest calm ones.
	byScore := slices.Clone(all)
	slices.SortStableFunc(byScore, func(a, b sess) int {
		return cmp.Or(cmp.Compare(b.line.Score, a.line.Score), cmp.Compare(b.started.Unix(), a.started.Unix()))
	})
	for _, s := range byScore {
		if len(rep.Worst) < 5 && s.line.Class != "OK" {
			rep.Worst = append(rep.Worst, s.line)
		}
	}
	calm := slices.DeleteFunc(slices.Clone(all), func(s sess) bool { return s.line.Class != "OK" })
	slices.SortStableFunc(calm, func(a, b sess) int {
		return cmp.Or(cmp.Compare(b.line.Turns, a.line.Turns), cmp.Compare(a.line.Score, b.line.Score), cmp.Compare(b.started.Unix(), a.started.Unix()))
	})
	for _, s := range calm[:min(3, len(calm))] {
		rep.Best = append(rep.Best, s.line)
	}
	// Causes: across the sessions with friction (ROUGH or worse).
	signals, files, commands := map[string]*Cause{}, map[string]*Cause{}, map[string]*Cause{}
	evidence := map[string][]string{} // a cause's sessions, newest first
	paths := map[string][]string{}    // and their files
	count := func(m map[string]*Cause, name string, n int, s sess) {
		c := m[name]
		if c == nil {
			c = &Cause{Name: name}
			m[name] = c
		}
		c.Sessions++
		c.Count += n
		evidence[name] = append(evidence[name], fmt.Sprintf("%s “%s” (%s, score %.1f) — %s", s.line.Started[:10], s.line.Title, s.line.Class, s.line.Score, s.f.Path))
		paths[name] = append(paths[name], s.f.Path)
	}
	for _, s := range all {
		c := s.f.Record
		if s.line.Class == "OK" {
			continue
		}
		for _, name := range sortedKeys(s.line.Signals) {
			if n := s.line.Signals[name]; n > 0 {
				count(signals, name, n, s)
			}
		}
		dirs := map[string]int{}
		for _, f := range c.FilesChanged {
			// A folder of the project (a file outside it is named by an
			// absolute path: no rule of this project is about it).
			if d := path.Dir(f); d != "." && d != "/" && !path.IsAbs(d) {
				dirs[d]++
			}
		}
		for _, d := range sortedKeys(dirs) {
			count(files, "dir:"+d, dirs[d], s)
		}
		failed := map[string]int{}
		for _, n := range c.Digest.Notes {
			if n.Kind == session.NoteFailure {
				if k := transcript.NormalCommand(n.Cmd); k != "" {
					failed[k]++
				}
			}
		}
		for _, k := range sortedKeys(failed) {
			count(commands, "cmd:"+k, failed[k], s)
		}
		for _, n := range c.Digest.Notes {
			if x := commands["cmd:"+transcript.NormalCommand(n.Cmd)]; n.Kind == session.NoteFailure && x != nil && x.Example == "" {
				x.Example = textfmt.Line(textfmt.Shorten(n.Cmd, 120)) // sessions come newest first
			}
		}
	}
	// What fixed each failing command, the last time.
	for _, s := range all { // newest first
		for _, n := range s.f.Record.Digest.Notes {
			if n.Kind != session.NoteFix {
				continue
			}
			if c := commands["cmd:"+transcript.NormalCommand(n.Cmd)]; c != nil && c.Fix == "" {
				fix := n.Text
				if _, rest, ok := strings.Cut(fix, "; "); ok {
					fix = rest
				}
				// "succeeded run as `x` instead of `y`": what to do.
				fix = strings.TrimPrefix(fix, "succeeded ")
				c.Fix = textfmt.Line(textfmt.Shorten(fix, 160))
			}
		}
	}
	rep.Signals = ranked(signals, "")
	rep.Files = ranked(files, "dir:")
	rep.Commands = ranked(commands, "cmd:")
	var kept []session.SessionFile
	for _, s := range all {
		kept = append(kept, s.f)
	}
	rep.Lessons = Lessons(kept)
	if rep.Lessons == nil {
		rep.Lessons = []Lesson{}
	}
	rep.Rules = rules(signals, files, rep.Lessons, evidence, paths)
	return rep
}

// ranked lists causes seen in most sessions first, without their prefix.
func ranked(m map[string]*Cause, prefix string) []Cause {
	out := []Cause{}
	for _, c := range m {
		x := *c
		x.Name = strings.TrimPrefix(x.Name, prefix)
		out = append(out, x)
	}
	slices.SortFunc(out, func(a, b Cause) int {
		return cmp.Or(cmp.Compare(b.Sessions, a.Sessions), cmp.Compare(b.Count, a.Count), strings.Compare(a.Name, b.Name))
	})
	return out
}

// signalRules are the rules recurring signals teach, with what each
// signal means in words a person reads.
var signalRules = []struct {
	signals    []string
	name, rule string
	what       string
}{
	{[]string{"false_success"}, "verify-before-claiming-success",
		"Run the tests or the command and read its result before saying that something works.",
		"success claimed right after a failure"},
	{[]string{"tool_loop"}, "no-repeated-failing-calls",
		"When the same call fails twice, stop and change the approach instead of repeating it.",
		"the same call repeated three or more times"},
	{[]string{"no_resolution", "session_abandoned"}, "resolve-errors-before-moving-on",
		"Do not move on while an error is unresolved: fix it, or say plainly that it is not fixed.",
		"errors left unresolved"},
	{[]string{"request_interrupted", "interrupt_cascade"}, "confirm-plan-before-long-changes",
		"Before a long or wide change, say the plan in a few lines and wait for a go-ahead.",
		"the person interrupting"},
	{[]string{"user_negation", "user_curse"}, "check-understanding-first",
		"When a request is ambiguous, ask one short question before acting on a guess.",
		"the person saying no"},
}

// rules draws candidate rules from what recurs in at least minSeen
// sessions: first the lessons of failing steps, concrete ("run `make
// codegen` before `make build`"); then the folders whose changes drew
// corrections; last, and only for the sessions no concrete lesson
// explains, the general rules recurring signals teach.
func rules(signals, files map[string]*Cause, lessons []Lesson, evidence, paths map[string][]string) []Rule {
	out := []Rule{}
	explained := map[string]bool{}
	for _, l := range lessons {
		if r, ok := l.Rule(); ok {
			out = append(out, r)
			for _, p := range l.paths {
				explained[p] = true
			}
		}
	}
	var general []Rule
	for _, sr := range signalRules {
		seen, count := 0, 0
		var ev, ps []string
		for _, s := range sr.signals {
			if c := signals[s]; c != nil {
				seen = max(seen, c.Sessions)
				count += c.Count
				ev = appendNew(ev, evidence[s]...)
				ps = appendNew(ps, paths[s]...)
			}
		}
		unexplained := 0
		for _, p := range ps {
			if !explained[p] {
				unexplained++
			}
		}
		if seen < minSeen || unexplained < minSeen {
			continue
		}
		general = append(general, Rule{Pattern: "signal:" + sr.signals[0], Name: sr.name, Rule: sr.rule, Seen: seen, Confidence: Confidence(seen), Evidence: first(ev, 5),
			Why: fmt.Sprintf("%s, %s in %s with friction", sr.what, textfmt.Plural(count, "time", "times"), textfmt.Plural(seen, "session", "sessions"))})
	}
	var folders []Rule
	for _, name := range sortedKeys(files) {
		c := files[name]
		dir := strings.TrimPrefix(name, "dir:")
		// Files that drew corrections: changed in sessions where the user
		// said no.
		corrected := 0
		for _, ev := range evidence[name] {
			if slices.ContainsFunc(evidence["user_negation"], func(s string) bool { return s == ev }) {
				corrected++
			}
		}
		if corrected < minSeen {
			continue
		}
		folders = append(folders, Rule{Pattern: name, Name: "files-" + slug(dir),
			Rule: fmt.Sprintf("Ask before changing files under %s/: changes there drew corrections in %d sessions.", dir, corrected),
			Why:  fmt.Sprintf("files under %s/ changed in %d sessions with friction, %d of them with the user saying no", dir, c.Sessions, corrected),
			Seen: corrected, Confidence: Confidence(corrected), Evidence: first(evidence[name], 5)})
	}
	slices.SortStableFunc(folders, func(a, b Rule) int { return cmp.Compare(b.Seen, a.Seen) })
	slices.SortStableFunc(general, func(a, b Rule) int { return cmp.Compare(b.Seen, a.Seen) })
	return append(append(out, folders...), general...)
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

func first(list []string, n int) []string { return list[:min(n, len(list))] }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// slug makes a name part of a command or a folder.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(textfmt.Shorten(b.String(), 40), "-…")
}

func round(x float64) float64 { return float64(int(x*10+0.5)) / 10 }
