package triage

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

func cats(hits []Hit) string {
	s := ""
	for _, h := range hits {
		s += h.Category + " "
	}
	return s
}

func TestScore(t *testing.T) {
	tests := []struct {
		name string
		msgs []string
		act  Activity
		want string
	}{
		{"decision with rationale", []string{"We decided to use Postgres because it already runs everywhere."}, Activity{}, "decision "},
		{"decision without rationale stays under", []string{"We decided to use Postgres."}, Activity{}, ""},
		{"rationale alone is nothing", []string{"Because it is faster."}, Activity{}, ""},
		{"two decisions", []string{"We chose gRPC over REST. We will go with protobuf."}, Activity{}, "decision "},
		{"runbook", []string{"The root cause was a stale lock; the fix was to remove it after the crash."}, Activity{}, "runbook "},
		{"constraint", []string{"The API cannot take more than 100 items; it is a hard limit, always."}, Activity{}, "constraint "},
		{"tech debt", []string{"This is a hack for now, we should come back to it later."}, Activity{}, "tech_debt "},
		{"preference", []string{"I prefer table-driven tests, never one-off functions."}, Activity{}, "preference "},
		{"busy session", nil, Activity{ToolUses: 20, DistinctTools: 5, Exchanges: 2}, "session_summary "},
		{"quiet session", nil, Activity{ToolUses: 3, DistinctTools: 2, Exchanges: 1}, ""},
		{"small talk", []string{"Hello! How can I help?", "thanks"}, Activity{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msgs []Message
			for _, m := range tt.msgs {
				msgs = append(msgs, Message{Role: "assistant", Text: m})
			}
			if got := cats(Score(msgs, tt.act, nil)); got != tt.want {
				t.Fatalf("fired %q, want %q", got, tt.want)
			}
		})
	}
	hits := Score([]Message{{Text: "We decided to use Postgres because it runs everywhere."}}, Activity{}, nil)
	if hits[0].Score != 0.6 || hits[0].Excerpt != "We decided to use Postgres because it runs everywhere" {
		t.Fatalf("%+v", hits[0])
	}
	// Thresholds come from config.
	if got := cats(Score([]Message{{Text: "We decided to use Postgres."}}, Activity{}, map[string]float64{"decision": 0.3})); got != "decision " {
		t.Fatalf("lowered threshold: %q", got)
	}
}

// scoreByExpressions is Score as it was written first: every sentence
// (split by a regular expression) through every category's expressions,
// with no words checked before. Score must find the same.
func scoreByExpressions(msgs []Message, thresholds map[string]float64) []Hit {
	var hits []Hit
	split := regexp.MustCompile(`[.!?\n]+\s*`)
	for cat, r := range rules {
		score, best, bestScore := 0.0, "", 0.0
		for _, m := range msgs {
			for _, s := range split.Split(m.Text, -1) {
				p := len(r.primary.FindAllStringIndex(s, 3))
				if p == 0 {
					continue
				}
				v := primaryWeight * float64(p)
				if r.booster.MatchString(s) {
					v += boosterWeight
				}
				score += v
				if v > bestScore {
					best, bestScore = strings.TrimSpace(s), v
				}
			}
		}
		if score > 1 {
			score = 1
		}
		if th := threshold(thresholds, cat); score >= th {
			hits = append(hits, Hit{Category: cat, Score: round(score), Excerpt: excerpt(best)})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Category < hits[j].Category
	})
	return hits
}

// TestScoreAsTheExpressions: the words checked before the expressions
// never change what triage finds, over random turns built of every
// category's phrases, boosters, other words, mixed case and punctuation.
func TestScoreAsTheExpressions(t *testing.T) {
	pieces := []string{"we decided to", "Decide to", "WE'LL GO WITH", "we will use", "chose", "chosen", "opted for", "opted to", "settled on", "Going with", "the decision is",
		"root cause", "The fix is", "the fix was", "fixed it", "fixed by", "resolved this", "to fix it", "workaround", "error", "crashed", "broken",
		"must not", "cannot", "can't", "not allowed", "is supported", "isn't supported", "doesnt support", "doesn't support", "only supports", "limitation", "hard limit", "policy",
		"TODO", "tech debt", "technical debt", "hacky", "for now", "temporarily", "deferred", "come back to", "follow-up", "later", "until",
		"I prefer", "we prefer", "prefers to", "please always", "please never", "always use", "never use", "don't use", "do not use", "our convention", "by convention",
		"because", "since", "so that", "rationale", "trade-offs", "instead of", "rather than", "always", "never",
		"the cart", "Postgres", "é", "决定", "decidedly", "chosen-one", "unfixed", "prefer", "unsupported", "hack", "nowhere",
		".", ". ", "! ", "?", "\n", "...\n\t", " ", " ", " ", ",", "\f", "\u00a0", "\u2028"}
	rng := rand.New(rand.NewPCG(51, 7))
	for i := range 4000 {
		var msgs []Message
		for range 1 + rng.IntN(3) {
			var b strings.Builder
			for range rng.IntN(40) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
				if rng.IntN(3) == 0 {
					b.WriteByte(' ')
				}
			}
			msgs = append(msgs, Message{Role: "assistant", Text: b.String()})
		}
		th := map[string]float64{"decision": 0.3, "runbook": 0.3, "constraint": 0.3, "tech_debt": 0.3, "preference": 0.3}
		got, want := Score(msgs, Activity{}, th), scoreByExpressions(msgs, th)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("turn %d %q:\nScore   %+v\nexpected %+v", i, msgs, got, want)
		}
	}
}

// TestSentencesAsTheExpression: the hand-written split is [.!?\n]+\s*.
func TestSentencesAsTheExpression(t *testing.T) {
	split := regexp.MustCompile(`[.!?\n]+\s*`)
	rng := rand.New(rand.NewPCG(5, 1))
	alphabet := []string{"a", "b", ".", "!", "?", "\n", " ", "\t", "\r", "\f", "\v", "\u00a0", "é", "\xff"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		if got, want := sentences(b.String()), split.Split(b.String(), -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %q, want %q", b.String(), got, want)
		}
	}
}

// TestScoreReadsTheNewestText: a turn's end scores at most MaxText of the
// new turns, the newest — a decision said in a huge older message is
// left out, one in a huge single message is found when it opens it.
func TestScoreReadsTheNewestText(t *testing.T) {
	decision := "We decided to use Postgres because it already runs. "
	filler := strings.Repeat("x", MaxText)
	got := Score([]Message{{Text: decision + filler}, {Text: "ok"}}, Activity{}, nil)
	if len(got) != 0 {
		t.Fatalf("an older message past the window was scored: %+v", got)
	}
	got = Score([]Message{{Text: "é" + decision + filler + decision}}, Activity{}, nil)
	if len(got) != 1 || got[0].Category != "decision" {
		t.Fatalf("the start of a single huge message was not scored: %+v", got)
	}
	if w := window([]Message{{Text: "a" + strings.Repeat("é", MaxText)}}); len(w[0].Text) > MaxText || !utf8.ValidString(w[0].Text) {
		t.Fatalf("the window of one message is %d bytes, valid %v", len(w[0].Text), utf8.ValidString(w[0].Text))
	}
}
