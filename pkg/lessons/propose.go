package lessons

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// A rule drawn from one project's friction belongs to that project: it is
// named for it (two projects' rules never share a name), it waits in
// review until a person accepts it (nothing ccmem infers is shown to a
// session as true before then), and once accepted it applies in that
// project alone (scope: project), unless a person widens it. Every report
// recounts each rule's sessions and confidence from the evidence; an
// accepted rule whose friction stops recurring fades back to review.

// Proposal says what became of each rule offered for review.
type Proposal struct {
	Name string `json:"name"`
	// State is "proposed" (written to review), "pending" (already there),
	// "accepted" (a learned feedback entry already) or "rejected" (a person
	// said no before: not proposed again).
	State string `json:"state"`
	Path  string `json:"path,omitempty"`
}

// Prefix is what the names of a project's rules start with: the folder's
// name and a short hash of its path, so two projects' rules never collide.
func Prefix(root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	base := strings.ToLower(store.SafeFileName(filepath.Base(root)))
	if len(base) > 30 {
		base = base[:30]
	}
	return strings.Trim(base, ".-_") + "-" + hex.EncodeToString(sum[:2])
}

// Propose writes the rules not yet decided as pending feedback in review
// (~/.claude/ccmem/review/feedback/), named for the project rooted at
// root, where `ccmem learn review` shows them and --accept makes them
// learned feedback for this project, their evidence kept as provenance.
// One rejected before is not proposed again.
func Propose(e store.Env, root string, rules []Rule) ([]Proposal, error) {
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []Proposal
	for _, r := range rules {
		r.Name = Prefix(root) + "-" + r.Name
		p := Proposal{Name: r.Name}
		accepted, rejected := learn.Decided(e, r.Name)
		pending := filepath.Join(e.ReviewDir(), r.Name+".md")
		switch {
		case rejected != "":
			p.State, p.Path = "rejected", rejected
		case accepted != "":
			p.State, p.Path = "accepted", accepted
		case fileExists(pending):
			p.State, p.Path = "pending", pending
		default:
			if err := os.MkdirAll(e.ReviewDir(), 0o700); err != nil {
				return out, err
			}
			if err := provenance.NoteFile(e, drawn(e), pending); err != nil {
				return out, err
			}
			if err := store.WriteFileAtomic(pending, entry(e, root, r, e.Time(), "", kept{})); err != nil {
				return out, err
			}
			p.State, p.Path = "proposed", pending
		}
		out = append(out, p)
	}
	return out, nil
}

// drawn is the origin of what friction proposes: ccmem's own, recorded in
// this machine's ledger before it is written (the file's "origin:" line
// is for people; it proves nothing).
func drawn(e store.Env) provenance.Origin {
	return provenance.Origin{By: provenance.Derived, Via: "friction", At: e.Time()}
}

// kept is what a rewritten rule keeps of its decisions: whether a person
// accepted it and when, and whether they widened it to every project.
type kept struct {
	accepted, everywhere bool
	acceptedAt           time.Time
}

// listField is a frontmatter list of strings.
func listField(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			out = append(out, fmt.Sprint(x))
		}
	}
	return out
}

// entry is a rule as a feedback memory file: the rule, why, how to apply
// it, where it comes from and what it applies to.
func entry(e store.Env, root string, r Rule, proposed time.Time, faded string, k kept) []byte {
	var b strings.Builder
	q := strconv.Quote
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\nmetadata:\n  type: feedback\n", r.Name, q(r.Rule))
	fmt.Fprintf(&b, "origin: %s\n", learn.OriginFriction)
	if !k.everywhere {
		fmt.Fprintf(&b, "scope: %s\n", learn.ScopeProject)
	}
	fmt.Fprintf(&b, "source_cwd: %s\npattern: %s\n", q(root), q(r.Pattern))
	if k.accepted && !k.acceptedAt.IsZero() {
		fmt.Fprintf(&b, "accepted_at: %s\n", q(k.acceptedAt.UTC().Format(time.RFC3339)))
	}
	fmt.Fprintf(&b, "confidence: %s\nseen_in_sessions: %d\nproposed_at: %s\n", r.Confidence, r.Seen, q(proposed.UTC().Format(time.RFC3339)))
	if faded != "" {
		fmt.Fprintf(&b, "faded: %s\n", q(faded))
	}
	b.WriteString("evidence:\n")
	for _, ev := range r.Evidence {
		fmt.Fprintf(&b, "  - %s\n", q(textfmt.Line(e.TildeText(ev))))
	}
	// Where it applies is its scope's to say (a person may widen it): the
	// body does not repeat it.
	fmt.Fprintf(&b, "---\n\n%s\n\nWhy: %s (%s confidence).\nHow to apply: follow it before the step it names; `ccmem friction` shows whether its friction recurs and whether it bears on calls.\n",
		r.Rule, r.Why, r.Confidence)
	return []byte(b.String())
}

func fileExists(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Regraded is what a report changed of a project's rules.
type Regraded struct {
	Name string `json:"name"`
	// Change is "recounted" (its sessions and confidence follow the
	// evidence now) or "faded" (accepted, it bore on no call in the
	// RetireAfter sessions since: back in review, proposed for
	// retirement, no longer applied).
	Change     string `json:"change"`
	Seen       int    `json:"seen"`
	Confidence string `json:"confidence"`
}

// Regrade brings the rules drawn from the friction of the project rooted
// at root, pending and accepted, up to date with its sessions eps: each
// one's sessions and confidence are recounted from the evidence there is
// now, and an accepted rule that bore on no call in the RetireAfter
// sessions since it was accepted (see Measure) goes back to review,
// proposed for retirement and no longer applied until a person accepts it
// again. A rule that bears on calls stays, whether or not its friction
// still shows: friction that stopped is what a rule is for.
func Regrade(e store.Env, root string, eps []session.SessionFile) ([]Regraded, error) {
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return nil, err
	}
	defer unlock()
	all := Analyze(eps, time.Time{})
	byPattern := map[string]Rule{}
	for _, r := range all.Rules {
		byPattern[r.Pattern] = r
	}
	unmatched := map[string]bool{}
	for _, ef := range Measure(e, root, eps) {
		unmatched[ef.Path] = ef.Verdict == "unmatched"
	}
	var out []Regraded
	ledger := provenance.Load(e)
	for _, dir := range []string{e.ReviewDir(), filepath.Join(e.LearnedDir(), "feedback")} {
		accepted := dir != e.ReviewDir()
		ents, _ := os.ReadDir(dir)
		for _, de := range ents {
			if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".md") || strings.HasPrefix(de.Name(), ".") {
				continue
			}
			path := filepath.Join(dir, de.Name())
			data, err := store.ReadSmallFile(path, 1<<20)
			if err != nil {
				continue
			}
			m, _, err := frontmatter.Read(data)
			if err != nil {
				continue
			}
			origin, _ := m.Fields["origin"].(string)
			pattern, _ := m.Fields["pattern"].(string)
			if _, cwd := learn.ScopeOf(m); origin != learn.OriginFriction || pattern == "" || filepath.Clean(cwd) != filepath.Clean(root) {
				continue
			}
			// Only what this machine drew, or the person accepted: a file
			// that only says it came from friction is not regraded.
			if o := ledger.File(path, provenance.Digest(data)); accepted && !o.Standing() || !accepted && o.By != provenance.Derived {
				continue
			}
			proposed, _ := time.Parse(time.RFC3339, fmt.Sprint(m.Fields["proposed_at"]))
			seenBefore := intField(m.Fields["seen_in_sessions"])
			r, still := byPattern[pattern]
			if !still {
				// Its friction stopped: what it was drawn from still
				// stands, and a rule that works is kept as it is.
				r = Rule{Pattern: pattern, Rule: m.Description, Seen: seenBefore, Confidence: fmt.Sprint(m.Fields["confidence"])}
				r.Evidence = listField(m.Fields["evidence"])
				if _, body, err := frontmatter.Split(data); err == nil {
					if _, why, ok := strings.Cut(string(body), "\nWhy: "); ok {
						why, _, _ = strings.Cut(why, " (")
						r.Why = why
					}
				}
			}
			scope, _ := learn.ScopeOf(m)
			keep := kept{accepted: accepted, everywhere: scope == ""}
			if s, ok := m.Fields["accepted_at"].(string); ok {
				keep.acceptedAt, _ = time.Parse(time.RFC3339, s)
			}
			if proposed.IsZero() {
				proposed = keep.acceptedAt
			}
			r.Name = m.Name
			if r.Name == "" {
				r.Name = strings.TrimSuffix(de.Name(), ".md")
			}
			if accepted && unmatched[path] {
				why := fmt.Sprintf("it bore on no call in the %d sessions since it was accepted: proposed for retirement (--reject retires it, --accept keeps it)", RetireAfter)
				back := filepath.Join(e.ReviewDir(), de.Name())
				if err := provenance.NoteFile(e, drawn(e), back); err != nil {
					return out, err
				}
				if err := store.WriteFileAtomic(back, entry(e, root, r, proposed, why, kept{everywhere: keep.everywhere})); err != nil {
					return out, err
				}
				if err := os.Remove(path); err != nil {
					return out, err
				}
				out = append(out, Regraded{Name: r.Name, Change: "faded", Seen: r.Seen, Confidence: r.Confidence})
				continue
			}
			if !still || r.Seen == seenBefore && fmt.Sprint(m.Fields["confidence"]) == r.Confidence {
				continue
			}
			if err := store.WriteFileAtomic(path, entry(e, root, r, proposed, "", keep)); err != nil {
				return out, err
			}
			out = append(out, Regraded{Name: r.Name, Change: "recounted", Seen: r.Seen, Confidence: r.Confidence})
		}
	}
	slices.SortFunc(out, func(a, b Regraded) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

func intField(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case float64:
		return int(n)
	case string:
		i, _ := strconv.Atoi(n)
		return i
	}
	return 0
}
