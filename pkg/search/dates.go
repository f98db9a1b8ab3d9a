package search

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ccmem/ccmem/pkg/lazyregexp"
)

// Dates as a signal: a memory is indexed under the day it was said and
// the days it names ("yesterday", "next Friday", "on October 12",
// "下個月", "5月10日"), each resolved against the day it was said; a query
// that names a day or a span of time ("on April 1", "in early May", "last
// spring", "上週") looks for those days. Days and months are terms of
// their own (dayTerm, monthTerm), which no word of a text can spell.

// span is a stretch of whole days, [from, to), in UTC.
type span struct{ from, to time.Time }

// days is how many days the span covers.
func (s span) days() int { return int(s.to.Sub(s.from).Hours() / 24) }

// dayTerm and monthTerm are the index terms of a day and of a month.
func dayTerm(t time.Time) string   { return "@day:" + t.Format("2006-01-02") }
func monthTerm(t time.Time) string { return "@month:" + t.Format("2006-01") }

// namesDay tells a term that is the name of a month or a weekday (in
// English or Spanish).
func namesDay(t string) bool {
	for _, list := range []string{enMonths, esMonths, enDays, esDays} {
		for _, w := range strings.Split(list, "|") {
			if t == stem(w) {
				return true
			}
		}
	}
	return false
}

// isDateTerm tells a term dateTerms makes.
func isDateTerm(t string) bool { return strings.HasPrefix(t, "@") }

// maxDaySpan is the longest span named day by day; a longer one is named
// by its months.
const maxDaySpan = 14

// termsOf are the terms that name a span: its days when it is short, its
// months else.
func (s span) termsOf(dst []string) []string {
	if s.days() <= maxDaySpan {
		for d := s.from; d.Before(s.to); d = d.AddDate(0, 0, 1) {
			dst = append(dst, dayTerm(d))
		}
		return dst
	}
	for m := time.Date(s.from.Year(), s.from.Month(), 1, 0, 0, 0, 0, time.UTC); m.Before(s.to); m = m.AddDate(0, 1, 0) {
		dst = append(dst, monthTerm(m))
	}
	return dst
}

// dateTerms are the date terms of a text said at: its day and month, and
// the days (and their months) it names.
func dateTerms(text string, at time.Time) []string {
	if at.IsZero() {
		return nil
	}
	day := midnight(at)
	out := []string{dayTerm(day), monthTerm(day)}
	for _, m := range findDates(text, at, false) {
		out = m.span.termsOf(out)
		if m.span.days() <= maxDaySpan {
			out = append(out, monthTerm(m.span.from))
		}
	}
	return dedupe(out)
}

// dateMention is a span a text names, and where it names it.
type dateMention struct {
	span       span
	start, end int // byte offsets in the lowercased text
	named      bool
}

func midnight(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// dayRule is one way of naming days: a pattern over the lowercased text,
// and what a match names, said at at (past: a date with no year is the
// last one before at, as a question about memory means; else the nearest).
type dayRule struct {
	re   *lazyregexp.Regexp
	span func(m []string, at time.Time, past bool) (span, bool)
	// hint is a string a text must hold for the rule to be tried (a cheap
	// filter: most text names no day).
	hints []string
	// also, when set, is a second filter: the text must hold one of
	// these too.
	also []string
	// named: the rule names a date outright (a month, a day of one, a
	// season), not one relative to the day said ("yesterday").
	named bool
}

const (
	enMonths = `january|february|march|april|may|june|july|august|september|october|november|december`
	esMonths = `enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre`
	enDays   = `monday|tuesday|wednesday|thursday|friday|saturday|sunday`
	esDays   = `lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo`
	cjkNum   = `[0-9０-９一二三四五六七八九十两兩]{1,3}`
	enNum    = `\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten`
	esNum    = `\d+|un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez`
)

// monthHints are the month names a rule that needs one looks for before
// it is tried.
var monthHints = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
	"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "setiembre", "octubre", "noviembre", "diciembre"}

var dayRules = []dayRule{
	// Days counted from the day said.
	{re: lazyregexp.New(`\b(the day before yesterday|day before yesterday|anteayer|antes de ayer)\b|一昨日|おととい|前天`), span: offset(-2),
		hints: []string{"yesterday", "ayer", "一昨日", "おととい", "前天"}},
	{re: lazyregexp.New(`\b(yesterday|last night|ayer|anoche)\b|昨天|昨日|昨晚|昨夜|昨晚`), span: offset(-1),
		hints: []string{"yesterday", "last night", "ayer", "anoche", "昨"}},
	{re: lazyregexp.New(`\b(today|tonight|this morning|this afternoon|this evening|hoy|esta mañana|esta tarde|esta noche)\b|今天|今日|今朝|今晚|今夜`), span: offset(0),
		hints: []string{"today", "tonight", "this morning", "this afternoon", "this evening", "hoy", "esta mañana", "esta tarde", "esta noche", "今天", "今日", "今朝", "今晚", "今夜"}},
	{re: lazyregexp.New(`\b(the day after tomorrow|pasado mañana)\b|後天|后天|明後日|あさって`), span: offset(2),
		hints: []string{"after tomorrow", "pasado", "後天", "后天", "明後日", "あさって"}},
	{re: lazyregexp.New(`\btomorrow\b|(?:^|[^\p{L}])(?:(esta|la|de|por|cada|las|toda) )?mañana\b|明天|明日`), span: tomorrow,
		hints: []string{"tomorrow", "mañana", "明天", "明日"}},
	{re: lazyregexp.New(`\b(` + enNum + `) (day|week|month)s? ago\b|\bhace (` + esNum + `) (días?|semanas?|mes(?:es)?)\b|(` + cjkNum + `)(天|日|週|周|个月|個月|か月|ヶ月)前`), span: ago,
		hints: []string{" ago", "hace ", "前"}},
	// Weeks, weekends and months around the day said.
	{re: lazyregexp.New(`\b(last|this|next) (week|weekend|month)\b|\b(la semana|el mes|el fin de semana) (pasad[oa]|que viene|próxim[oa])\b|\b(la próxima|esta) (semana)\b|\b(el próximo|este) (mes|fin de semana)\b`), span: relative,
		hints: []string{"last week", "this week", "next week", "last month", "this month", "next month", "semana", "el mes", "este mes", "próximo mes"}},
	// A weekday: "on Tuesday", "last Friday", "el lunes", "下週三", "水曜日".
	{re: lazyregexp.New(`\b(?:(last|this|next|on) )?(` + enDays + `)\b|\bel (` + esDays + `)( pasado| que viene| próximo)?\b`), span: weekday,
		hints: []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "lunes", "martes", "rcoles", "jueves", "viernes", "bado", "domingo"}},
	{re: lazyregexp.New(`(上|下|這|这|本)?(?:週|周|星期|禮拜|礼拜)([一二三四五六日天])|(先週|来週|今週)の?([月火水木金土日])曜日?|([月火水木金土日])曜日?`), span: cjkWeekday,
		hints: []string{"週", "周", "星期", "禮拜", "礼拜", "曜"}},
	{re: lazyregexp.New(`上週|上周|上星期|上禮拜|上礼拜|先週|這週|这周|本週|本周|這星期|这星期|今週|下週|下周|下星期|下禮拜|下礼拜|来週|上個月|上个月|上月|先月|這個月|这个月|本月|今月|下個月|下个月|下月|来月|週末|周末`), span: cjkRelative,
		hints: []string{"週", "周", "星期", "禮拜", "礼拜", "月"}},
	// A day of a month: "April 1", "1st of April", "el 17 de marzo",
	// "5月10日", "2026-04-01".
	{re: lazyregexp.New(`\b(` + enMonths + `) (\d{1,2})(?:st|nd|rd|th)?\b|\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?(` + enMonths + `)\b|\b(\d{1,2}) de (` + esMonths + `)\b`), span: monthDay,
		hints: monthHints, named: true},
	{re: lazyregexp.New(`(` + cjkNum + `)月(` + cjkNum + `)[日號号]`), span: cjkMonthDay, hints: []string{"月"}, named: true},
	{re: lazyregexp.New(`\b(20\d\d)-(\d\d)-(\d\d)\b`), span: isoDay, hints: []string{"-01-", "-02-", "-03-", "-04-", "-05-", "-06-", "-07-", "-08-", "-09-", "-10-", "-11-", "-12-"}, named: true},
	// Part of a month: "early May", "the end of April", "a mediados de
	// mayo", "4月中", "5月上旬".
	{re: lazyregexp.New(`\b(early|mid|late|the end of|end of|the beginning of|beginning of|the start of|start of|the middle of|middle of)[ -]?(` + enMonths + `)\b|\b(principios|mediados|finales) de (` + esMonths + `)\b`), span: partOfMonth,
		hints: monthHints, named: true},
	{re: lazyregexp.New(`(` + cjkNum + `)月(初|上旬|中旬|中|下旬|底|末)`), span: cjkPartOfMonth, hints: []string{"月"}, named: true},
	// A week of a month: "the second week of September".
	{re: lazyregexp.New(`\b(first|second|third|fourth|last) week of (` + enMonths + `)\b`), span: weekOfMonth, hints: []string{"week of"}, also: monthHints, named: true},
	// A month: "in March", "September", "en junio", "3月"; bare "may" is
	// a verb, so May needs a preposition.
	{re: lazyregexp.New(`\b(?:in|since|during|until|of|by) (` + enMonths + `)\b|\b(january|february|march|april|june|july|august|september|october|november|december)\b|\b(?:en|de|desde|hasta) (` + esMonths + `)\b|(` + cjkNum + `)月(?:份)?`), span: month,
		hints: append([]string{"月"}, monthHints...), named: true},
	// A season: "last spring", "this summer", "el verano pasado", "去年春天".
	{re: lazyregexp.New(`\b(last|this|next|in the|in) (spring|summer|autumn|fall|winter)\b|\b(?:la|el|en) (primavera|verano|otoño|invierno)( pasad[oa])?\b|(去年|今年|明年)?(?:的)?(春天|夏天|秋天|冬天)|(去年|今年|来年)の(春|夏|秋|冬)`), span: season,
		hints: []string{"spring", "summer", "autumn", "last fall", "this fall", "next fall", "in the fall", "in fall", "winter", "primavera", "verano", "otoño", "invierno", "春天", "夏天", "秋天", "冬天", "の春", "の夏", "の秋", "の冬"}, named: true},
}

// hintIndex finds in one pass over a text which of the rules' hints it
// holds (trying each hint with strings.Contains was a third of building
// an index): hints are numbered rule by rule, and listed by their first
// two bytes.
type hintIndex struct {
	hints []string
	// rule[i] and also[i] are the numbers of rule i's hints and also.
	rule, also [][2]int
	lists      [][]int
}

// hintsBy holds, per two first bytes, 1 + the index in hintIndex.lists of
// the hints that start with them (0: none); in static memory, so that a
// process pays only for the pages it touches.
var hintsBy [1 << 16]uint8

var hintsOf = sync.OnceValue(func() *hintIndex {
	x := &hintIndex{}
	add := func(hs []string) [2]int {
		from := len(x.hints)
		for _, h := range hs {
			if len(h) < 2 {
				panic("search: a date hint shorter than two bytes: " + h)
			}
			id := len(x.hints)
			x.hints = append(x.hints, h)
			k := uint16(h[0])<<8 | uint16(h[1])
			if hintsBy[k] == 0 {
				if len(x.lists) == 255 {
					panic("search: too many date hint prefixes")
				}
				x.lists = append(x.lists, nil)
				hintsBy[k] = uint8(len(x.lists))
			}
			x.lists[hintsBy[k]-1] = append(x.lists[hintsBy[k]-1], id)
		}
		return [2]int{from, len(x.hints)}
	}
	for _, r := range dayRules {
		x.rule = append(x.rule, add(r.hints))
		x.also = append(x.also, add(r.also))
	}
	return x
})

// held marks which hints text holds, and tells whether it holds any. With
// fold, text is ASCII in any case (the hints are lower case): it is
// compared as if lowered, so that a text with no hint is never lowered.
func (x *hintIndex) held(text string, fold bool) ([]bool, bool) {
	found := make([]bool, len(x.hints))
	tab := &sameByte
	if fold {
		tab = &lowerByte
	}
	any := false
	for i := 0; i+1 < len(text); i++ {
		l := hintsBy[uint16(tab[text[i]])<<8|uint16(tab[text[i+1]])]
		if l == 0 {
			continue
		}
		for _, id := range x.lists[l-1] {
			h := x.hints[id]
			if found[id] || len(text)-i < len(h) {
				continue
			}
			j := 2
			for j < len(h) && tab[text[i+j]] == h[j] {
				j++
			}
			if j == len(h) {
				found[id], any = true, true
			}
		}
	}
	return found, any
}

// sameByte maps a byte to itself; lowerByte, an ASCII capital to its
// small letter.
var sameByte, lowerByte = func() (same, lower [256]byte) {
	for i := range same {
		same[i], lower[i] = byte(i), byte(i)
		if 'A' <= i && i <= 'Z' {
			lower[i] = byte(i) + 'a' - 'A'
		}
	}
	return
}()

// tried says whether rule i is to be tried on a text whose hints are
// found: it holds one of the rule's hints, and one of its also if any.
func (x *hintIndex) tried(found []bool, i int) bool {
	return slices.Contains(found[x.rule[i][0]:x.rule[i][1]], true) &&
		(x.also[i][0] == x.also[i][1] || slices.Contains(found[x.also[i][0]:x.also[i][1]], true))
}

// findDates finds the spans text names, said at; a match inside an
// earlier one ("the end of April" holds "April") is not another.
func findDates(text string, at time.Time, past bool) []dateMention {
	if at.IsZero() || text == "" {
		return nil
	}
	// Most texts name no day: an ASCII one is searched for the rules'
	// hints before it is lowered.
	x := hintsOf()
	var low string
	var found []bool
	if ascii(text) {
		var any bool
		if found, any = x.held(text, true); !any {
			return nil
		}
		low = strings.ToLower(text)
	} else {
		low = strings.ToLower(text)
		found, _ = x.held(low, false)
	}
	var out []dateMention
	var taken [][2]int
	for i, r := range dayRules {
		if !x.tried(found, i) {
			continue
		}
		for _, ix := range r.re.FindAllStringSubmatchIndex(low, 64) {
			if overlaps(taken, ix[0], ix[1]) {
				continue
			}
			m := make([]string, len(ix)/2)
			for i := range m {
				if ix[2*i] >= 0 {
					m[i] = low[ix[2*i]:ix[2*i+1]]
				}
			}
			s, ok := r.span(m, at, past)
			if !ok || !s.from.Before(s.to) {
				continue
			}
			out = append(out, dateMention{span: s, start: ix[0], end: ix[1], named: r.named})
			taken = append(taken, [2]int{ix[0], ix[1]})
		}
	}
	return out
}

func overlaps(taken [][2]int, from, to int) bool {
	for _, t := range taken {
		if from < t[1] && t[0] < to {
			return true
		}
	}
	return false
}

// oneDay is the span of the day d days after at.
func oneDay(at time.Time, d int) span {
	from := midnight(at).AddDate(0, 0, d)
	return span{from, from.AddDate(0, 0, 1)}
}

func offset(d int) func([]string, time.Time, bool) (span, bool) {
	return func(_ []string, at time.Time, _ bool) (span, bool) { return oneDay(at, d), true }
}

// tomorrow is "mañana" only when it is not "the morning" (esta mañana,
// por la mañana, el turno de mañana).
func tomorrow(m []string, at time.Time, _ bool) (span, bool) {
	if len(m) > 1 && m[1] != "" {
		return span{}, false
	}
	return oneDay(at, 1), true
}

// number reads a count or a day in digits (ASCII or full width), words
// (en, es) or Chinese numerals (一 to 三十一).
func number(s string) int {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	var ascii strings.Builder
	for _, r := range s {
		if r >= '０' && r <= '９' {
			r = '0' + (r - '０')
		}
		ascii.WriteRune(r)
	}
	if n, err := strconv.Atoi(ascii.String()); err == nil {
		return n
	}
	switch s {
	case "a", "an", "one", "un", "una":
		return 1
	case "two", "dos":
		return 2
	case "three", "tres":
		return 3
	case "four", "cuatro":
		return 4
	case "five", "cinco":
		return 5
	case "six", "seis":
		return 6
	case "seven", "siete":
		return 7
	case "eight", "ocho":
		return 8
	case "nine", "nueve":
		return 9
	case "ten", "diez":
		return 10
	}
	digit := map[rune]int{'一': 1, '二': 2, '两': 2, '兩': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	n, cur := 0, 0
	for _, r := range s {
		switch {
		case r == '十':
			n += max(cur, 1) * 10
			cur = 0
		case digit[r] > 0:
			cur = digit[r]
		default:
			return 0
		}
	}
	return n + cur
}

func ago(m []string, at time.Time, _ bool) (span, bool) {
	n, unit := 0, ""
	switch {
	case m[1] != "":
		n, unit = number(m[1]), m[2]
	case m[3] != "":
		n, unit = number(m[3]), m[4]
	case m[5] != "":
		n, unit = number(m[5]), m[6]
	}
	if n <= 0 || n > 400 {
		return span{}, false
	}
	switch {
	case strings.HasPrefix(unit, "day"), strings.HasPrefix(unit, "día"), unit == "天", unit == "日":
		return oneDay(at, -n), true
	case strings.HasPrefix(unit, "week"), strings.HasPrefix(unit, "semana"), unit == "週", unit == "周":
		return weekOf(midnight(at).AddDate(0, 0, -7*n)), true
	default:
		return monthOf(midnight(at).AddDate(0, -n, 0)), true
	}
}

// weekOf is the week (Monday to Sunday) that holds day d.
func weekOf(d time.Time) span {
	from := midnight(d).AddDate(0, 0, -int((d.Weekday()+6)%7))
	return span{from, from.AddDate(0, 0, 7)}
}

// weekendOf is the Saturday and Sunday of the week that holds day d.
func weekendOf(d time.Time) span {
	w := weekOf(d)
	return span{w.from.AddDate(0, 0, 5), w.to}
}

func monthOf(d time.Time) span {
	from := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)
	return span{from, from.AddDate(0, 1, 0)}
}

// around is the week, weekend or month step units away from at's.
func around(unit string, step int, at time.Time) span {
	day := midnight(at)
	switch unit {
	case "week":
		return weekOf(day.AddDate(0, 0, 7*step))
	case "weekend":
		return weekendOf(day.AddDate(0, 0, 7*step))
	}
	return monthOf(time.Date(day.Year(), day.Month()+time.Month(step), 1, 0, 0, 0, 0, time.UTC))
}

func relative(m []string, at time.Time, _ bool) (span, bool) {
	step := func(w string) int {
		switch {
		case w == "last" || strings.HasPrefix(w, "pasad"):
			return -1
		case w == "next" || w == "que viene" || strings.HasPrefix(w, "próxim"):
			return 1
		}
		return 0
	}
	unitOf := func(w string) string {
		switch {
		case strings.Contains(w, "fin de semana"):
			return "weekend"
		case strings.Contains(w, "semana"):
			return "week"
		case strings.Contains(w, "mes"):
			return "month"
		}
		return w
	}
	switch {
	case m[1] != "":
		return around(m[2], step(m[1]), at), true
	case m[3] != "":
		return around(unitOf(m[3]), step(m[4]), at), true
	case m[5] != "":
		return around("week", step(strings.TrimPrefix(m[5], "la ")), at), true
	case m[7] != "":
		return around(unitOf(m[8]), step(strings.TrimPrefix(m[7], "el ")), at), true
	}
	return span{}, false
}

func cjkRelative(m []string, at time.Time, _ bool) (span, bool) {
	w := m[0]
	step := 0
	switch {
	case strings.HasPrefix(w, "上"), strings.HasPrefix(w, "先"):
		step = -1
	case strings.HasPrefix(w, "下"), strings.HasPrefix(w, "来"):
		step = 1
	}
	switch {
	case w == "週末" || w == "周末":
		return weekendOf(midnight(at)), true
	case strings.HasSuffix(w, "月"):
		return around("month", step, at), true
	}
	return around("week", step, at), true
}

var (
	enWeekdays = strings.Split(enDays, "|")
	esWeekdays = []string{"lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"}
)

// onWeekday is the weekday wd (0 Monday) that step names from at: the
// last one before it (-1), the next after it (1), the one of its week
// (0), or, with no step, the nearest, the one before if as near.
func onWeekday(wd, step int, named bool, at time.Time) span {
	day := midnight(at)
	today := int((day.Weekday() + 6) % 7)
	switch {
	case !named:
		back := (today - wd + 7) % 7
		fwd := (wd - today + 7) % 7
		if back == 0 {
			return oneDay(day, 0)
		}
		if back <= fwd {
			return oneDay(day, -back)
		}
		return oneDay(day, fwd)
	case step < 0:
		return oneDay(day, -((today-wd+6)%7 + 1))
	case step > 0:
		return oneDay(day, (wd-today+6)%7+1)
	}
	return oneDay(day, wd-today)
}

func weekday(m []string, at time.Time, past bool) (span, bool) {
	if m[2] != "" {
		wd := indexOf(enWeekdays, m[2])
		switch m[1] {
		case "last":
			return onWeekday(wd, -1, true, at), true
		case "next":
			return onWeekday(wd, 1, true, at), true
		case "this":
			return onWeekday(wd, 0, true, at), true
		}
		if past {
			return lastWeekday(wd, at), true
		}
		return onWeekday(wd, 0, false, at), true
	}
	wd := indexOf(esWeekdays, strings.NewReplacer("miercoles", "miércoles", "sabado", "sábado").Replace(m[3]))
	if wd < 0 {
		return span{}, false
	}
	switch strings.TrimSpace(m[4]) {
	case "pasado":
		return onWeekday(wd, -1, true, at), true
	case "que viene", "próximo":
		return onWeekday(wd, 1, true, at), true
	}
	if past {
		return lastWeekday(wd, at), true
	}
	return onWeekday(wd, 0, false, at), true
}

// lastWeekday is the last weekday wd (0 Monday) on or before at: what a
// question about memory means by "on Tuesday".
func lastWeekday(wd int, at time.Time) span {
	today := int((midnight(at).Weekday() + 6) % 7)
	return oneDay(at, -((today - wd + 7) % 7))
}

func cjkWeekday(m []string, at time.Time, past bool) (span, bool) {
	if m[3] != "" {
		wd := strings.Index("月火水木金土日", m[4]) / len("月")
		step := map[string]int{"先週": -1, "今週": 0, "来週": 1}[m[3]]
		return oneDay(around("week", step, at).from, wd), true
	}
	if m[5] != "" {
		wd := strings.Index("月火水木金土日", m[5]) / len("月")
		if past {
			return lastWeekday(wd, at), true
		}
		return onWeekday(wd, 0, false, at), true
	}
	wd := strings.Index("一二三四五六日", m[2]) / len("一")
	if m[2] == "天" {
		wd = 6
	}
	switch m[1] {
	case "上":
		return oneDay(around("week", -1, at).from, wd), true
	case "下":
		return oneDay(around("week", 1, at).from, wd), true
	case "這", "这", "本":
		return oneDay(around("week", 0, at).from, wd), true
	}
	if past {
		return lastWeekday(wd, at), true
	}
	return onWeekday(wd, 0, false, at), true
}

// monthIndex is a month's number (1 to 12) from its name in English or
// Spanish, or 0.
func monthIndex(name string) int {
	if i := indexOf(strings.Split(enMonths, "|"), name); i >= 0 {
		return i + 1
	}
	if name == "setiembre" {
		return 9
	}
	if i := indexOf(strings.Split(esMonths, "|"), name); i >= 0 {
		if i > 8 {
			i-- // setiembre is listed beside septiembre
		}
		return i + 1
	}
	return 0
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// yearFor is the year a month (and day) without one means, said at: the
// last such date on or before at for a question (past), the nearest
// else.
func yearFor(month, day int, at time.Time, past bool) (time.Time, bool) {
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return time.Time{}, false
	}
	ref := midnight(at)
	best := time.Time{}
	for _, y := range []int{ref.Year() - 1, ref.Year(), ref.Year() + 1} {
		d := time.Date(y, time.Month(month), day, 0, 0, 0, 0, time.UTC)
		if d.Month() != time.Month(month) {
			return time.Time{}, false // April 31
		}
		if past && d.After(ref) {
			continue
		}
		if best.IsZero() || absDays(d, ref) < absDays(best, ref) {
			best = d
		}
	}
	return best, !best.IsZero()
}

func absDays(a, b time.Time) float64 {
	d := a.Sub(b).Hours()
	if d < 0 {
		d = -d
	}
	return d
}

func monthDay(m []string, at time.Time, past bool) (span, bool) {
	var mo, d int
	switch {
	case m[1] != "":
		mo, d = monthIndex(m[1]), number(m[2])
	case m[3] != "":
		mo, d = monthIndex(m[4]), number(m[3])
	case m[5] != "":
		mo, d = monthIndex(m[6]), number(m[5])
	}
	t, ok := yearFor(mo, d, at, past)
	if !ok {
		return span{}, false
	}
	return span{t, t.AddDate(0, 0, 1)}, true
}

func cjkMonthDay(m []string, at time.Time, past bool) (span, bool) {
	t, ok := yearFor(number(m[1]), number(m[2]), at, past)
	if !ok {
		return span{}, false
	}
	return span{t, t.AddDate(0, 0, 1)}, true
}

func isoDay(m []string, _ time.Time, _ bool) (span, bool) {
	t, err := time.Parse("2006-01-02", m[1]+"-"+m[2]+"-"+m[3])
	if err != nil {
		return span{}, false
	}
	return span{t, t.AddDate(0, 0, 1)}, true
}

// monthSpan is the month mo (1 to 12) that at means (see yearFor), from
// day from to day to (inclusive; 0: its last).
func monthSpan(mo, from, to int, at time.Time, past bool) (span, bool) {
	t, ok := yearFor(mo, 1, at, past)
	if !ok {
		return span{}, false
	}
	end := t.AddDate(0, 1, 0)
	if to > 0 {
		end = t.AddDate(0, 0, to)
	}
	return span{t.AddDate(0, 0, from-1), end}, true
}

// part is the days of a month a part of it covers: early, mid, late.
func part(p string) (int, int) {
	switch p {
	case "early", "beginning of", "the beginning of", "start of", "the start of", "principios", "初", "上旬":
		return 1, 10
	case "mid", "middle of", "the middle of", "mediados", "中", "中旬":
		return 11, 20
	}
	return 21, 0
}

func partOfMonth(m []string, at time.Time, past bool) (span, bool) {
	p, mo := m[1], m[2]
	if m[3] != "" {
		p, mo = m[3], m[4]
	}
	from, to := part(p)
	return monthSpan(monthIndex(mo), from, to, at, past)
}

func cjkPartOfMonth(m []string, at time.Time, past bool) (span, bool) {
	from, to := part(m[2])
	return monthSpan(number(m[1]), from, to, at, past)
}

var ordinals = []string{"first", "second", "third", "fourth"}

func weekOfMonth(m []string, at time.Time, past bool) (span, bool) {
	mo := monthIndex(m[2])
	if m[1] == "last" {
		s, ok := monthSpan(mo, 1, 0, at, past)
		return span{s.to.AddDate(0, 0, -7), s.to}, ok
	}
	k := indexOf(ordinals, m[1])
	return monthSpan(mo, 7*k+1, 7*k+7, at, past)
}

func month(m []string, at time.Time, past bool) (span, bool) {
	for _, name := range m[1:4] {
		if name != "" {
			return monthSpan(monthIndex(name), 1, 0, at, past)
		}
	}
	return monthSpan(number(m[4]), 1, 0, at, past)
}

// seasonMonths is the first month of each season (northern): spring,
// summer, autumn, winter.
func seasonStart(name string) int {
	switch name {
	case "spring", "primavera", "春天", "春":
		return 3
	case "summer", "verano", "夏天", "夏":
		return 6
	case "autumn", "fall", "otoño", "秋天", "秋":
		return 9
	}
	return 12
}

func season(m []string, at time.Time, past bool) (span, bool) {
	var name string
	step := 0 // 0: the nearest (the last one, for a question)
	switch {
	case m[2] != "":
		name = m[2]
		switch m[1] {
		case "last":
			step = -1
		case "next":
			step = 1
		case "this":
			step = 2 // this year's
		}
	case m[3] != "":
		name = m[3]
		if m[4] != "" {
			step = -1
		}
	case m[6] != "":
		name = m[6]
		switch m[5] {
		case "去年":
			step = -1
		case "今年":
			step = 2
		case "明年":
			step = 1
		}
	case m[8] != "":
		name = m[8]
		switch m[7] {
		case "去年":
			step = -1
		case "今年":
			step = 2
		case "来年":
			step = 1
		}
	}
	if name == "" {
		return span{}, false
	}
	start := seasonStart(name)
	day := midnight(at)
	of := func(y int) span {
		from := time.Date(y, time.Month(start), 1, 0, 0, 0, 0, time.UTC)
		return span{from, from.AddDate(0, 3, 0)}
	}
	y := day.Year()
	switch step {
	case -1:
		// The last whole season before at: last year's when this year's
		// has not ended.
		s := of(y)
		if s.to.After(day) {
			s = of(y - 1)
		}
		if m[5] == "去年" || m[7] == "去年" {
			s = of(y - 1)
		}
		return s, true
	case 1:
		s := of(y)
		if !s.from.After(day) {
			s = of(y + 1)
		}
		return s, true
	case 2:
		return of(y), true
	}
	// No step: the season that holds at, else the last one (for a
	// question) or the nearest.
	for _, s := range []span{of(y), of(y - 1), of(y + 1)} {
		if !day.Before(s.from) && day.Before(s.to) {
			return s, true
		}
	}
	s := of(y)
	if s.from.After(day) && (past || s.from.Sub(day) > day.Sub(of(y-1).to)) {
		s = of(y - 1)
	}
	return s, true
}
