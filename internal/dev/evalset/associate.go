package evalset

import (
	"fmt"
	"io"

	"github.com/ccmem/ccmem/pkg/search"
)

// Associations from a person's own history (issue 48): a word of the
// question that co-occurs, across that person's sessions, with a word of
// the session that answers it, could bridge a question that shares no
// word with its answer. Before building it into search, Reach measures
// what it could do at best on the corpora's vocabulary-gap questions: for
// a question none of whose words its answer holds, do the words its words
// co-occur with (in two sessions or more of the same person, more often
// together than apart would give, in at most a quarter of them) reach a
// word of an answer session, and how many other sessions do they reach
// beside?

// AssociationReport is the bound on one corpus.
type AssociationReport struct {
	Corpus string
	// Gap counts the questions whose answer sessions hold none of their
	// words; Reached those an association reaches an answer of; Others
	// the sessions it reaches beside, over the reached questions.
	Gap, Reached, Others int
	Questions            int
}

// Add adds one question's outcome (see Reach).
func (r *AssociationReport) Add(gap, reached bool, others int) {
	r.Questions++
	if gap {
		r.Gap++
	}
	if reached {
		r.Reached++
		r.Others += others
	}
}

// Reach is the bound for one question: whether its answers (ids of
// sessions) hold none of its words (gap), and if so whether the
// associations of its words among the person's sessions (id -> what was
// said) reach one of them, and how many other sessions they reach.
func Reach(question string, answers []string, sessions map[string]string) (gap, reached bool, others int) {
	words := map[string]map[string]bool{}
	for id, text := range sessions {
		set := map[string]bool{}
		for _, t := range search.Terms(text) {
			set[t] = true
		}
		words[id] = set
	}
	qt := map[string]bool{}
	for _, t := range search.Terms(question) {
		qt[t] = true
	}
	if len(qt) == 0 {
		return false, false, 0
	}
	for _, sid := range answers {
		for t := range qt {
			if words[sid][t] {
				return false, false, 0
			}
		}
	}
	df := map[string]int{}
	for _, set := range words {
		for t := range set {
			df[t]++
		}
	}
	n := float64(len(words))
	assoc := map[string]bool{}
	for t := range qt {
		co := map[string]int{}
		for _, set := range words {
			if !set[t] {
				continue
			}
			for w := range set {
				if w != t {
					co[w]++
				}
			}
		}
		for w, k := range co {
			if k >= 2 && float64(k)*n > float64(df[t]*df[w]) && float64(df[w]) <= n/4 {
				assoc[w] = true
			}
		}
	}
	isAnswer := map[string]bool{}
	for _, sid := range answers {
		isAnswer[sid] = true
		for w := range assoc {
			if words[sid][w] {
				reached = true
			}
		}
	}
	if !reached {
		return true, false, 0
	}
	for id, set := range words {
		if isAnswer[id] {
			continue
		}
		for w := range assoc {
			if set[w] {
				others++
				break
			}
		}
	}
	return true, true, others
}

// AssociationBound measures the bound on a generated corpus.
func AssociationBound(name string, c *Corpus) AssociationReport {
	rep := AssociationReport{Corpus: name}
	for _, q := range c.Questions {
		project := c.projectOf(q)
		mine := map[string]string{}
		for _, s := range c.Sessions {
			if s.Project == project {
				mine[s.ID] = s.Text
			}
		}
		rep.Add(Reach(q.Text, q.Sessions, mine))
	}
	return rep
}

// PrintAssociations writes the bound.
func PrintAssociations(w io.Writer, reps []AssociationReport) {
	fmt.Fprintln(w, "associations from a person's own history (words that co-occur across their sessions), at best, on the prompts that share no word with their answer:")
	for _, r := range reps {
		fmt.Fprintf(w, "  %-28s %3d of %3d share no word with an answer; associations reach an answer for %d of them, and %d other sessions beside\n",
			r.Corpus, r.Gap, r.Questions, r.Reached, r.Others)
	}
}
