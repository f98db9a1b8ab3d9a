package search

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// digestEpisode writes an episode whose digest holds turns of (prompt,
// answer), said at the episode's time.
func (w *world) digestEpisode(t testing.TB, name, title string, at time.Time, turns ...[2]string) string {
	t.Helper()
	type note struct {
		Turn int    `json:"turn"`
		At   string `json:"at"`
		Kind string `json:"kind"`
		Text string `json:"text"`
	}
	var notes []note
	for i, tr := range turns {
		notes = append(notes, note{i + 1, at.Format(time.RFC3339), "prompt", tr[0]}, note{i + 1, at.Format(time.RFC3339), "answer", tr[1]})
	}
	ep := map[string]any{"session_id": name, "goal": title, "title": title, "turns": len(turns), "started_at": at.Format(time.RFC3339),
		"outcome": "done", "friction": map[string]string{"class": "OK"}, "digest": map[string]any{"notes": notes}}
	data, _ := json.Marshal(ep)
	path := filepath.Join(w.e.EpisodesDir(w.p.Key), at.UTC().Format("20060102T150405Z")+"-"+name+".json")
	storetest.Mkfile(t, path, string(data))
	return path
}

// TestPluralsMeet: a plural in -is that English does not know as a word
// ("Ferraris") meets its singular; "analysis" stays itself.
func TestPluralsMeet(t *testing.T) {
	w := newWorld(t)
	p := w.digestEpisode(t, "cars", "garage", time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC),
		[2]string{"I restored a red Ferrari with my uncle last spring", "What a project!"})
	hits := w.search(t, "how many Ferraris did I restore?", Options{})
	if len(hits) == 0 || hits[0].Path != p {
		t.Fatalf("Ferraris does not find the Ferrari: %+v", hits)
	}
	if stem("analysis") != "analysis" || stem("ferraris") != "ferrari" {
		t.Errorf("stem(analysis) = %q, stem(ferraris) = %q", stem("analysis"), stem("ferraris"))
	}
}

// TestPersonOutweighsReply: of two sessions that hold a question's words,
// the one where the person wrote them ranks above the one where only the
// model's reply did.
func TestPersonOutweighsReply(t *testing.T) {
	w := newWorld(t)
	at := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	said := w.digestEpisode(t, "said", "lists", at,
		[2]string{"how do I make an HTML list?", "Use ol for an ordered list of airlines or anything else, ul otherwise."})
	person := w.digestEpisode(t, "person", "travel", at.Add(time.Hour),
		[2]string{"I flew with three airlines this year, in this order: KLM, then Iberia, then Qantas", "Quite a year."})
	hits := w.search(t, "what was the order of the airlines I flew?", Options{})
	if len(hits) < 2 || hits[0].Path != person {
		t.Fatalf("the person's words do not come first: %+v (want %s before %s)", hits, person, said)
	}
}

// TestDaysSpanWeighAsOne: a session that names every day of a span does
// not outrank the one said on one of them for what the span is asked.
func TestDaysSpanWeighAsOne(t *testing.T) {
	w := newWorld(t)
	namer := w.digestEpisode(t, "namer", "calendar", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
		[2]string{"list the dates April 24, April 25, April 26, April 27, April 28, April 29, April 30 for the rota", "Done."})
	said := w.digestEpisode(t, "said", "bike", time.Date(2026, 4, 27, 9, 0, 0, 0, time.UTC),
		[2]string{"I bought a road bike today", "Nice!"})
	hits := w.search(t, "what did I buy in the last week of April?", Options{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)})
	if len(hits) == 0 || hits[0].Path != said {
		t.Fatalf("the session said in the span does not come first: %+v (namer %s)", hits, namer)
	}
}

// TestNoHitTwice: a memory found through several words related to the
// query's (none of its own) is listed once.
func TestNoHitTwice(t *testing.T) {
	w := newWorld(t)
	storetest.Mkfile(t, w.e.GlobalMemory(), "## Payments\n- payment tests run on staging with the billing spec\n")
	for _, q := range []string{"支付 测试", "pago pruebas"} {
		hits := w.search(t, q, Options{})
		seen := map[string]bool{}
		for _, h := range hits {
			if seen[h.Ref()] {
				t.Errorf("%q lists %s twice: %+v", q, h.Ref(), hits)
			}
			seen[h.Ref()] = true
		}
	}
}

// TestEverySessionHoldsItTellsNoneApart: when every session holds a
// prompt's words, no session is recalled for them, however many lines of
// memory that are no session leave them out (a session is weighed among
// sessions, a line among lines); and a line that holds a word few lines
// hold is recalled, though every session holds that word too.
func TestEverySessionHoldsItTellsNoneApart(t *testing.T) {
	w := newWorld(t)
	at := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	for i := range 30 {
		w.digestEpisode(t, fmt.Sprintf("s%02d", i), "shop work", at.Add(time.Duration(i)*time.Hour),
			[2]string{fmt.Sprintf("the checkout client payment timeout again, take %d", i), "Looked at it."})
	}
	var lines strings.Builder
	lines.WriteString("## Notes\n")
	for i := range 120 {
		fmt.Fprintf(&lines, "- note %d about the warehouse shelving labels\n", i)
	}
	lines.WriteString("- The payment provider's sandbox answers on port 8443\n")
	storetest.Mkfile(t, store.RepoMemory(w.root), lines.String())
	sc := ScopeOf(&w.p, false)
	o := RecallOptions{Scope: sc, MaxItems: 3}
	rep, err := ExplainRecall(context.Background(), w.e, "the checkout client payment timeout?", o)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range rep.Recalled {
		if h.Kind == KindEpisode {
			t.Fatalf("a session recalled for words every session holds: %+v\nterms %+v", h, rep.Terms)
		}
	}
	rep, err = ExplainRecall(context.Background(), w.e, "which port does the payment sandbox answer on?", o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Recalled) == 0 || rep.Recalled[0].Path != store.RepoMemory(w.root) {
		t.Fatalf("the line about the sandbox is not recalled: %+v\nterms %+v", rep.Recalled, rep.Terms)
	}
}
