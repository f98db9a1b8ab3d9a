package lessons

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/textfmt"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// Lesson is a step of a project that keeps failing, and what made it pass:
// the same command (normalised: see transcript.NormalCommand) failing across
// sessions, and the command run before it when it passed — in the same
// session or a later one. Every session counts, calm ones too: a failure
// fixed within a session leaves it calm, and is still worth not repeating.
type Lesson struct {
	// Command is the failing step ("make build"); Example the command as
	// it last failed, Error the first line of what it said then.
	Command string `json:"command"`
	Example string `json:"example"`
	Error   string `json:"error,omitempty"`
	// Fix is the command that made it pass, as last run ("make codegen");
	// "" when none was seen (FixNote then says what did: files changed,
	// or run again).
	Fix     string `json:"fix,omitempty"`
	FixNote string `json:"fix_note,omitempty"`
	// Sessions is how many sessions it failed in; Fixed in how many the
	// fix was seen to work, Contrary in how many the fix ran first and it
	// failed all the same.
	Sessions int `json:"sessions"`
	Fixed    int `json:"fixed"`
	Contrary int `json:"contrary,omitempty"`
	// Retries are its failed runs in all; Turns the turns it took from
	// the first failure to passing, in all (the sessions where it passed).
	Retries int `json:"retries"`
	Turns   int `json:"turns"`
	// Last is when it last failed.
	Last     time.Time `json:"last"`
	Evidence []string  `json:"evidence"`
	// paths are the sessions it failed in.
	paths []string
}

// lookCommands only look: they never make a failing step pass.
var lookCommands = map[string]bool{"ls": true, "cat": true, "head": true, "tail": true, "grep": true, "rg": true, "find": true,
	"echo": true, "pwd": true, "which": true, "wc": true, "less": true, "tree": true, "file": true, "stat": true, "cd": true,
	"git status": true, "git diff": true, "git log": true, "git show": true, "git branch": true, "type": true, "sed": true, "awk": true}

// doesSomething tells whether a command (normalised) may change what a
// later step finds.
func doesSomething(norm string) bool {
	if norm == "" || lookCommands[norm] {
		return false
	}
	prog, _, _ := strings.Cut(norm, " ")
	return !lookCommands[prog]
}

// interpreters alone name no step: `python3 x.py` and `python3 y.py` are
// not one thing that fails.
var interpreters = map[string]bool{"python": true, "python3": true, "node": true, "bash": true, "sh": true, "zsh": true, "ruby": true,
	"perl": true, "deno": true, "bun": true, "npx": true, "uv": true, "go": true, "cargo": true, "npm": true}

// isStep tells whether a normalised failing command is a step of the
// project's work that a lesson can be about: it does something (a look —
// ls, grep, cat — fails on a missing file, and teaches nothing), and is
// more than an interpreter's name.
func isStep(norm string) bool {
	return doesSomething(norm) && !interpreters[norm]
}

// usableNote tells whether what a fix note says worked can stand in a
// rule: files changed, or the step run another way without a pipeline
// (a command that merely ran before is a vote, judged by cleanStep).
func usableNote(what string) bool {
	switch {
	case strings.HasPrefix(what, "after changes to "):
		return true
	case strings.HasPrefix(what, "run as `"):
		return !strings.ContainsAny(what, "|<>") && len(what) <= 160
	}
	return false
}

// cleanStep tells whether a command can stand in a rule as what to run:
// one short command, no pipe, list, substitution, redirection or loop.
func cleanStep(raw string) bool {
	raw = strings.TrimSpace(raw)
	return raw != "" && len(raw) <= 80 && !strings.ContainsAny(raw, "|;<>`$\n{}") && isStep(transcript.NormalCommand(raw))
}

// steps are the parts of a chained command ("make codegen && make build").
func steps(cmd string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(cmd, func(r rune) bool { return r == ';' }) {
		for _, s := range strings.Split(part, "&&") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// fixVote is a command seen making a step pass.
type fixVote struct {
	raw      string
	sessions map[string]bool
	last     time.Time
}

// Lessons finds the project's lessons in its sessions eps (automated runs
// left out): the steps that failed in at least minSeen sessions, each with
// the fix seen most often, most recurring and most recent first.
func Lessons(eps []session.SessionFile) []Lesson {
	type sess struct {
		f       session.SessionFile
		started time.Time
	}
	var all []sess
	for _, f := range eps {
		if f.Record == nil || f.Record.Automated {
			continue
		}
		t, _ := time.Parse(time.RFC3339Nano, f.Record.StartedAt)
		all = append(all, sess{f, t})
	}
	slices.SortStableFunc(all, func(a, b sess) int { return a.started.Compare(b.started) })

	byCmd := map[string]*Lesson{}
	votes := map[string]map[string]*fixVote{} // step → fix (normalised) → vote
	notes := map[string]string{}              // step → what else fixed it
	open := map[string]bool{}                 // steps that failed and never passed since
	vote := func(step, fixRaw, path string, when time.Time) {
		norm := transcript.NormalCommand(fixRaw)
		if !cleanStep(fixRaw) || norm == step {
			return
		}
		if votes[step] == nil {
			votes[step] = map[string]*fixVote{}
		}
		v := votes[step][norm]
		if v == nil {
			v = &fixVote{sessions: map[string]bool{}}
			votes[step][norm] = v
		}
		v.sessions[path] = true
		if !when.Before(v.last) {
			v.raw, v.last = strings.TrimSpace(fixRaw), when
		}
	}
	for _, s := range all {
		c := s.f.Record
		d := c.Digest
		title := textfmt.Line(textfmt.Shorten(cmp.Or(c.Title, c.Goal), 60))
		failedHere := map[string]int{}
		firstFail := map[string]checkpoint.Note{}
		for _, n := range d.Notes {
			if n.Kind != session.NoteFailure {
				continue
			}
			k := transcript.NormalCommand(n.Cmd)
			if !isStep(k) {
				continue
			}
			if failedHere[k] == 0 {
				firstFail[k] = n
			}
			failedHere[k]++
		}
		fixedHere := map[string]checkpoint.Note{}
		for _, n := range d.Notes {
			if n.Kind != session.NoteFix {
				continue
			}
			k := transcript.NormalCommand(n.Cmd)
			if failedHere[k] == 0 {
				continue
			}
			if _, seen := fixedHere[k]; seen {
				continue
			}
			fixedHere[k] = n
			for _, st := range steps(n.Cmd) {
				vote(k, st, s.f.Path, s.started)
			}
			for _, a := range n.After {
				vote(k, a, s.f.Path, s.started)
			}
			if _, other := votes[k]; !other {
				if _, what, ok := strings.Cut(n.Text, "; succeeded "); ok && notes[k] == "" && usableNote(what) {
					notes[k] = what
				}
			}
		}
		// Steps that failed before and pass here the first time: what ran
		// just before them is what made them pass.
		for k := range open {
			if failedHere[k] > 0 {
				continue
			}
			for i, cmd := range d.Commands {
				if transcript.NormalCommand(cmd) != k {
					continue
				}
				if st := steps(cmd); len(st) > 1 {
					for _, x := range st {
						vote(k, x, s.f.Path, s.started)
					}
				} else {
					for j := i - 1; j >= 0; j-- {
						if cleanStep(d.Commands[j]) {
							vote(k, d.Commands[j], s.f.Path, s.started)
							break
						}
					}
				}
				delete(open, k)
				if l := byCmd[k]; l != nil {
					l.Evidence = append(l.Evidence, fmt.Sprintf("%s “%s”: `%s` passed the first time, after `%s` — %s",
						s.started.UTC().Format("2006-01-02"), title, code(cmd), code(lastFix(votes[k], s.f.Path)), s.f.Path))
				}
				break
			}
		}
		for _, k := range sortedKeys(failedHere) {
			n := firstFail[k]
			l := byCmd[k]
			if l == nil {
				l = &Lesson{Command: k}
				byCmd[k] = l
			}
			l.Sessions++
			l.Retries += failedHere[k]
			l.paths = append(l.paths, s.f.Path)
			l.Example, l.Error, l.Last = textfmt.Line(textfmt.Shorten(n.Cmd, 120)), textfmt.Line(textfmt.Shorten(n.Text, 120)), s.started
			ev := fmt.Sprintf("%s “%s”: `%s` failed %s (`%s`)", s.started.UTC().Format("2006-01-02"), title, code(n.Cmd),
				textfmt.Plural(failedHere[k], "time", "times"), code(n.Text))
			if fx, ok := fixedHere[k]; ok {
				l.Turns += max(fx.Turn-n.Turn, 0)
				ev += fmt.Sprintf("; passed at turn %d", fx.Turn)
				if f := lastFix(votes[k], s.f.Path); f != "" {
					ev += " after `" + code(f) + "`"
				}
				delete(open, k)
			} else {
				l.Turns += max(c.Turns-n.Turn, 0)
				ev += "; not passing when the session ended"
				open[k] = true
			}
			l.Evidence = append(l.Evidence, ev+" — "+s.f.Path)
		}
		// A fix that ran before the step and the step failed all the
		// same is no fix.
		for k := range failedHere {
			idx := slices.IndexFunc(d.Commands, func(x string) bool { return transcript.NormalCommand(x) == k })
			for norm, v := range votes[k] {
				if v.sessions[s.f.Path] {
					continue
				}
				for _, x := range d.Commands[:max(idx, 0)] {
					if transcript.NormalCommand(x) == norm {
						byCmd[k].Contrary++
						break
					}
				}
			}
		}
	}
	var out []Lesson
	for k, l := range byCmd {
		if l.Sessions < minSeen {
			continue
		}
		var best *fixVote
		for _, norm := range sortedKeys(votes[k]) {
			v := votes[k][norm]
			if best == nil || len(v.sessions) > len(best.sessions) || len(v.sessions) == len(best.sessions) && v.last.After(best.last) {
				best = v
			}
		}
		if best != nil && len(best.sessions) > l.Contrary {
			l.Fix, l.Fixed = textfmt.Line(textfmt.Shorten(best.raw, 80)), len(best.sessions)
		} else {
			l.FixNote = notes[k]
		}
		slices.Reverse(l.Evidence) // newest first
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b Lesson) int {
		return cmp.Or(cmp.Compare(b.Sessions, a.Sessions), b.Last.Compare(a.Last), cmp.Compare(b.Retries+b.Turns, a.Retries+a.Turns), strings.Compare(a.Command, b.Command))
	})
	return out
}

// lastFix is the fix voted for in the session at path ("" for none).
func lastFix(votes map[string]*fixVote, path string) string {
	for _, norm := range sortedKeys(votes) {
		if v := votes[norm]; v.sessions[path] {
			return v.raw
		}
	}
	return ""
}

// code is text fit for a Markdown code span: one line, no backticks.
func code(s string) string {
	return strings.ReplaceAll(textfmt.Line(textfmt.Shorten(s, 100)), "`", "'")
}

// Rule is the lesson as a candidate rule: concrete when a fix was seen
// ("run `make codegen` before `make build`"), else what did work.
func (l Lesson) Rule() (rule Rule, ok bool) {
	r := Rule{Pattern: "cmd:" + l.Command, Name: "command-" + slug(l.Command), Seen: l.Sessions, Confidence: Confidence(l.Sessions),
		Evidence: first(l.Evidence, 5)}
	failed := fmt.Sprintf("`%s` failed in %s (%s)", code(l.Command), textfmt.Plural(l.Sessions, "session", "sessions"),
		textfmt.Plural(l.Retries, "failed run", "failed runs"))
	switch {
	case l.Fix != "":
		with := ""
		if l.Error != "" {
			with = " with `" + code(l.Error) + "`"
		}
		r.Rule = fmt.Sprintf("`%s` fails%s unless `%s` runs first: run `%s` before `%s`.", code(l.Command), with, code(l.Fix), code(l.Fix), code(l.Command))
		r.Why = fmt.Sprintf("%s; it passed after `%s` in %s", failed, code(l.Fix), textfmt.Plural(l.Fixed, "session", "sessions"))
	case l.FixNote != "":
		r.Rule = fmt.Sprintf("`%s` has failed the same way in %d sessions (`%s`); what worked: %s.", code(l.Command), l.Sessions, code(l.Error), strings.TrimSuffix(l.FixNote, "."))
		r.Why = failed
	default:
		return Rule{}, false
	}
	return r, true
}
