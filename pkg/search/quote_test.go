package search

import (
	"strings"
	"testing"
	"time"
)

func TestTimeWindow(t *testing.T) {
	now := time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC) // a Wednesday
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		query    string
		from, to time.Time
	}{
		{"what did we do yesterday?", day(11, 17), day(11, 18)},
		{"上周的部署是怎么做的", day(11, 9), day(11, 16)},
		{"¿qué cambiamos la semana pasada?", day(11, 9), day(11, 16)},
		{"先週のデプロイ", day(11, 9), day(11, 16)},
		{"the outage in March", day(3, 1), day(4, 1)},
		{"3月的事故", day(3, 1), day(4, 1)},
		{"what happened in December", time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC), day(1, 1)},
		{"last month's release", day(10, 1), day(11, 1)},
	} {
		w := TimeWindow(c.query, now)
		if !w.From.Equal(c.from) || !w.To.Equal(c.to) {
			t.Errorf("%q: window %v–%v, want %v–%v", c.query, w.From, w.To, c.from, c.to)
		}
	}
	if w := TimeWindow("how do we deploy the api?", now); !w.From.IsZero() {
		t.Errorf("no time word, a window: %v", w)
	}
}

func TestSupersededMarksTheOlderValue(t *testing.T) {
	old := Hit{Kind: KindEpisode, Path: "/a.json", Turn: 2, Time: time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC),
		Snippet: "set up deploys\n→ We deploy the shop api with Heroku pipelines from the main branch."}
	newer := Hit{Kind: KindEpisode, Path: "/b.json", Turn: 3, Time: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC),
		Snippet: "move hosting\n→ We deploy the shop api with Fly.io from the main branch."}
	other := Hit{Kind: KindEpisode, Path: "/c.json", Turn: 1, Time: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC),
		Snippet: "→ The shop api returns JSON errors with a code and a message."}
	by := Superseded([]Hit{old, newer, other}, "how do we deploy the shop api?")
	if by[0] != 1 || by[1] != -1 || by[2] != -1 {
		t.Fatalf("superseded by %v, want [1 -1 -1]", by)
	}
	if got := updatesFirst([]Hit{old, newer, other}, "how do we deploy the shop api?", 10); got[0].Path != "/b.json" || got[1].Path != "/a.json" {
		t.Fatalf("the newer value is not read first: %v %v", got[0].Path, got[1].Path)
	}
}

func TestQuotePassage(t *testing.T) {
	p := PassageText("by the way, the staging database password rotates every Monday. Anyway, refactor the checkout controller into services and keep the old endpoint.",
		"Split the controller into CartService and PaymentService. The old endpoint now calls CartService.")
	got := QuotePassage(p, "where is the staging database password?", 120)
	if !strings.Contains(got, "staging database password rotates every Monday") || len([]rune(got)) > 120 {
		t.Fatalf("quote %q", got)
	}
	if got := QuotePassage(p, "what did the old endpoint become?", 120); !strings.Contains(got, "The old endpoint now calls CartService") {
		t.Fatalf("quote %q", got)
	}
}
