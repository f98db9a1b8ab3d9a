package search

import (
	"math"
	"sort"

	"github.com/ccmem/ccmem/pkg/lexicon"
)

// evidence weighs what a prompt's hits hold of it, for recall's bar: only
// the prompt's telling terms count — not small talk, not the words
// requests are built of, not grammar (weakTerms) — and each counts by how
// unlikely it is that a session holds it by chance: what the word is in
// the language at large (lexicon.Chance: an everyday word is likely, a
// name, a piece of jargon or an identifier is not) and what it is in this
// person's sessions (held by most of them, it tells none apart). The two
// are pooled as a small store needs: the sessions that hold the word, and
// priorSessions imaginary sessions that hold it as often as the language
// says. In a store of five sessions, one that holds "item" says little; in
// a store of five hundred, one that holds "invoicing" says much.
type evidence struct {
	rd      reading
	terms   []string
	idf, df []float64
	// chance is each term's chance in the language (lexicon.Chance); w
	// its weight toward the bar in a session once the sessions that hold
	// it are counted, lineW in a memory that is no session (a line, an
	// entry) once those are (see settle).
	chance, w, lineW []float64
	// weak is why each term does not count ("" when it does, so far).
	weak []string
	// bit is each counted term's bit in a document's mask (0: not
	// tracked: weak, or past the 64 weightiest).
	bit []uint64
	// in counts the sessions holding each term, sessions all sessions
	// in scope; held counts the memories holding it, sessions and the
	// memories that are no session (a line of a MEMORY.md, a learned
	// entry, a record), memories the latter in scope (all as the search
	// found them).
	in, held []int
	sessions int
	memories int
	// telling is the mask of terms that count once common ones are
	// known; total their weight in a session, lineTotal in another memory.
	telling          uint64
	total, lineTotal float64
	// group is, for each term, the span of time it is a day or month of
	// (its index among the query's, from 1; 0: none): a span's terms
	// weigh as one, however many days it has.
	group []int
	// own is how many of terms are the query's: the rest are related
	// words the bridge brought, which count toward a hit's evidence at
	// bridgeEvidence of their weight but not toward the whole.
	own int
}

// priorSessions is how many memories' worth the language's word counts
// weigh beside this person's (see evidence).
const priorSessions = 4

// sessionTerms and memoryTerms are the lengths, in terms, of a session
// and of a memory that is no session (a line, an entry) that chances are
// reckoned for: lexicon.Chance is a session's; a line of a dozen words
// holds a word by chance a hundred times less often.
const (
	sessionTerms = 2000
	memoryTerms  = 20
)

// chanceDate is the chance a session says or names a given day.
const chanceDate = 0.04

// commonShare and commonFloor say when a term is common in a person's
// memory, to say so: held by at least commonShare of their sessions, when
// they have commonFloor sessions or more (fewer tell nothing about their
// habits). Its weight already says it (see evidence).
const (
	commonShare = 0.25
	commonFloor = 8
)

func newEvidence(rd reading, terms []string, idf, df []float64, group []int, own int) *evidence {
	n := len(terms)
	ev := &evidence{rd: rd, terms: terms, idf: idf, df: df, weak: make([]string, n), bit: make([]uint64, n), in: make([]int, n), held: make([]int, n),
		chance: make([]float64, n), w: make([]float64, n), lineW: make([]float64, n), group: append(group, make([]int, n-len(group))...), own: own}
	var telling []int
	for i, t := range terms {
		ev.weak[i] = rd.why[t]
		switch {
		case ev.group[i] > 0 || isDateTerm(t):
			ev.chance[i] = chanceDate
		default:
			ev.chance[i] = lexicon.Chance(t)
		}
		if ev.weak[i] == "" && ev.chance[i] >= 1 {
			ev.weak[i] = weakGrammar
		}
		if ev.weak[i] == "" {
			telling = append(telling, i)
		}
	}
	// The 64 least likely by chance are tracked (a pasted page has
	// hundreds of terms).
	sort.SliceStable(telling, func(a, b int) bool { return ev.chance[telling[a]] < ev.chance[telling[b]] })
	for k, i := range telling[:min(len(telling), 64)] {
		ev.bit[i] = 1 << k
	}
	return ev
}

// reset clears the counts before a scoring pass.
func (ev *evidence) reset() {
	clear(ev.in)
	clear(ev.held)
	ev.sessions, ev.memories = 0, 0
}

// settle weighs each term once every unit is scored (the sessions that
// hold it are known), marks the seams common terms make in text written
// without spaces (see reading.seams), then sums the telling terms' weight.
// A term no memory holds counts toward that weight, unless it is a bigram
// of text written without spaces: those are mostly the seams between its
// words, which no memory holds either.
func (ev *evidence) settle() {
	at := map[string]int{}
	for i, t := range ev.terms {
		at[t] = i
	}
	ev.rd.seams(func(t string) bool {
		i, ok := at[t]
		return ok && ev.Common(i)
	})
	ev.telling, ev.total, ev.lineTotal = 0, 0, 0
	spans, lineSpans := map[int]float64{}, map[int]float64{}
	for i, t := range ev.terms {
		// A session is weighed among the sessions, a memory that is no
		// session among those: a word every session holds tells no
		// session apart, however few lines of MEMORY.md hold it. The
		// language's chance is a session's; a line of a dozen words holds
		// a word by chance far less often.
		c := ev.chance[i]
		short := c
		if c < 1 {
			short = -math.Expm1(math.Log1p(-c) * memoryTerms / sessionTerms)
		}
		ev.w[i] = weightAmong(ev.in[i], ev.sessions, c)
		ev.lineW[i] = weightAmong(ev.held[i]-ev.in[i], ev.memories, short)
		if i >= ev.own {
			ev.w[i] *= bridgeEvidence // a related word the bridge brought
			ev.lineW[i] *= bridgeEvidence
		}
		ev.weak[i] = ev.rd.why[t]
		if ev.weak[i] == "" && ev.chance[i] >= 1 {
			ev.weak[i] = weakGrammar
		}
		if ev.bit[i] == 0 || ev.weak[i] != "" {
			continue
		}
		ev.telling |= ev.bit[i]
		switch {
		case i >= ev.own:
		case ev.group[i] > 0:
			spans[ev.group[i]] = max(spans[ev.group[i]], ev.w[i])
			lineSpans[ev.group[i]] = max(lineSpans[ev.group[i]], ev.lineW[i])
		case ev.df[i] == 0 && isCJKTerm(t):
		default:
			ev.total += ev.w[i]
			ev.lineTotal += ev.lineW[i]
		}
	}
	for g, w := range spans {
		ev.total += w
		ev.lineTotal += lineSpans[g]
	}
}

// weightAmong is a term's weight toward the bar in a memory of a kind
// that n memories in scope are, held of them by held: how unlikely it is
// that such a memory holds it by chance, the language's chance c pooled
// as priorSessions memories' worth.
func weightAmong(held, n int, c float64) float64 {
	return -math.Log(min((float64(held)+priorSessions*c)/(float64(n)+priorSessions), 1))
}

// Common tells whether term i is common in this memory.
func (ev *evidence) Common(i int) bool {
	return ev.sessions >= commonFloor && float64(ev.in[i]) >= commonShare*float64(ev.sessions)
}

// saidEvidence is how much a telling term counts when a memory holds it
// only in what the model said (a reply's generic words), not in what a
// person wrote.
const saidEvidence = 0.5

// of is the evidence a document's masks give (all the telling terms it
// holds, and those it holds outside what the model said): their weight,
// and that as a share of theirs all; session says whether the document is
// a session's (weighed among the sessions) or another memory (among
// those).
func (ev *evidence) of(mask, own uint64, session bool) (float64, float64) {
	weights, total := ev.lineW, ev.lineTotal
	if session {
		weights, total = ev.w, ev.total
	}
	w := 0.0
	var spans map[int]float64
	for i, b := range ev.bit {
		if b == 0 || mask&b == 0 || ev.telling&b == 0 {
			continue
		}
		x := weights[i]
		if own&b == 0 {
			x *= saidEvidence
		}
		if g := ev.group[i]; g > 0 {
			if spans == nil {
				spans = map[int]float64{}
			}
			spans[g] = max(spans[g], x)
			continue
		}
		w += x
	}
	for _, x := range spans {
		w += x
	}
	if total == 0 {
		// No word of the prompt's own is in memory (only related ones
		// are): the share is of nothing, the bar alone decides.
		if w > 0 {
			return math.Round(w*1000) / 1000, 1
		}
		return 0, 0
	}
	return math.Round(w*1000) / 1000, math.Round(min(w/total, 1)*1000) / 1000
}

func isCJKTerm(t string) bool {
	for _, r := range t {
		return isCJK(r)
	}
	return false
}
