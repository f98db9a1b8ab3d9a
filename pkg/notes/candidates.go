package notes

import (
	"cmp"
	"math"
	"slices"

	"github.com/ccmem/ccmem/pkg/records"
)

// Candidate is an existing record a new one may duplicate (look
// before you create).
type Candidate struct {
	Ref   string  `json:"ref"` // CATEGORY/ID
	Title string  `json:"title"`
	Hash  string  `json:"hash"`
	Score float64 `json:"score"`
}

// CandidateScore is the score from which a create is refused.
const CandidateScore = 0.5

// RecordCandidates scores the project's active records of r's category
// against it — the words of the title (half the score), the tags (a
// fifth) and the content (the rest), each as the share they have in
// common — and returns those scoring CandidateScore or more, best first.
func RecordCandidates(root string, r *records.Record) []Candidate {
	title, tags, text := termSet(r.Title), map[string]bool{}, termSet(r.ContentText())
	for _, t := range r.Tags {
		tags[t] = true
	}
	var out []Candidate
	for _, rf := range records.List(root) {
		o := rf.Record
		if o == nil || rf.Err != nil || o.Category != r.Category || o.RecordStatus != records.StatusActive || o.ID == r.ID && r.ID != "" {
			continue
		}
		otags := map[string]bool{}
		for _, t := range o.Tags {
			otags[t] = true
		}
		score := 0.5*jaccard(title, termSet(o.Title)) + 0.2*jaccard(tags, otags) + 0.3*jaccard(text, termSet(o.ContentText()))
		if score >= CandidateScore {
			out = append(out, Candidate{Ref: o.Category + "/" + o.ID, Title: o.Title, Hash: rf.Hash, Score: math.Round(score*100) / 100})
		}
	}
	slices.SortStableFunc(out, func(a, b Candidate) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

// jaccard is the share two sets have in common (0 when both are empty).
func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	both := 0
	for t := range a {
		if b[t] {
			both++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}
