// Package triage scores the new turns of a session for memory worth
// keeping, by category: keyword patterns, co-occurrence boosters
// and thresholds for decisions, runbooks, constraints, tech debt and
// preferences, and activity metrics for a session summary. It is
// deterministic; no model is called.
package triage

import (
	"sort"
	"strings"
	"unicode/utf8"

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
	// words are what every match of primary holds, lowercased: a sentence
	// with none of them cannot match, and is passed over before the
	// regular expression runs (which reads a few MB a second).
	words []string
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
		[]string{"decid", "decision", "we'll", "we will", "chose", "opted", "settled on", "going with"},
	},
	"runbook": {
		lazyregexp.New(`(?i)\b(root cause|the fix (is|was)|fixed (it|this|by)|resolved (it|this|by)|to fix (it|this)|workaround)\b`),
		lazyregexp.New(`(?i)\b(error|failed|failing|exception|traceback|crash(ed|es)?|broken)\b`),
		[]string{"root cause", "the fix", "fixed", "resolved", "to fix", "workaround"},
	},
	"constraint": {
		lazyregexp.New(`(?i)\b(must not|cannot|can't|not allowed|(is|isn't|is not) supported|does ?n[o']t support|only supports|limitation|hard limit)\b`),
		lazyregexp.New(`(?i)\b(always|never|policy|limit|because)\b`),
		[]string{"must not", "cannot", "can't", "not allowed", "supported", "support", "limitation", "hard limit"},
	},
	"tech_debt": {
		lazyregexp.New(`(?i)\b(todo|tech(nical)? debt|hack(y)?|for now|temporar(y|ily)|defer(red)?|come back to)\b`),
		lazyregexp.New(`(?i)\b(because|until|eventually|follow-?up|later)\b`),
		[]string{"todo", "tech", "hack", "for now", "temporar", "defer", "come back to"},
	},
	"preference": {
		lazyregexp.New(`(?i)\b(i prefer|we prefer|prefers? to|please (always|never)|always use|never use|don't use|do not use|our convention|by convention)\b`),
		lazyregexp.New(`(?i)\b(always|never|instead|rather)\b`),
		[]string{"prefer", "please", "always use", "never use", "don't use", "do not use", "convention"},
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

// Score scores every category over the new turns and returns those at or
// over their threshold, highest first (ties by name).
func Score(msgs []Message, act Activity, thresholds map[string]float64) []Hit {
	var hits []Hit
	type best struct {
		score, bestScore float64
		sentence         string
	}
	got := map[string]*best{}
	for _, m := range window(msgs) {
		for _, s := range sentences(m.Text) {
			var lower string
			for cat, r := range rules {
				if !mayMatch(&lower, s, r.words) {
					continue
				}
				p := len(r.primary.FindAllStringIndex(s, 3))
				if p == 0 {
					continue
				}
				v := primaryWeight * float64(p)
				if r.booster.MatchString(s) {
					v += boosterWeight
				}
				b := got[cat]
				if b == nil {
					b = &best{}
					got[cat] = b
				}
				b.score += v
				if v > b.bestScore {
					b.sentence, b.bestScore = strings.TrimSpace(s), v
				}
			}
		}
	}
	for cat, b := range got {
		if th := threshold(thresholds, cat); min(b.score, 1) >= th {
			hits = append(hits, Hit{Category: cat, Score: round(min(b.score, 1)), Excerpt: excerpt(b.sentence)})
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

// MaxText is the most text of the new turns triage scores, the newest:
// it keeps a turn's end within its budget whatever a turn holds (scoring
// reads about 10 MB a second when every sentence holds a category's
// words, far more when few do).
const MaxText = 128 << 10

// window is the newest MaxText bytes of msgs, in order: an older message
// that does not fit whole is left out, a single one longer than MaxText
// is cut to its start (at a character's boundary).
func window(msgs []Message) []Message {
	n, i := 0, len(msgs)
	for i > 0 && n+len(msgs[i-1].Text) <= MaxText {
		i--
		n += len(msgs[i].Text)
	}
	if i == len(msgs) && i > 0 {
		m := msgs[i-1]
		cut := MaxText
		for cut > 0 && !utf8.RuneStart(m.Text[cut]) {
			cut--
		}
		m.Text = m.Text[:cut]
		return []Message{m}
	}
	return msgs[i:]
}

// mayMatch tells whether sentence s holds one of words, lowercased; lower
// keeps s lowercased once for all the categories.
func mayMatch(lower *string, s string, words []string) bool {
	if *lower == "" {
		*lower = strings.ToLower(s)
	}
	for _, w := range words {
		if strings.Contains(*lower, w) {
			return true
		}
	}
	return false
}

// sentences splits text at every run of '.', '!', '?' and newlines and
// the white space after it, as the regular expression [.!?\n]+\s* would
// (TestSentencesAsTheExpression).
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); {
		if c := text[i]; c != '.' && c != '!' && c != '?' && c != '\n' {
			i++
			continue
		}
		end := i
		for i < len(text) && strings.IndexByte(".!?\n", text[i]) >= 0 {
			i++
		}
		for i < len(text) && strings.IndexByte("\t\n\f\r ", text[i]) >= 0 { // \s: ASCII only
			i++
		}
		out = append(out, text[start:end])
		start = i
	}
	return append(out, text[start:])
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
