// Package lexicon says what a word is in the language at large, for
// search to weigh a prompt's words beside what they are in a person's
// memory: how likely a session of ordinary length holds a word by chance
// (an English word of everyday speech likely, jargon, names and code
// unlikely), which pieces of Chinese carry no topic (grammar, and the
// seams between words), and which traditional characters fold to
// simplified ones. The tables are derived from public lexical data by
// internal/dev/lexgen and embedded: a lookup reads a few pages of them,
// nothing is built at start.
package lexicon

import (
	_ "embed"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// en.txt: "term tier\n" lines sorted by term; tier 1, 2 or 3 (SCOWL's
// size classes 10, 20, 35/40).
//
//go:embed en.txt
var enTable string

// zh.bin: 7-byte records sorted by their bytes: a two-character word's
// UTF-8 and its class (0x80 grammar, else its idf in the language times 4).
//
//go:embed zh.bin
var zhTable string

// t2s.txt: pairs of a traditional character and its simplified form, sorted.
//
//go:embed t2s.txt
var foldTable string

// wn.txt: "term related related…" lines sorted by term: WordNet's
// bridge between related English words.
//
//go:embed wn.txt
var wnTable string

// Related are the English words WordNet relates to the search term t (see
// internal/dev/lexgen: synonyms, one level more general, two more
// particular), as search.Terms makes them; none when it knows none.
func Related(t string) []string {
	lo, hi := 0, len(wnTable)
	for lo < hi {
		m := (lo + hi) / 2
		start := strings.LastIndexByte(wnTable[:m], '\n') + 1
		end := start + strings.IndexByte(wnTable[start:], '\n')
		line := wnTable[start:end]
		term, rest, _ := strings.Cut(line, " ")
		switch {
		case term == t:
			return strings.Fields(rest)
		case term < t:
			lo = end + 1
		default:
			hi = start
		}
	}
	return nil
}

// zhgram.txt: the characters that are words of grammar on their own,
// sorted.
//
//go:embed zhgram.txt
var gramTable string

// GrammarChar tells whether a Chinese character is, written alone, a word
// of grammar (我 这 不 在 的 了 吗 是 个): a bigram between it and a word is
// the seam between two words.
func GrammarChar(r rune) bool {
	r, _ = fold(r)
	const rec = 3
	lo, hi := 0, len(gramTable)/rec
	for lo < hi {
		m := (lo + hi) / 2
		x, _ := utf8.DecodeRuneInString(gramTable[m*rec:])
		switch {
		case x == r:
			return true
		case x < r:
			lo = m + 1
		default:
			hi = m
		}
	}
	return false
}

// The chance a session of ordinary length holds a word of each kind by
// chance (see Chance).
const (
	chanceTier1   = 0.5   // SCOWL 10: the everyday words (make, item, view, current)
	chanceTier2   = 0.15  // SCOWL 20 (rationale, tiny, kernel)
	chanceTier3   = 0.03  // SCOWL 35, 40 (invoice, checkpoint, timezone)
	chanceRare    = 0.003 // no list holds it: jargon, names, identifiers
	chanceCJKRare = 0.004 // a Chinese word common lists leave out
	// zhScale turns a word's idf in the language into the chance a
	// session holds it: 1-exp(-zhScale·e^-idf).
	zhScale = 20.0
)

// Chance is how likely a session of ordinary length (a few thousand
// words) holds the search term t — as search.Terms makes it: lower case,
// stemmed, Chinese and Japanese as bigrams — by chance alone, judged from
// the language at large: about one half for an everyday English word, a
// few in a thousand for jargon, a name or an identifier. Grammar (see
// Grammar) is 1: it says nothing.
func Chance(t string) float64 {
	if t == "" {
		return 1
	}
	r, size := utf8.DecodeRuneInString(t)
	switch {
	case isCJK(r):
		if size == len(t) {
			return 1 // a single character
		}
		return chanceCJK(t)
	case isDigits(t):
		switch {
		case len(t) <= 2:
			return 0.5
		case len(t) <= 4:
			return 0.1
		}
		return 0.01
	}
	if Grammar(t) {
		return 1
	}
	if tier, ok := englishTier(t); ok {
		switch tier {
		case '1':
			return chanceTier1
		case '2':
			return chanceTier2
		}
		return chanceTier3
	}
	if hasDigit(t) && len(t) <= 3 {
		return 0.1 // v1, t7, 20k
	}
	return chanceRare
}

// Word tells whether a Chinese bigram is a word of the language (of two
// characters; the bigrams inside longer words are not).
func Word(t string) bool {
	_, ok := zhClass(Fold(t))
	return ok
}

// Grammar tells whether a term carries no topic: a Chinese word of
// grammar (之前, 只有, 一直, 什么, 一下; traditional characters are read
// as their simplified forms) or a Spanish function word (de, el, que,
// cómo). The seams between Chinese words are told apart by the words
// around them (search's reading of a prompt), not here: a name such as 小李
// or 健二 is no word of the dictionary, and it is no seam either.
func Grammar(t string) bool {
	r, size := utf8.DecodeRuneInString(t)
	if !isCJK(r) {
		_, ok := slices.BinarySearch(spanishGrammar, t)
		return ok
	}
	if size == len(t) || utf8.RuneCountInString(t) != 2 {
		return false
	}
	class, ok := zhClass(Fold(t))
	return ok && class == 0x80
}

// spanishGrammar are the Spanish words that carry no topic (the
// commonest of Snowball's Spanish stop words and the words a question is
// asked with, as search.Terms makes them; none that is also an English
// word of its own, such as son, era or sin), sorted: search's English stop
// words leave them in, and the English lists know them as rare.
var spanishGrammar = []string{
	"al", "algo", "aquí", "así", "cada", "como", "con", "contra", "cual", "cuando", "cuál", "cuándo", "cómo", "de", "del",
	"desd", "desde", "dond", "donde", "durant", "durante", "dónde", "el", "ella", "ellas", "ello", "ellos", "en", "entr",
	"entre", "es", "esa", "ese", "eso", "esta", "estaba", "estas", "este", "esto", "estos", "está", "fue", "ha", "hace",
	"hasta", "hay", "la", "las", "le", "les", "llama", "lo", "los", "me", "mi", "mis", "muy", "más", "mí", "nada", "ni", "no",
	"nos", "os", "otra", "otro", "para", "pasó", "pero", "poco", "por", "porqu", "porque", "que", "quien", "quién", "qué",
	"se", "ser", "si", "sobr", "sobre", "su", "sus", "sí", "también", "te", "ti", "todo", "todos", "tu", "tus", "tú", "un",
	"una", "uno", "unos", "ya", "yo", "él",
}

func chanceCJK(t string) float64 {
	if utf8.RuneCountInString(t) != 2 {
		return chanceCJKRare
	}
	for _, r := range t {
		if unicode.Is(unicode.Hiragana, r) {
			return 1 // Japanese grammar is written in hiragana
		}
	}
	class, ok := zhClass(Fold(t))
	if ok && class == 0x80 {
		return 1
	}
	if !ok {
		return chanceCJKRare
	}
	idf := float64(class) / 4
	return 1 - math.Exp(-zhScale*math.Exp(-idf))
}

// Fold is s with each traditional Chinese character that has one
// simplified form replaced by it.
func Fold(s string) string {
	var b []byte
	for i, r := range s {
		if r < 0x3400 {
			continue
		}
		to, ok := fold(r)
		if !ok {
			continue
		}
		if b == nil {
			b = []byte(s)
		}
		utf8.EncodeRune(b[i:], to) // both are 3 bytes (lexgen keeps only those)
	}
	if b == nil {
		return s
	}
	return string(b)
}

// fold finds a traditional character's simplified form (r itself, and
// false, when it has none).
func fold(r rune) (rune, bool) {
	const rec = 6 // two 3-byte characters
	lo, hi := 0, len(foldTable)/rec
	for lo < hi {
		m := (lo + hi) / 2
		from, _ := utf8.DecodeRuneInString(foldTable[m*rec:])
		switch {
		case from == r:
			to, _ := utf8.DecodeRuneInString(foldTable[m*rec+3:])
			return to, true
		case from < r:
			lo = m + 1
		default:
			hi = m
		}
	}
	return r, false
}

// zhClass finds a two-character word's class (see zh.bin).
func zhClass(w string) (byte, bool) {
	const rec = 7
	if len(w) != 6 {
		return 0, false
	}
	lo, hi := 0, len(zhTable)/rec
	for lo < hi {
		m := (lo + hi) / 2
		k := zhTable[m*rec : m*rec+6]
		switch {
		case k == w:
			return zhTable[m*rec+6], true
		case k < w:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0, false
}

// English tells whether an English list holds t as a word of its own
// (search's stem asks it of a word in -is: "analysis" is a word,
// "ferraris" a plural).
func English(t string) bool {
	_, ok := englishTier(t)
	return ok
}

// englishTier finds a term's size class in en.txt, by bisecting its
// lines.
func englishTier(t string) (byte, bool) {
	lo, hi := 0, len(enTable)
	for lo < hi {
		m := (lo + hi) / 2
		start := strings.LastIndexByte(enTable[:m], '\n') + 1
		end := start + strings.IndexByte(enTable[start:], '\n')
		line := enTable[start:end]
		sp := strings.IndexByte(line, ' ')
		term := line[:sp]
		switch {
		case term == t:
			return line[sp+1], true
		case term < t:
			lo = end + 1
		default:
			hi = start
		}
	}
	return 0, false
}

// isCJK tells the characters written without spaces between words.
func isCJK(r rune) bool {
	return r >= 0x1100 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 0x30fc)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }
