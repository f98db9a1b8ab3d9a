package search

import (
	"math"
	"sort"
)

// evidence weighs what a prompt's hits hold of it, for recall's bar: only
// the prompt's telling terms count — not small talk, not the words
// requests are built of (weakTerms), and not a term this person's
// sessions hold so often that it tells none of them apart (common: in a
// quarter of them or more, once there are enough to tell).
type evidence struct {
	rd      reading
	terms   []string
	idf, df []float64
	// weak is why each term does not count ("" when it does, so far).
	weak []string
	// bit is each counted term's bit in a document's mask (0: not
	// tracked: weak, or past the 64 weightiest).
	bit []uint64
	// in counts the sessions holding each term, sessions all sessions
	// in scope (both as the search found them).
	in       []int
	sessions int
	// telling is the mask of terms that count once common ones are
	// known; total their weight.
	telling uint64
	total   float64
	// group is, for each term, the span of time it is a day or month of
	// (its index among the query's, from 1; 0: none): a span's terms
	// weigh as one, however many days it has.
	group []int
	// bar is the least evidence recall takes (see Bar).
	bar float64
	// own is how many of terms are the query's: the rest are related
	// words the bridge brought, which count toward a hit's evidence at
	// their (lowered) weight but not toward the whole.
	own int
}

// Bar is the least evidence a hit needs to be recalled: MinEvidence, or
// less in a memory so small that no term weighs that much (a term held by
// one session and one of its passages).
func (ev *evidence) Bar() float64 { return ev.bar }

// commonShare and commonFloor say when a term is common in a person's
// memory: held by at least commonShare of their sessions, when they have
// commonFloor sessions or more (fewer tell nothing about their habits).
const (
	commonShare = 0.25
	commonFloor = 8
)

func newEvidence(rd reading, terms []string, idf, df []float64, group []int, docs, own int) *evidence {
	ev := &evidence{rd: rd, terms: terms, idf: idf, df: df, weak: make([]string, len(terms)), bit: make([]uint64, len(terms)), in: make([]int, len(terms)),
		group: append(group, make([]int, len(terms)-len(group))...), bar: min(MinEvidence, math.Log(1+(float64(docs)-1.5)/2.5)), own: own}
	var telling []int
	for i, t := range terms {
		ev.weak[i] = rd.why[t]
		if ev.weak[i] == "" {
			telling = append(telling, i)
		}
	}
	// The weightiest 64 are tracked (a pasted page has hundreds).
	sort.SliceStable(telling, func(a, b int) bool { return idf[telling[a]] > idf[telling[b]] })
	for k, i := range telling[:min(len(telling), 64)] {
		ev.bit[i] = 1 << k
	}
	return ev
}

// reset clears the counts before a scoring pass.
func (ev *evidence) reset() {
	clear(ev.in)
	ev.sessions = 0
}

// settle marks the common terms, once every unit is scored, and the seams
// they make in text written without spaces (see reading.seams); then sums
// the telling terms' weight. A term no memory holds counts toward that
// weight, unless it is a bigram of text written without spaces: those
// are mostly the seams between its words, which no memory holds either.
func (ev *evidence) settle() {
	at := map[string]int{}
	for i, t := range ev.terms {
		at[t] = i
	}
	ev.rd.seams(func(t string) bool {
		i, ok := at[t]
		return ok && ev.Common(i)
	})
	ev.telling, ev.total = 0, 0
	spans := map[int]float64{}
	for i, t := range ev.terms {
		ev.weak[i] = ev.rd.why[t]
		if ev.weak[i] == "" && ev.Common(i) && ev.group[i] == 0 {
			ev.weak[i] = weakCommon
		}
		if ev.bit[i] == 0 || ev.weak[i] != "" {
			continue
		}
		ev.telling |= ev.bit[i]
		switch {
		case i >= ev.own:
		case ev.group[i] > 0:
			spans[ev.group[i]] = max(spans[ev.group[i]], ev.idf[i])
		case ev.df[i] == 0 && isCJKTerm(t):
		default:
			ev.total += ev.idf[i]
		}
	}
	for _, w := range spans {
		ev.total += w
	}
}

// Common tells whether term i is common in this memory.
func (ev *evidence) Common(i int) bool {
	return ev.sessions >= commonFloor && float64(ev.in[i]) >= commonShare*float64(ev.sessions)
}

// of is the evidence a document's mask gives: the weight of the telling
// terms it holds, and that as a share of theirs all.
func (ev *evidence) of(mask uint64) (float64, float64) {
	w := 0.0
	var spans map[int]float64
	for i, b := range ev.bit {
		if b == 0 || mask&b == 0 || ev.telling&b == 0 {
			continue
		}
		if g := ev.group[i]; g > 0 {
			if spans == nil {
				spans = map[int]float64{}
			}
			spans[g] = max(spans[g], ev.idf[i])
			continue
		}
		if i >= ev.own {
			// A related word the bridge brought: ranked at bridgeWeight,
			// it counts toward the bar at bridgeEvidence of its idf.
			w += ev.idf[i] * bridgeEvidence / bridgeWeight
			continue
		}
		w += ev.idf[i]
	}
	for _, x := range spans {
		w += x
	}
	if ev.total == 0 {
		// No word of the prompt's own is in memory (only related ones
		// are): the share is of nothing, the bar alone decides.
		if w > 0 {
			return math.Round(w*1000) / 1000, 1
		}
		return 0, 0
	}
	return math.Round(w*1000) / 1000, math.Round(min(w/ev.total, 1)*1000) / 1000
}

func isCJKTerm(t string) bool {
	for _, r := range t {
		return isCJK(r)
	}
	return false
}
