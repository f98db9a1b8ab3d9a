package search

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// stopwords are words too common in English to tell memories apart.
var stopwords = sync.OnceValue(func() map[string]bool { return set(stopText) })

const stopText = `a about above after again against all also am an and any are as at be because been
before being below between both but by can could did do does doing done down during each few for from
further had has have having he her here hers him his how i if in into is it its itself just me more most
my no nor not now of off on once only or other our ours out over own same she should so some such than
that the their theirs them then there these they this those through to too under until up very was we
were what when where which while who whom why will with would you your yours yourself let lets us via
get got use using used`

// chatter are the words of small talk ("thanks", "ok, go on"): a prompt of
// nothing else asks for no memory. Per-prompt recall drops them; search,
// which a person or the model runs on purpose, keeps them.
const chatterText = `thanks thank thx ok okay k yes yeah yep yup no nope sure great good nice cool fine
perfect awesome excellent lgtm please pls go ahead continue proceed carry on next keep going again try
retry looks look seems right correct wrong hi hello hey bye ready start stop wait hmm hm well so alright
works work worked working now then more do it that this sounds sound agreed agree makes sense
one never mind matter thing things stuff think idea something anything everything whatever maybe
really just also much many lot lots bit little way please ship done finish finished fine`

// promptStop is what per-prompt recall leaves out: stopwords, and small
// talk in every form. The sets are made on first use: the hooks that never
// search do not pay for them.
var promptStop = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for w := range stopwords() {
		m[w] = true
	}
	for w := range set(chatterText) {
		m[w], m[stem(w)] = true, true
	}
	return m
})

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Terms are the search terms of a text: case-folded words (runs of letters
// and digits), without stopwords, lightly stemmed so that "invoices",
// "invoice" and "invoicing" are one term.
func Terms(s string) []string { return appendTerms(nil, s, stopwords()) }

// promptTerms are the terms of a prompt for per-prompt recall: without the
// words of small talk either.
func promptTerms(s string) []string { return appendTerms(nil, s, promptStop()) }

func appendTerms(dst []string, s string, stop map[string]bool) []string {
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.ToLower(s[start:end])
		start = -1
		if utf8.RuneCountInString(w) < 2 && !isDigits(w) || len(w) > 64 || stop[w] {
			return
		}
		if st := stem(w); st != "" && !stop[st] {
			dst = append(dst, st)
		}
	}
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(s))
	return dst
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// stem strips the commonest English endings (plural -s/-es/-ies, -ing,
// -ed, a final -e) from an ASCII word, so the forms of one word meet; it
// is deliberately light: a word is only ever shortened, never rewritten
// into another.
func stem(w string) string {
	if len(w) <= 3 || !ascii(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		w = undouble(w[:len(w)-2])
	}
	if strings.HasSuffix(w, "e") && len(w) > 4 {
		w = w[:len(w)-1]
	}
	return w
}

// undouble drops the second of a doubled final consonant ("stopp" →
// "stop"), as the ending that followed it had doubled it.
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
