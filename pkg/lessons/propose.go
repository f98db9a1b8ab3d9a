package lessons

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ccmem/ccmem/internal/str"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/store"
)

// Proposal says what became of each antigen offered for review.
type Proposal struct {
	Name string `json:"name"`
	// State is "proposed" (written to review), "pending" (already there),
	// "accepted" (a learned feedback entry already) or "rejected" (a person
	// said no before: not proposed again).
	State string `json:"state"`
	Path  string `json:"path,omitempty"`
}

// Propose writes the antigens not yet decided as pending feedback in
// review (~/.claude/ccmem/review/feedback/), where `ccmem learn review`
// shows them and --accept makes them learned feedback, their evidence
// kept as provenance. One rejected before is not proposed again.
func Propose(e store.Env, project string, ants []Antigen) ([]Proposal, error) {
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []Proposal
	for _, a := range ants {
		p := Proposal{Name: a.Name}
		accepted, rejected := learn.Decided(e, a.Name)
		pending := filepath.Join(e.ReviewDir(), a.Name+".md")
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
			if err := store.WriteFileAtomic(pending, entry(e, project, a)); err != nil {
				return out, err
			}
			p.State, p.Path = "proposed", pending
		}
		out = append(out, p)
	}
	return out, nil
}

// entry is an antigen as a feedback memory file: the rule, why, how to
// apply it, and where it comes from.
func entry(e store.Env, project string, a Antigen) []byte {
	var b strings.Builder
	q := strconv.Quote
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\nmetadata:\n  type: feedback\n", a.Name, q(a.Rule))
	fmt.Fprintf(&b, "source: %s\nconfidence: %s\nseen_in_sessions: %d\nproposed_at: %s\n", q("ccmem friction ("+project+")"), a.Confidence, a.Seen,
		q(e.Time().UTC().Format("2006-01-02T15:04:05Z")))
	b.WriteString("evidence:\n")
	for _, ev := range a.Evidence {
		fmt.Fprintf(&b, "  - %s\n", q(str.Line(e.TildeText(ev))))
	}
	fmt.Fprintf(&b, "---\n\n%s\n\nWhy: %s (%s confidence).\nHow to apply: follow it in this project's sessions; `ccmem friction` shows whether the friction recurs.\n",
		a.Rule, a.Why, a.Confidence)
	return []byte(b.String())
}

func fileExists(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}
