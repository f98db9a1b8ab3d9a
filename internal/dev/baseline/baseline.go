// Package baseline is what make recall prints beside ccmem: a plain BM25
// and grep over each session's full text, as anyone would build them,
// with a standard analyzer's words (no stemming, no stop words, no
// fields). Every corpus uses these two, so their figures compare.
package baseline

import (
	"math"
	"sort"
	"strings"
	"time"
	"unicode"
)

// Doc is one session's full text.
type Doc struct {
	ID   string
	Text string
	// Time orders grep's equals, newest first.
	Time time.Time
}

// Words are a text's plain terms, as a standard analyzer makes them
// (Lucene's StandardAnalyzer): case-folded runs of letters and digits, and
// each Han, Kana or Hangul character a term of its own.
func Words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		var run []rune
		for _, r := range w {
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
				if len(run) > 0 {
					out = append(out, string(run))
					run = run[:0]
				}
				out = append(out, string(r))
				continue
			}
			run = append(run, r)
		}
		if len(run) > 0 {
			out = append(out, string(run))
		}
	}
	return out
}

// Index is a plain BM25 index (k1 1.2, b 0.75) over docs.
type Index struct {
	docs []indexed
	df   map[string]int
	avg  float64
}

type indexed struct {
	Doc
	tf map[string]int
	n  int
}

// NewIndex indexes docs.
func NewIndex(docs []Doc) *Index {
	x := &Index{df: map[string]int{}}
	total := 0
	for _, d := range docs {
		in := indexed{Doc: d, tf: map[string]int{}}
		for _, t := range Words(d.Text) {
			if in.tf[t] == 0 {
				x.df[t]++
			}
			in.tf[t]++
			in.n++
		}
		total += in.n
		x.docs = append(x.docs, in)
	}
	x.avg = float64(total) / float64(max(len(docs), 1))
	return x
}

// BM25 ranks the docs that hold a word of the query, best first (their
// ids).
func (x *Index) BM25(query string) []string {
	type scored struct {
		id    string
		score float64
	}
	var out []scored
	terms := Words(query)
	n := float64(len(x.docs))
	for _, d := range x.docs {
		score := 0.0
		for _, t := range terms {
			tf := float64(d.tf[t])
			if tf == 0 {
				continue
			}
			df := float64(x.df[t])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			score += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(d.n)/x.avg))
		}
		if score > 0 {
			out = append(out, scored{d.ID, score})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	ids := make([]string, len(out))
	for i, s := range out {
		ids[i] = s.id
	}
	return ids
}

// Grep is grep -i with the query's words: the docs ranked by how many of
// its words (longer than two letters) their text holds, newer first among
// equals.
func Grep(docs []Doc, query string) []string {
	type scored struct {
		d     Doc
		count int
	}
	var out []scored
	var pats []string
	for _, f := range strings.Fields(strings.ToLower(query)) {
		f = strings.TrimFunc(f, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) })
		if len([]rune(f)) > 2 {
			pats = append(pats, f)
		}
	}
	for _, d := range docs {
		text := strings.ToLower(d.Text)
		n := 0
		for _, p := range pats {
			if strings.Contains(text, p) {
				n++
			}
		}
		if n > 0 {
			out = append(out, scored{d, n})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].count != out[j].count {
			return out[i].count > out[j].count
		}
		return out[i].d.Time.After(out[j].d.Time)
	})
	ids := make([]string, len(out))
	for i, s := range out {
		ids[i] = s.d.ID
	}
	return ids
}
