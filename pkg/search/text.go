package search

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/lexicon"
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

// chatter are the words of small talk ("thanks", "ok, go on") and the
// verbs requests are made with ("add", "fix", "check"): a prompt of
// nothing else asks for no memory. They weigh little in a ranking and
// nothing toward recall's bar (see weakTerms).
const chatterText = `thanks thank thx ok okay k yes yeah yep yup no nope sure great good nice cool fine
perfect awesome excellent lgtm please pls go ahead continue proceed carry on next keep going again try
retry looks look seems right correct wrong hi hello hey bye ready start stop wait hmm hm well so alright
works work worked working now then more do it that this sounds sound agreed agree makes sense
one never mind matter thing things stuff think idea something anything everything whatever maybe
really just also much many lot lots bit little way please ship done finish finished fine
gracias vale sigue seguir perfecto bien sí si claro dale listo venga adelante genial hola
danke weiter gut ja jawohl prima super hallo merci oui parfait continue continuez bonjour
d'accord ok
help add fix make change update create remove show write check need want tell give explain`

// chatterCJK is small talk in Chinese (simplified and traditional),
// Japanese and Korean, and the words most requests open with or are
// built of ("help me", "check", "a moment", "what", "this", "problem"):
// their bigrams (see appendTerms) join promptStopList. Written without
// spaces, a short request is mostly these.
const chatterCJK = `谢谢 謝謝 好的 继续 繼續 可以 没问题 沒問題 不错 不錯 好吧 是的 你好 收到 辛苦了 明白 了解
对的 對的 嗯嗯 多谢 多謝 不用了 就这样 就這樣 没事 沒事 好啊 行吧 对吧 對吧 哈哈 好嗎 好吗 感谢 感謝
帮我 幫我 帮忙 幫忙 麻烦 麻煩 一下 看看 看一下 确认 確認 请问 請問 请你 請你 这个 這個 那个 那個 这些 這些
什么 什麼 怎么 怎麼 为什么 為什麼 怎么样 怎麼樣 我们 我們 你们 你們 现在 現在 一个 一個 有没有 有沒有 能不能
需要 应该 應該 是不是 还是 還是 问题 問題 一些 然后 然後 如果 因为 因為 所以 但是 已经 已經
ありがとう ありがとうございます 了解です お願いします はい いいね 続けて 大丈夫 おはよう こんにちは 完璧 よろしく
確認 今回 問題 以下 下さい
감사합니다 좋아요 계속 네네 알겠습니다 안녕하세요 확인 부탁 해주세요`

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
	"a", "about", "above", "add", "adelant", "adelante", "after", "again", "against", "agre", "agree", "agreed",
	"ahead", "all", "alright", "also", "am", "an", "and", "any", "anyth", "anything", "are", "as", "at",
	"awesom", "awesome", "be", "because", "been", "before", "being", "below", "between", "bien", "bit",
	"bonjour", "both", "but", "by", "bye", "can", "carry", "chang", "change", "check", "claro", "continu",
	"continue", "continuez", "cool", "correct", "could", "creat", "create", "d'accord", "dale", "dank", "danke",
	"did", "do", "does", "doing", "done", "down", "during", "each", "everyth", "everything", "excellent",
	"explain", "few", "fine", "finish", "finished", "fix", "for", "from", "further", "genial", "get", "give",
	"go", "going", "good", "got", "gracia", "gracias", "great", "gut", "had", "hallo", "has", "have", "having",
	"he", "hello", "help", "her", "here", "hers", "hey", "hi", "him", "his", "hm", "hmm", "hola", "how", "i",
	"idea", "if", "in", "into", "is", "it", "its", "itself", "ja", "jawohl", "just", "k", "keep", "let", "lets",
	"lgtm", "listo", "littl", "little", "look", "looks", "lot", "lots", "make", "makes", "many", "matter",
	"mayb", "maybe", "me", "merci", "mind", "more", "most", "much", "my", "need", "never", "next", "nice", "no",
	"nope", "nor", "not", "now", "of", "off", "ok", "okay", "on", "once", "one", "only", "or", "other", "oui",
	"our", "ours", "out", "over", "own", "parfait", "perfect", "perfecto", "pleas", "please", "pls", "prima",
	"proc", "proceed", "ready", "really", "remov", "remove", "retry", "right", "same", "seem", "seems",
	"seguir", "sens", "sense", "she", "ship", "should", "show", "si", "sigu", "sigue", "so", "some", "someth",
	"something", "sound", "sounds", "start", "stop", "stuff", "such", "super", "sure", "sí", "tell", "than",
	"thank", "thanks", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "thing",
	"things", "think", "this", "those", "through", "thx", "to", "too", "try", "under", "until", "up", "updat",
	"update", "us", "use", "used", "using", "vale", "venga", "very", "via", "wait", "want", "was", "way", "we",
	"weiter", "well", "were", "what", "whatever", "when", "where", "which", "while", "who", "whom", "why",
	"will", "with", "work", "worked", "working", "works", "would", "writ", "write", "wrong", "yeah", "yep",
	"yes", "you", "your", "yours", "yourself", "yup", "あり", "いい", "いし", "いね", "いま",
	"うご", "おは", "お願", "がと", "けて", "こん", "ござ", "さい", "ざい", "しく",
	"しま", "ちは", "です", "とう", "にち", "はい", "はよ", "ます", "よう", "よろ",
	"りが", "ろし", "んに", "一下", "一个", "一些", "一個", "丈夫", "下さ", "不是",
	"不用", "不能", "不錯", "不错", "为什", "么样", "了解", "什么", "什麼", "今回",
	"以下", "但是", "你们", "你們", "你好", "可以", "哈哈", "問題", "嗯嗯", "因为",
	"因為", "多謝", "多谢", "大丈", "好吗", "好吧", "好啊", "好嗎", "好的", "如果",
	"完璧", "对吧", "对的", "對吧", "對的", "就这", "就這", "已經", "已经", "帮忙",
	"帮我", "幫忙", "幫我", "应该", "怎么", "怎麼", "感謝", "感谢", "應該", "我们",
	"我們", "所以", "收到", "明白", "是不", "是的", "有沒", "有没", "沒事", "沒問",
	"沒有", "没事", "没有", "没问", "為什", "然后", "然後", "现在", "現在", "用了",
	"看一", "看看", "确认", "確認", "続け", "繼續", "继续", "能不", "苦了", "行吧",
	"解で", "請你", "請問", "謝謝", "请你", "请问", "谢谢", "辛苦", "还是", "这个",
	"这些", "这样", "這些", "這個", "這樣", "還是", "那个", "那個", "问题", "需要",
	"願い", "麻烦", "麻煩", "麼樣", "감사", "겠습", "계속", "네네", "녕하", "니다",
	"부탁", "사합", "세요", "습니", "아요", "안녕", "알겠", "좋아", "주세", "하세",
	"합니", "해주", "확인",
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
func Terms(s string) []string { return appendTerms(nil, s, isStopword) }

// isStopword tells whether w is in stopList. Indexing asks it of every
// word of every session; a prompt, of a few: the map is made on first use
// (a few microseconds), which a list searched by bisection loses to after
// some thousands of words.
func isStopword(w string) bool {
	if len(w) > maxStopword {
		return false
	}
	_, ok := stopSet()[w]
	return ok
}

// maxStopword is the length of the longest word in stopList.
const maxStopword = 8

var stopSet = sync.OnceValue(func() map[string]struct{} {
	m := make(map[string]struct{}, len(stopList))
	for _, w := range stopList {
		m[w] = struct{}{}
	}
	return m
})

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
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") &&
		(!strings.HasSuffix(w, "is") || len(w) > 4 && !lexicon.English(w)):
		// A word in -is is a plural ("Ferraris", "wikis") unless English
		// knows it as it is ("analysis", "tennis").
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

// Why a term of a prompt carries no weight toward recall's bar (see
// weakTerms and Recall).
const (
	weakSmallTalk = "small talk or a request word"
	weakGrammar   = "a grammatical ending"
	weakSeam      = "spans two request words"
	weakSingle    = "a single character"
	weakCommon    = "common in this memory"
	weakDate      = "a date"
)

// reading is how a prompt's terms weigh: why each is weak ("" when it
// tells what the prompt is about), and, for the text written without
// spaces, each run's bigrams in order (to find the seams again once the
// words common in a person's memory are known: see seams).
type reading struct {
	why  map[string]string
	runs [][]string
}

// weakTerms tells, for each term of a prompt (as Terms gives them), why
// it says nothing about which memory the prompt needs ("" when it does):
// small talk and the words requests are made of (promptStopList); in
// text written without spaces, a single character, a bigram with kana
// (Japanese grammar: particles, endings) or a Chinese particle (的, 了,
// 嗎), and a bigram whose characters both belong to request words
// ("幫我確認" gives 我確, which only joins two of them). A term weak in
// one place and not in another is not weak.
func weakTerms(prompt string) map[string]string { return readPrompt(prompt).why }

func readPrompt(prompt string) reading {
	rd := reading{why: map[string]string{}}
	stopped := inList(promptStopList)
	start := -1
	cjk := false
	flush := func(end int) {
		if start < 0 {
			return
		}
		run := prompt[start:end]
		start = -1
		if !cjk {
			for _, t := range appendTerms(nil, run, isStopword) {
				if stopped(t) {
					rd.mark(t, weakSmallTalk)
				} else {
					rd.mark(t, "")
				}
			}
			return
		}
		rs := []rune(run)
		if len(rs) == 1 {
			rd.mark(run, weakSingle)
			return
		}
		rs = rs[:min(len(rs), maxBigrams+1)]
		bgs := make([]string, len(rs)-1)
		for i := range bgs {
			bgs[i] = string(rs[i : i+2])
		}
		rd.runs = append(rd.runs, bgs)
	}
	for i, r := range prompt {
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
	flush(len(prompt))
	rd.seams(nil)
	return rd
}

// mark records why term t is weak where it stands; telling anywhere wins.
func (rd reading) mark(t, why string) {
	if cur, ok := rd.why[t]; !ok || cur != "" {
		rd.why[t] = why
	}
}

// seams weighs the bigrams of the runs: request words and grammar, then
// the bigrams whose both characters belong to request words or to the
// words common (when common is set) in this person's memory.
func (rd reading) seams(common func(string) bool) {
	stopped := inList(promptStopList)
	for _, bgs := range rd.runs {
		for _, bg := range bgs {
			delete(rd.why, bg)
		}
	}
	for _, bgs := range rd.runs {
		why := make([]string, len(bgs))
		// cover: the bigram is a word (a request word, a word common in
		// this memory or a word of the language), whose characters it
		// takes.
		cover := make([]bool, len(bgs))
		for i, bg := range bgs {
			cover[i] = lexicon.Word(bg)
			switch {
			case stopped(bg):
				why[i] = weakSmallTalk
				cover[i] = true
			case common != nil && common(bg):
				why[i] = weakCommon
				cover[i] = true
			case hasGrammar(bg) || lexicon.Grammar(bg):
				why[i] = weakGrammar
			}
		}
		// A bigram whose first character a word or a character of grammar
		// on its left takes, and whose second one a word or a character
		// of grammar on its right takes, only joins them ("件报" in 插件报错,
		// "我確" in 幫我確認, "交代" in 提交代码).
		taken := func(i int, left bool) bool {
			r, _ := utf8.DecodeRuneInString(bgs[i])
			if !left {
				_, size := utf8.DecodeRuneInString(bgs[i])
				r, _ = utf8.DecodeRuneInString(bgs[i][size:])
			}
			if lexicon.GrammarChar(r) {
				return true
			}
			if left {
				return i > 0 && cover[i-1]
			}
			return i+1 < len(bgs) && cover[i+1]
		}
		for i, bg := range bgs {
			if why[i] == "" && taken(i, true) && taken(i, false) {
				why[i] = weakSeam
			}
			rd.mark(bg, why[i])
		}
	}
}

// hasGrammar tells whether a bigram holds Hiragana (Japanese grammar is
// written in it; its content words mostly in Han or Katakana) or one of
// the Chinese particles that only join words.
func hasGrammar(bg string) bool {
	for _, r := range bg {
		if unicode.Is(unicode.Hiragana, r) || strings.ContainsRune("的了嗎吗呢吧啊呀嘛喔哦", r) {
			return true
		}
	}
	return false
}

// AsksQuestion tells whether a prompt asks a question: it ends with a
// question mark, opens with a question word (what, when, how, did, ¿…),
// or holds one of Chinese (什麼, 哪, 誰, 嗎, 呢, 多少) or Japanese (いつ, どこ,
// 誰, 何, ending in か).
func AsksQuestion(prompt string) bool {
	p := strings.TrimSpace(ClientMarks(prompt))
	if p == "" {
		return false
	}
	if strings.HasSuffix(p, "?") || strings.HasSuffix(p, "？") || strings.HasPrefix(p, "¿") {
		return true
	}
	if words := strings.FieldsFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }); len(words) > 0 &&
		slices.Contains(questionWords, strings.ToLower(words[0])) {
		return true
	}
	for _, q := range questionCJK {
		if strings.Contains(p, q) {
			return true
		}
	}
	return strings.HasSuffix(p, "か") || strings.HasSuffix(p, "か。")
}

// questionWords open an English or Spanish question.
var questionWords = []string{"what", "what's", "whats", "when", "where", "who", "whom", "whose", "which", "why", "how", "did", "do",
	"does", "is", "are", "was", "were", "can", "could", "should", "would", "will", "have", "has", "qué", "cuándo", "dónde",
	"quién", "cómo", "cuál", "cuánto", "por"}

// questionCJK are the words Chinese and Japanese questions are asked with.
var questionCJK = []string{"什麼", "什么", "哪", "誰", "谁", "幾", "几", "嗎", "吗", "呢", "多少", "怎麼", "怎么", "為何", "为何",
	"いつ", "どこ", "どう", "何"}
