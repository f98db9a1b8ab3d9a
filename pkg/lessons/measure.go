package lessons

import (
	"cmp"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/guard"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// A rule a person accepted has to prove itself: did the friction it was
// drawn from stop, and does it ever bear on what the sessions do? Measure
// counts both from the sessions' records — no new state: a session's
// record keeps its failures, signals, commands and changed files.

// Effect is what became of one accepted rule in a project.
type Effect struct {
	Name string `json:"name"`
	Rule string `json:"rule"`
	// Pattern is the friction it was drawn from ("cmd:make build"); ""
	// for a rule a person gave (no friction to count).
	Pattern string `json:"pattern,omitempty"`
	Path    string `json:"path"`
	// Accepted is when it was accepted (or, for an older entry, proposed).
	Accepted time.Time `json:"accepted,omitzero"`
	// Before and Since count the project's sessions before and since
	// acceptance, and in how many of them its friction showed.
	Before Span `json:"before"`
	Since  Span `json:"since"`
	// Matched is in how many sessions since acceptance it bore on a call
	// (a command run or a file changed: what pretooluse gives it for).
	Matched int `json:"matched"`
	// Verdict: "new" (fewer than MinSince sessions since: too early to
	// say), "helping" (its friction recurs less than before), "recurring"
	// (its friction keeps coming back: look at the rule), "unmatched"
	// (never bore on a call in RetireAfter sessions: proposed for
	// retirement), "holding" (it bears on calls; no friction to count).
	Verdict string `json:"verdict"`
}

// Span is a run of sessions and how many of them showed a friction.
type Span struct {
	Sessions int `json:"sessions"`
	Recurred int `json:"recurred"`
}

// Rate is the share of sessions with the friction (0 for none).
func (s Span) Rate() float64 {
	if s.Sessions == 0 {
		return 0
	}
	return float64(s.Recurred) / float64(s.Sessions)
}

const (
	// MinSince is how many sessions since acceptance a verdict needs.
	MinSince = 3
	// RetireAfter is how many sessions since acceptance without bearing
	// on a single call propose a rule for retirement.
	RetireAfter = 15
)

// Measure reads the accepted feedback that applies in the project rooted
// at root and measures each against its sessions eps.
func Measure(e store.Env, root string, eps []session.SessionFile) []Effect {
	here := store.HereOf(root, false)
	dir := filepath.Join(e.LearnedDir(), "feedback")
	ents, _ := os.ReadDir(dir)
	out := []Effect{}
	for _, de := range ents {
		if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".md") || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, de.Name())
		data, err := store.ReadSmallFile(p, 1<<20)
		if err != nil {
			continue
		}
		m, _, err := frontmatter.Read(data)
		if err != nil {
			continue
		}
		if scope, cwd := learn.ScopeOf(m); scope == learn.ScopeProject && !here.Holds(cwd, "") {
			continue
		}
		pattern, _ := m.Fields["pattern"].(string)
		accepted := acceptedAt(m, p)
		out = append(out, measure(Effect{Name: cmp.Or(m.Name, strings.TrimSuffix(de.Name(), ".md")), Rule: m.Description,
			Pattern: pattern, Path: p, Accepted: accepted}, eps))
	}
	slices.SortFunc(out, func(a, b Effect) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// acceptedAt is when an entry was accepted: accepted_at, else
// proposed_at, else the file's time.
func acceptedAt(m frontmatter.Meta, p string) time.Time {
	for _, k := range []string{"accepted_at", "proposed_at"} {
		if s, ok := m.Fields[k].(string); ok {
			if t, err := time.Parse(time.RFC3339, s); err == nil {
				return t
			}
		}
	}
	if fi, err := os.Stat(p); err == nil {
		return fi.ModTime()
	}
	return time.Time{}
}

// measure counts one rule's sessions and gives its verdict.
func measure(ef Effect, eps []session.SessionFile) Effect {
	for _, f := range eps {
		c := f.Record
		if c == nil || c.Automated {
			continue
		}
		t, _ := time.Parse(time.RFC3339Nano, c.StartedAt)
		span := &ef.Before
		since := !t.Before(ef.Accepted)
		if since {
			span = &ef.Since
		}
		span.Sessions++
		if ef.Pattern != "" && Recurs(ef.Pattern, c) {
			span.Recurred++
		}
		if since && bears(ef.Rule, ef.Pattern, c) {
			ef.Matched++
		}
	}
	switch {
	case ef.Since.Sessions < MinSince:
		ef.Verdict = "new"
	case ef.Matched == 0 && ef.Since.Sessions >= RetireAfter:
		ef.Verdict = "unmatched"
	case ef.Pattern == "":
		ef.Verdict = "holding"
	case ef.Since.Recurred >= 2 && ef.Since.Rate() >= 0.75*ef.Before.Rate():
		ef.Verdict = "recurring"
	default:
		ef.Verdict = "helping"
	}
	return ef
}

// Recurs tells whether a session shows the friction a rule was drawn from:
// the step failing ("cmd:make build"), the signal ("signal:tool_loop",
// and the signals taught with it), the person saying no to changes in the
// folder ("dir:api").
func Recurs(pattern string, c *session.Checkpoint) bool {
	kind, what, _ := strings.Cut(pattern, ":")
	switch kind {
	case "cmd":
		for _, n := range c.Digest.Notes {
			if n.Kind == session.NoteFailure && transcript.NormalCommand(n.Cmd) == what {
				return true
			}
		}
	case "signal":
		for _, sr := range signalRules {
			if sr.signals[0] == what {
				for _, s := range sr.signals {
					if c.Friction.Signals[s] > 0 {
						return true
					}
				}
			}
		}
	case "dir":
		if c.Friction.Signals["user_negation"] == 0 {
			return false
		}
		for _, f := range c.FilesChanged {
			if path.Dir(f) == what || strings.HasPrefix(f, what+"/") {
				return true
			}
		}
	}
	return false
}

// bears tells whether the rule bore on a call of the session: a command
// it names or forbids, a command or a changed file its words match.
func bears(rule, pattern string, c *session.Checkpoint) bool {
	kind, what, _ := strings.Cut(pattern, ":")
	for _, cmd := range c.Digest.Commands {
		if kind == "cmd" && transcript.NormalCommand(cmd) == what || guard.Bears(rule, cmd) {
			return true
		}
	}
	for _, f := range c.FilesChanged {
		if kind == "dir" && (path.Dir(f) == what || strings.HasPrefix(f, what+"/")) || guard.Bears(rule, f) {
			return true
		}
	}
	return false
}
