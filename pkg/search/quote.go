package search

import (
	"slices"
	"strconv"
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

var months = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}

// TimeWindow finds the span of time a query names, relative to now.
func TimeWindow(query string, now time.Time) Window {
	q := strings.ToLower(query)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	weekStart := day.AddDate(0, 0, -int((day.Weekday()+6)%7)) // Monday
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(q, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("yesterday", "昨天", "昨日", "ayer", "gestern", "hier "):
		return Window{day.AddDate(0, 0, -1), day}
	case has("today", "今天", "今日", "hoy", "heute", "aujourd"):
		return Window{day, day.AddDate(0, 0, 1)}
	case has("last week", "上周", "上星期", "先週", "la semana pasada", "letzte woche", "semaine dernière"):
		return Window{weekStart.AddDate(0, 0, -7), weekStart}
	case has("this week", "本周", "这周", "今週", "esta semana", "diese woche", "cette semaine"):
		return Window{weekStart, weekStart.AddDate(0, 0, 7)}
	case has("last month", "上个月", "上月", "先月", "el mes pasado", "letzten monat", "mois dernier"):
		return Window{monthStart.AddDate(0, -1, 0), monthStart}
	}
	month := 0
	for i, m := range months {
		if strings.Contains(q, "in "+m) || strings.Contains(q, "en "+spanishMonths[i]) {
			month = i + 1
		}
	}
	if i := strings.Index(q, "月"); month == 0 && i > 0 { // 3月, 12月
		j := i
		for j > 0 && q[j-1] >= '0' && q[j-1] <= '9' {
			j--
		}
		if n, err := strconv.Atoi(q[j:i]); err == nil && n >= 1 && n <= 12 {
			month = n
		}
	}
	if month == 0 {
		return Window{}
	}
	y := now.Year()
	if time.Month(month) > now.Month() {
		y-- // "in March" said in January: the March before
	}
	from := time.Date(y, time.Month(month), 1, 0, 0, 0, 0, time.UTC)
	return Window{from, from.AddDate(0, 1, 0)}
}

var spanishMonths = []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}

// isTimeWord tells a term of the time phrases above: when a query names a
// span of time, they narrow the search by date and are not looked for in
// the text.
func isTimeWord(t string) bool {
	switch t {
	case "yesterday", "today", "week", "month", "last", "ago", "this", "ayer", "hoy", "semana", "pasada", "mes", "pasado",
		"gestern", "heute", "woche", "letzt", "letzte", "monat", "hier", "semaine", "dernier", "derni", "dernière",
		"昨天", "今天", "上周", "本周", "这周", "上个", "个月", "上星", "星期", "先週", "今週", "先月", "昨日", "今日", "上月":
		return true
	}
	for i, m := range months {
		if t == m || t == stem(m) || t == spanishMonths[i] {
			return true
		}
	}
	return strings.HasSuffix(t, "月") && len(t) <= len("12月")
}
