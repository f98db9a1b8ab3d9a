package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopwords are words too common in English to tell memories apart
// (stopList, sorted, is stopText as a list).

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
really just also much many lot lots bit little way please ship done finish finished fine
gracias vale sigue seguir perfecto bien sí si claro dale listo venga adelante genial hola
danke weiter gut ja jawohl prima super hallo merci oui parfait continue continuez bonjour
d'accord ok`

// chatterCJK is small talk in Chinese, Japanese and Korean: their bigrams
// (see appendTerms) join promptStopList.
const chatterCJK = `谢谢 好的 继续 可以 没问题 不错 好吧 是的 你好 收到 辛苦了 明白 了解 对的 嗯嗯 多谢
ありがとう ありがとうございます 了解です お願いします はい いいね 続けて 大丈夫 おはよう こんにちは 完璧 よろしく
감사합니다 좋아요 계속 네네 알겠습니다 안녕하세요`

// promptStopList is what per-prompt recall leaves out: stopwords, and
// small talk in every form (chatterText and its stems). Both lists are
// sorted literals, searched by bisection: a hook that builds a map of
// them on every run pays more for it than for the search
// (TestStopListsAreCurrent keeps them equal to the texts).
var stopList = []string{
	"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
	"are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
	"by", "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each", "few",
	"for", "from", "further", "get", "got", "had", "has", "have", "having", "he", "her", "here",
	"hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
	"just", "let", "lets", "me", "more", "most", "my", "no", "nor", "not", "now", "of",
	"off", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own", "same",
	"she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then",
	"there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "us",
	"use", "used", "using", "very", "via", "was", "we", "were", "what", "when", "where", "which",
	"while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
}
var promptStopList = []string{
	"a", "about", "above", "adelant", "adelante", "after", "again", "against", "agre", "agree", "agreed",
	"ahead", "all", "alright", "also", "am", "an", "and", "any", "anyth", "anything", "are", "as", "at",
	"awesom", "awesome", "be", "because", "been", "before", "being", "below", "between", "bien", "bit",
	"bonjour", "both", "but", "by", "bye", "can", "carry", "claro", "continu", "continue", "continuez", "cool",
	"correct", "could", "d'accord", "dale", "dank", "danke", "did", "do", "does", "doing", "done", "down",
	"during", "each", "everyth", "everything", "excellent", "few", "fine", "finish", "finished", "for", "from",
	"further", "genial", "get", "go", "going", "good", "got", "gracia", "gracias", "great", "gut", "had",
	"hallo", "has", "have", "having", "he", "hello", "her", "here", "hers", "hey", "hi", "him", "his", "hm",
	"hmm", "hola", "how", "i", "idea", "if", "in", "into", "is", "it", "its", "itself", "ja", "jawohl", "just",
	"k", "keep", "let", "lets", "lgtm", "listo", "littl", "little", "look", "looks", "lot", "lots", "make",
	"makes", "many", "matter", "mayb", "maybe", "me", "merci", "mind", "more", "most", "much", "my", "never",
	"next", "nice", "no", "nope", "nor", "not", "now", "of", "off", "ok", "okay", "on", "once", "one", "only",
	"or", "other", "oui", "our", "ours", "out", "over", "own", "parfait", "perfect", "perfecto", "pleas",
	"please", "pls", "prima", "proc", "proceed", "ready", "really", "retry", "right", "same", "seem", "seems",
	"seguir", "sens", "sense", "she", "ship", "should", "si", "sigu", "sigue", "so", "some", "someth",
	"something", "sound", "sounds", "start", "stop", "stuff", "such", "super", "sure", "sí", "than", "thank",
	"thanks", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "thing", "things",
	"think", "this", "those", "through", "thx", "to", "too", "try", "under", "until", "up", "us", "use", "used",
	"using", "vale", "venga", "very", "via", "wait", "was", "way", "we", "weiter", "well", "were", "what",
	"whatever", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "work", "worked",
	"working", "works", "would", "wrong", "yeah", "yep", "yes", "you", "your", "yours", "yourself", "yup",
	"あり", "いい", "いし", "いね", "いま", "うご", "おは", "お願", "がと", "けて",
	"こん", "ござ", "ざい", "しく", "しま", "ちは", "です", "とう", "にち", "はい",
	"はよ", "ます", "よう", "よろ", "りが", "ろし", "んに", "丈夫", "不错", "了解",
	"你好", "可以", "嗯嗯", "多谢", "大丈", "好吧", "好的", "完璧", "对的", "收到",
	"明白", "是的", "没问", "続け", "继续", "苦了", "解で", "谢谢", "辛苦", "问题",
	"願い", "감사", "겠습", "계속", "네네", "녕하", "니다", "사합", "세요", "습니",
	"아요", "안녕", "알겠", "좋아", "하세", "합니",
}

func inList(list []string) func(string) bool {
	return func(w string) bool {
		_, ok := slices.BinarySearch(list, w)
		return ok
	}
}

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
func Terms(s string) []string { return appendTerms(nil, s, inList(stopList)) }

// promptTerms are the terms of a prompt for per-prompt recall: without the
// words of small talk either.
func promptTerms(s string) []string { return appendTerms(nil, s, inList(promptStopList)) }

// appendTerms adds the terms of s: each run of letters and digits, case
// folded, without stop words and stemmed; a run of Han, Hiragana,
// Katakana or Hangul (written without spaces between words) becomes its
// overlapping bigrams, or itself when one character long, as Lucene's CJK
// analysis does: "改動歷程" gives 改動, 動歷, 歷程. Mixed text splits where
// the script changes ("API 网关" gives api and 网关).
func appendTerms(dst []string, s string, stop func(string) bool) []string {
	start := -1
	cjk := false
	flush := func(end int) {
		if start < 0 {
			return
		}
		run := s[start:end]
		start = -1
		if cjk {
			dst = appendBigrams(dst, run, stop)
			return
		}
		w := strings.ToLower(run)
		if utf8.RuneCountInString(w) < 2 && !isDigits(w) || len(w) > 64 || stop(w) {
			return
		}
		if st := stem(w); st != "" && !stop(st) {
			dst = append(dst, st)
		}
	}
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			c := isCJK(r)
			if start >= 0 && c != cjk {
				flush(i)
			}
			if start < 0 {
				start, cjk = i, c
			}
			continue
		}
		flush(i)
	}
	flush(len(s))
	return dst
}

// maxBigrams bounds the terms one run of CJK text gives (a pasted page).
const maxBigrams = 512

// appendBigrams adds the overlapping bigrams of a run of CJK characters.
func appendBigrams(dst []string, run string, stop func(string) bool) []string {
	if _, size := utf8.DecodeRuneInString(run); size == len(run) {
		if !stop(run) {
			dst = append(dst, run)
		}
		return dst
	}
	n := 0
	for i := 0; i < len(run) && n < maxBigrams; {
		_, a := utf8.DecodeRuneInString(run[i:])
		if i+a >= len(run) {
			break
		}
		_, b := utf8.DecodeRuneInString(run[i+a:])
		if bg := run[i : i+a+b]; !stop(bg) {
			dst = append(dst, bg)
			n++
		}
		i += a
	}
	return dst
}

// isCJK tells the characters written without spaces between words: Han,
// Hiragana, Katakana (and the prolonged sound mark) and Hangul.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 0x30fc
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
