package search

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Quote is the part of text that answers query: the sentence (or the few
// adjacent sentences) holding the most of the query's weight, at most max
// characters, cut at a word when it must be. A text that fits is quoted
// whole.
func Quote(text, query string, max int) string {
	q, _ := quote(text, query, max)
	return q
}

// quote is Quote, and how many of the query's words the best sentence
// holds.
func quote(text, query string, max int) (string, int) {
	text = strings.Join(strings.Fields(text), " ")
	want := map[string]bool{}
	for _, t := range Terms(query) {
		want[t] = true
	}
	sents := sentences(text)
	best, bestScore := 0, -1
	for i, s := range sents {
		score := 0
		for _, t := range dedupe(Terms(s)) {
			if want[t] {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if utf8.RuneCountInString(text) <= max || len(sents) == 0 {
		return text, bestScore
	}
	// The best sentence, and its neighbours while they fit.
	out := sents[best]
	for lo, hi := best-1, best+1; ; {
		grew := false
		if hi < len(sents) && utf8.RuneCountInString(out)+1+utf8.RuneCountInString(sents[hi]) <= max {
			out, hi, grew = out+" "+sents[hi], hi+1, true
		}
		if lo >= 0 && utf8.RuneCountInString(out)+1+utf8.RuneCountInString(sents[lo]) <= max {
			out, lo, grew = sents[lo]+" "+out, lo-1, true
		}
		if !grew {
			break
		}
	}
	if r := []rune(out); len(r) > max {
		cut := string(r[:max-1])
		if i := strings.LastIndexByte(cut, ' '); i > max/2 {
			cut = cut[:i]
		}
		out = strings.TrimSpace(cut) + "…"
	}
	return out, bestScore
}

// sentences splits text after . ! ? and their CJK forms.
func sentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		switch r {
		case '.', '!', '?', ';':
			if next := i + 1; next < len(text) && text[next] != ' ' {
				continue // a version, a file name, a decimal
			}
		case '。', '！', '？', '；':
		default:
			continue
		}
		end := i + utf8.RuneLen(r)
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// Superseded tells which hits an update made old, for query: of two
// passages from different sessions whose sentences answering the query
// match the same words of it (the same subject) and share most of their
// other words, but not all (different values), the older is superseded by
// the newer. It returns, for each hit, the index of the hit that
// supersedes it (-1: none).
func Superseded(hits []Hit, query string) []int {
	out := make([]int, len(hits))
	terms := make([][]string, len(hits))
	asked := make([]string, len(hits))
	want := map[string]bool{}
	for _, t := range Terms(query) {
		want[t] = true
	}
	for i, h := range hits {
		out[i] = -1
		if h.Kind != KindEpisode || h.Turn == 0 {
			continue
		}
		_, said, ok := strings.Cut(h.Snippet, turnMark)
		if !ok {
			said = strings.TrimPrefix(h.Snippet, "→ ")
		}
		terms[i] = dedupe(Terms(Quote(said, query, 200)))
		var matched []string
		for _, t := range terms[i] {
			if want[t] {
				matched = append(matched, t)
			}
		}
		asked[i] = strings.Join(matched, " ")
	}
	for i := range hits {
		for j := range hits {
			if i == j || len(terms[i]) == 0 || len(terms[j]) == 0 || asked[i] == "" || asked[i] != asked[j] ||
				hits[i].Path == hits[j].Path || !hits[i].Time.Before(hits[j].Time) {
				continue
			}
			shared := 0
			for _, t := range terms[i] {
				if slices.Contains(terms[j], t) {
					shared++
				}
			}
			small := min(len(terms[i]), len(terms[j]))
			if shared >= 4 && float64(shared) >= 0.6*float64(small) && shared < small {
				if out[i] < 0 || hits[j].Time.After(hits[out[i]].Time) {
					out[i] = j
				}
			}
		}
	}
	return out
}

// Window is a span of time a query names ("yesterday", "last week", "in
// March", "上周"); the zero Window names none.
type Window struct{ From, To time.Time }

// Contains tells whether t falls in the window.
func (w Window) Contains(t time.Time) bool {
	return !w.From.IsZero() && !t.Before(w.From) && t.Before(w.To)
}

// TimeWindow finds the span of time a query names, relative to now (see
// findDates; a date without a year is the last one before now): from the
// first day it names to the last.
func TimeWindow(query string, now time.Time) Window {
	var w Window
	for _, m := range findDates(query, now, true) {
		if w.From.IsZero() || m.span.from.Before(w.From) {
			w.From = m.span.from
		}
		if m.span.to.After(w.To) {
			w.To = m.span.to
		}
	}
	return w
}
