// Package triage scores the new turns of a session for memory worth
// keeping, by category: keyword patterns, co-occurrence boosters
// and thresholds for decisions, runbooks, constraints, tech debt and
// preferences, and activity metrics for a session summary. It is
// deterministic; no model is called.
package triage

import (
	"sort"
	"strings"

	"github.com/ccmem/ccmem/pkg/lazyregexp"
	"github.com/ccmem/ccmem/pkg/redact"
)

// Message is one prompt or assistant text of the new turns.
type Message struct {
	Role string // "user" or "assistant"
	Text string
}

// Activity is what the new turns did.
type Activity struct {
	ToolUses      int
	DistinctTools int
	Exchanges     int // real user prompts
}

// Hit is a category whose score crossed its threshold.
type Hit struct {
	Category string  `json:"category"`
	Score    float64 `json:"score"`
	// Excerpt is the sentence that matched best (for text categories),
	// redacted, then shortened.
	Excerpt string `json:"excerpt,omitempty"`
}

type rule struct {
	primary, booster *lazyregexp.Regexp
}

// Weights: each primary match adds primaryWeight (at most three per
// message count), and a booster in the same message as a primary match
// adds boosterWeight: "we decided to use X" scores 0.3, "we decided to use
// X because Y" 0.6.
const (
	primaryWeight = 0.3
	boosterWeight = 0.3
)

// rules are compiled on first use: most Stop runs have triage off.
var rules = map[string]rule{
	"decision": {
		lazyregexp.New(`(?i)\b(decided|decide to|we('ll| will) (go with|use)|chose|chosen|opted (for|to)|settled on|going with|the decision is)\b`),
		lazyregexp.New(`(?i)\b(because|since|so that|rationale|trade-?offs?|instead of|rather than)\b`),
	},
	"runbook": {
		lazyregexp.New(`(?i)\b(root cause|the fix (is|was)|fixed (it|this|by)|resolved (it|this|by)|to fix (it|this)|workaround)\b`),
		lazyregexp.New(`(?i)\b(error|failed|failing|exception|traceback|crash(ed|es)?|broken)\b`),
	},
	"constraint": {
		lazyregexp.New(`(?i)\b(must not|cannot|can't|not allowed|(is|isn't|is not) supported|does ?n[o']t support|only supports|limitation|hard limit)\b`),
		lazyregexp.New(`(?i)\b(always|never|policy|limit|because)\b`),
	},
	"tech_debt": {
		lazyregexp.New(`(?i)\b(todo|tech(nical)? debt|hack(y)?|for now|temporar(y|ily)|defer(red)?|come back to)\b`),
		lazyregexp.New(`(?i)\b(because|until|eventually|follow-?up|later)\b`),
	},
	"preference": {
		lazyregexp.New(`(?i)\b(i prefer|we prefer|prefers? to|please (always|never)|always use|never use|don't use|do not use|our convention|by convention)\b`),
		lazyregexp.New(`(?i)\b(always|never|instead|rather)\b`),
	},
}

// Categories are the record categories, which triage scores, in
// display order.
var Categories = []string{"decision", "constraint", "preference", "runbook", "tech_debt", "session_summary"}

// DefaultThresholds are the scores at which each category fires: the one
// copy of them (config's defaults and default-config.yaml follow it).
var DefaultThresholds = map[string]float64{
	"decision": 0.5, "runbook": 0.5, "constraint": 0.5, "tech_debt": 0.5, "preference": 0.5, "session_summary": 0.6,
}

var sentenceEnd = lazyregexp.New(`[.!?\n]+\s*`)

// Score scores every category over the new turns and returns those at or
// over their threshold, highest first (ties by name).
func Score(msgs []Message, act Activity, thresholds map[string]float64) []Hit {
	var hits []Hit
	for cat, r := range rules {
		score, best, bestScore := 0.0, "", 0.0
		for _, m := range msgs {
			for _, s := range sentenceEnd.Split(m.Text, -1) {
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
	s := float64(act.ToolUses)/40 + float64(act.DistinctTools)/16 + float64(act.Exchanges)/8
	if s > 1 {
		s = 1
	}
	if s >= threshold(thresholds, "session_summary") {
		hits = append(hits, Hit{Category: "session_summary", Score: round(s)})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Category < hits[j].Category
	})
	return hits
}

func threshold(m map[string]float64, cat string) float64 {
	if v, ok := m[cat]; ok && v > 0 {
		return v
	}
	return DefaultThresholds[cat]
}

func round(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// excerpt is what a hit quotes of the conversation: redacted before it is
// shortened (a secret cut in half no longer matches its rule), since it is
// kept in the session's record until the next prompt.
func excerpt(s string) string {
	out, _ := redact.Shorten(s, 200)
	return out
}
