package search

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/storetest"
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
