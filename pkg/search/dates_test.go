package search

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestFindDates: the days a text names, resolved against the day it was
// said (Friday 9 October 2026), in English, Spanish, Chinese and
// Japanese; a question's dates without a year are the last ones before.
func TestFindDates(t *testing.T) {
	said := time.Date(2026, 10, 9, 15, 0, 0, 0, time.UTC) // a Friday
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		text     string
		past     bool
		from, to time.Time
	}{
		{"Yesterday I ran my first 10k", false, day(10, 8), day(10, 9)},
		{"the vet says he'll be fine; surgery this morning", false, day(10, 9), day(10, 10)},
		{"we fly tomorrow", false, day(10, 10), day(10, 11)},
		{"the redesign shipped on Tuesday!", false, day(10, 6), day(10, 7)},
		{"let's meet next Monday", false, day(10, 12), day(10, 13)},
		{"two weeks ago", false, day(9, 21), day(9, 28)},
		{"last week was rough", false, day(9, 28), day(10, 5)},
		{"next month", false, day(11, 1), day(12, 1)},
		{"my birthday is on October 12", false, day(10, 12), day(10, 13)},
		{"the 3rd of November", false, day(11, 3), day(11, 4)},
		{"flights for the second week of September", false, day(9, 8), day(9, 15)},
		{"early May", true, day(5, 1), day(5, 11)},
		{"at the end of April", true, day(4, 21), day(5, 1)},
		{"What did Maya do on April 1?", true, day(4, 1), day(4, 2)},
		{"the outage in March", true, day(3, 1), day(4, 1)},
		{"2026-04-01", false, day(4, 1), day(4, 2)},
		{"Mi gato se escapó ayer", false, day(10, 8), day(10, 9)},
		{"¿Qué le pasó el 17 de marzo?", true, day(3, 17), day(3, 18)},
		{"a mediados de mayo", true, day(5, 11), day(5, 21)},
		{"la semana pasada", false, day(9, 28), day(10, 5)},
		{"昨天終於搬完家了", false, day(10, 8), day(10, 9)},
		{"我下個月要搬到台中", false, day(11, 1), day(12, 1)},
		{"小李四月中在忙什麼", true, day(4, 11), day(4, 21)},
		{"5月10日に何をしましたか", true, day(5, 10), day(5, 11)},
		{"昨日、フルマラソンを完走しました", false, day(10, 8), day(10, 9)},
		{"来週の水曜日", false, day(10, 14), day(10, 15)},
		{"下週三開會", false, day(10, 14), day(10, 15)},
		{"last spring", true, day(3, 1), day(6, 1)},
		{"去年春天", true, time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)},
	} {
		ms := findDates(c.text, said, c.past)
		if len(ms) == 0 {
			t.Errorf("%q: no date found", c.text)
			continue
		}
		if s := ms[0].span; !s.from.Equal(c.from) || !s.to.Equal(c.to) {
			t.Errorf("%q: %s–%s, want %s–%s", c.text, s.from.Format(time.DateOnly), s.to.Format(time.DateOnly), c.from.Format(time.DateOnly), c.to.Format(time.DateOnly))
		}
	}
	// Words that only look like dates name none (a bare "march" is read
	// as the month, though: a verb it seldom is).
	for _, text := range []string{"you may want to retry", "el turno de mañana", "por la mañana", "deploy the api", "三個月的合約", "fall back to the cache"} {
		if ms := findDates(text, said, false); len(ms) > 0 {
			t.Errorf("%q: found %v", text, ms[0].span)
		}
	}
}

// TestDateHintsHideNoMatch: a rule is only tried on a text that holds one
// of its hints; over texts that name every kind of date, in every
// language and case, no rule's pattern matches a text its hints would
// keep it from.
func TestDateHintsHideNoMatch(t *testing.T) {
	texts := []string{
		"the day before yesterday", "anteayer", "一昨日", "おととい", "前天",
		"yesterday", "last night", "ayer", "anoche", "昨天", "昨晚", "昨夜",
		"today", "tonight", "this morning", "this afternoon", "this evening", "hoy", "esta mañana", "esta tarde", "esta noche", "今天", "今日", "今朝", "今晚", "今夜",
		"the day after tomorrow", "pasado mañana", "後天", "后天", "明後日", "あさって",
		"tomorrow", "mañana", "明天", "明日",
		"two days ago", "a week ago", "3 months ago", "hace dos días", "hace una semana", "hace 3 meses", "三天前", "两个月前", "2週前", "3か月前",
		"last week", "this weekend", "next month", "la semana pasada", "el mes que viene", "el fin de semana pasado", "la próxima semana", "esta semana", "el próximo mes", "este fin de semana",
		"on monday", "last tuesday", "next wednesday", "thursday", "friday", "saturday", "sunday", "el lunes", "el martes pasado", "el miércoles", "el miercoles", "el jueves", "el viernes que viene", "el sábado", "el sabado", "el domingo próximo",
		"下週三", "上周五", "星期天", "禮拜一", "礼拜二", "来週の水曜日", "先週金曜", "今週の月曜日", "土曜日",
		"上週", "上个月", "先月", "這個月", "本週", "下個月", "来月", "週末", "周末",
		"april 1", "may 3rd", "the 3rd of november", "12 december", "el 17 de marzo", "el 2 de septiembre", "5月10日", "十二月三號", "2026-04-01",
		"early may", "mid-june", "late july", "the end of april", "the beginning of march", "start of august", "the middle of october", "principios de enero", "mediados de mayo", "finales de diciembre", "4月中", "5月上旬", "十月底",
		"the second week of september", "last week of january",
		"in march", "since february", "during november", "until december", "of june", "by july", "september", "en junio", "desde abril", "hasta octubre", "de agosto", "3月", "十月份",
		"last spring", "this summer", "next fall", "in the autumn", "in winter", "la primavera pasada", "el verano", "en otoño", "el invierno pasado", "去年春天", "今年的夏天", "秋天", "冬天", "去年の春", "来年の冬",
	}
	x := hintsOf()
	for _, text := range texts {
		for _, low := range []string{strings.ToLower(text), "we said " + strings.ToLower(text) + " then"} {
			found, _ := x.held(low, false)
			for i, r := range dayRules {
				if r.re.MatchString(low) && !x.tried(found, i) {
					t.Errorf("%q: rule %d (%s…) matches but its hints keep it from being tried", low, i, r.hints[0])
				}
			}
			// An ASCII text is searched for hints in any case, unlowered.
			if ascii(low) {
				for _, cased := range []string{strings.ToUpper(low), titleASCII(low)} {
					folded, _ := x.held(cased, true)
					if !slices.Equal(folded, found) {
						t.Errorf("%q: its hints are not found as in %q", cased, low)
					}
				}
			}
		}
		at := time.Date(2026, 10, 9, 15, 0, 0, 0, time.UTC)
		got := findDates(text, at, false)
		if len(got) == 0 {
			t.Errorf("%q: no date found", text)
		}
		if up := findDates(strings.ToUpper(text), at, false); !reflect.DeepEqual(up, got) && ascii(text) {
			t.Errorf("%q in capitals: %v, want %v", text, up, got)
		}
	}
}

// TestSearchByTheDaysSaid: a session that says "yesterday" is found by a
// question that names that day, months later, though no word of it
// matches; the day a memory was said counts as well as the ones it names.
func TestSearchByTheDaysSaid(t *testing.T) {
	w := newWorld(t)
	said := func(id, at, prompt, answer string) {
		path := filepath.Join(w.e.EpisodesDir(w.p.Key), strings.NewReplacer("-", "", ":", "").Replace(at)+"-"+id+".json")
		data, _ := json.Marshal(map[string]any{"session_id": id, "goal": prompt, "turns": 1, "started_at": at, "outcome": "done",
			"digest": map[string]any{"notes": []map[string]any{{"turn": 1, "at": at, "kind": "prompt", "text": prompt}, {"turn": 1, "at": at, "kind": "answer", "text": answer}}}})
		storetest.Mkfile(t, path, string(data))
	}
	said("s1", "2026-04-02T09:00:00Z", "I'm so sore today. Yesterday I ran my first 10k along the river", "Stretch gently and rest.")
	said("s2", "2026-04-01T09:00:00Z", "help me pick a laptop", "A light 13-inch one.")
	said("s3", "2026-05-04T09:00:00Z", "I started Portuguese lessons with a tutor", "Podcasts help a lot.")
	now := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	got := func(q string) []string {
		hits, err := Search(context.Background(), w.e, q, Options{Scope: ScopeOf(&w.p, false), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, strings.TrimSuffix(h.Path[strings.LastIndex(h.Path, "-")+1:], ".json"))
		}
		return slices.Compact(ids)
	}
	if ids := got("What did I do on April 1?"); len(ids) < 2 || !slices.Contains(ids[:2], "s1") || !slices.Contains(ids[:2], "s2") {
		t.Errorf("April 1: %v, want s1 (said yesterday) and s2 (held that day) first", ids)
	}
	if ids := got("what was I up to in early May?"); len(ids) == 0 || ids[0] != "s3" {
		t.Errorf("early May: %v, want s3 first", ids)
	}
}

// titleASCII upper-cases the first letter of each word of an ASCII text.
func titleASCII(s string) string {
	b := []byte(s)
	for i := range b {
		if (i == 0 || b[i-1] == ' ') && b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}
