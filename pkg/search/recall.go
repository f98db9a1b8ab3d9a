package search

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/lazyregexp"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// RecallOptions shape per-prompt recall.
type RecallOptions struct {
	Scope Scope
	// Skip leaves out what the session was already shown (by RefKey), at
	// most SkipMost memories.
	Skip     func(key [refKeyLen]byte) bool
	SkipMost int
	// MaxItems is the most memories recalled.
	MaxItems int
	// MinScore is the least score a memory needs, and MinMatched the least
	// share of the prompt's telling weight (see Hit.Share) it must hold: a
	// memory that shares one word with a long prompt is not relevant to it.
	MinScore, MinMatched float64
	// Now is the time the prompt's "yesterday" is counted from (zero: the
	// clock's).
	Now time.Time
	// Off switches search's signals off, to measure them (see Signal).
	Off Signal
	// PointerShift moves PointerPart, as this person's use of pointer
	// lines tuned it (session.UseStats; bounded there).
	PointerShift float64
	// Refresh, when set, is called when the prompt found part of the index
	// missing or stale and no refresh is building it: it starts one in the
	// background (see StartRefresh), as the prompt does not wait for it.
	Refresh func()
}

// MinEvidence is the least weight of a prompt's telling terms that a
// memory must hold to be recalled (see evidence): odds of about one in
// twenty that a session holds them by chance. A prompt made only of small
// talk, request words, grammar and words common in this memory holds none.
// A question (see AsksQuestion) needs MinQuestionEvidence: it asks for
// what memory holds, and a short one ("what pets does Nate have?") has few
// words to hold.
const (
	MinEvidence         = 3.0
	MinQuestionEvidence = 2.0
)

// maxRecallPrompt is how much of a prompt recall reads for its words: a
// person's question fits many times over; a pasted log of megabytes would
// otherwise cost the hook its deadline (and hundreds of megabytes).
const maxRecallPrompt = 16 << 10

// recallBuild bounds the index building one prompt may do (see
// refresh.go): a prompt in a store whose index is missing or stale answers
// from what there is and leaves the rest to the background refresh, or to
// the next prompts.
const recallBuild = 100 * time.Millisecond

// RecallTerm is one term of a prompt as recall weighed it.
type RecallTerm struct {
	Term string `json:"term"`
	// Weight is its weight toward the bar in a session, In the sessions
	// that hold it; LineWeight its weight in a memory that is no session
	// (a line of a MEMORY.md, a learned entry, a record), InOther those
	// that hold it (see evidence).
	Weight     float64 `json:"weight"`
	In         int     `json:"in_sessions"`
	LineWeight float64 `json:"line_weight"`
	InOther    int     `json:"in_other"`
	// Weak says why it does not count toward the bar ("" when it does).
	Weak string `json:"weak,omitempty"`
	// Related marks a word the prompt does not hold, brought by the
	// bridge between related words.
	Related bool `json:"related,omitempty"`
}

// RecallReport is what per-prompt recall did with a prompt, and why.
type RecallReport struct {
	Terms []RecallTerm `json:"terms"`
	// Sessions is how many sessions the memory searched holds.
	Sessions int `json:"sessions"`
	// Others is how many memories that are no session it holds (lines,
	// entries, records).
	Others int `json:"other_memories"`
	// Ranked is search's ranking of the prompt (its first few), each with
	// its evidence, and Verdicts why each was not recalled ("" when it
	// was); Recalled is what recall gives the model.
	Ranked   []Hit    `json:"ranked"`
	Verdicts []string `json:"verdicts"`
	Recalled []Hit    `json:"recalled"`
	// Pointer, when nothing is recalled, is an earlier session the
	// prompt's words point at with evidence short of the bar but real
	// (PointerPart of it): recall names it in one line, for the model to
	// read if it helps, instead of saying nothing.
	Pointer *Hit `json:"pointer,omitempty"`
	// Silent says why nothing was recalled ("" when something was).
	Silent string `json:"silent,omitempty"`
	// Question says the prompt asks a question (its bar is
	// MinQuestionEvidence), Bar the evidence a first hit needs.
	Question bool    `json:"question"`
	Bar      float64 `json:"bar"`
}

// Recall finds the few memories relevant to a user's prompt (see
// ExplainRecall).
func Recall(ctx context.Context, e store.Env, prompt string, o RecallOptions) ([]Hit, error) {
	rep, err := explainRecall(ctx, e, prompt, o, true)
	return rep.Recalled, err
}

// RecallOrPoint is Recall with, when nothing clears the bar, the session
// the prompt points at (RecallReport.Pointer): what the hook gives.
func RecallOrPoint(ctx context.Context, e store.Env, prompt string, o RecallOptions) (RecallReport, error) {
	return explainRecall(ctx, e, prompt, o, true)
}

// ExplainRecall ranks a prompt as search does and recalls from the top of
// that ranking: search's first hit, when it clears the bar (MinEvidence,
// o.MinMatched, o.MinScore), then the hits after it that clear it too,
// o.MaxItems at most. When the first does not, nothing is recalled: a
// later hit is no likelier to bear on the prompt than the one search put
// first. Folders are trusted by their modification time (a hook's
// budget). The report says why recall stayed silent.
func ExplainRecall(ctx context.Context, e store.Env, prompt string, o RecallOptions) (RecallReport, error) {
	return explainRecall(ctx, e, prompt, o, false)
}

// explainRecall is ExplainRecall; hook says only what is recalled
// matters, not the report's order of a ranking recall stays silent on
// (see Options.silentUnless).
func explainRecall(ctx context.Context, e store.Env, prompt string, o RecallOptions, hook bool) (RecallReport, error) {
	rep := RecallReport{Terms: []RecallTerm{}, Ranked: []Hit{}, Verdicts: []string{}, Recalled: []Hit{}}
	if o.MaxItems <= 0 {
		rep.Silent = "recall is off (max_items is 0)"
		return rep, nil
	}
	if len(prompt) > maxRecallPrompt {
		prompt = strings.ToValidUTF8(prompt[:maxRecallPrompt], "")
	}
	prompt = ClientMarks(prompt)
	// Small talk needs no index read at all.
	weak := weakTerms(prompt)
	telling := false
	for _, t := range Terms(prompt) {
		telling = telling || weak[t] == ""
	}
	if !telling {
		for _, t := range dedupe(Terms(prompt)) {
			rep.Terms = append(rep.Terms, RecallTerm{Term: t, Weak: weak[t]})
		}
		rep.Silent = "the prompt is small talk or request words only"
		return rep, nil
	}
	rep.Question = AsksQuestion(prompt)
	bar := MinEvidence
	if rep.Question {
		bar = MinQuestionEvidence
	}
	rep.Bar = bar
	opt := Options{Scope: o.Scope, Limit: 2 * o.MaxItems, Quick: true, Skip: o.Skip, SkipMost: o.SkipMost,
		prompt: true, BuildFor: recallBuild, Stale: o.Refresh, Now: o.Now, Off: o.Off, recallBar: bar}
	if Building(e) {
		// A refresh builds it: this prompt takes what there is.
		opt.BuildFor, opt.Stale = -1, nil
	}
	if hook {
		opt.silentUnless = func(h Hit, bar float64) bool { return o.short(h, bar, o.pointerPart()) == "" }
	}
	hits, ev, err := search(ctx, e, prompt, opt)
	if err != nil {
		return rep, err
	}
	rep.Ranked = hits
	if ev != nil {
		rep.Sessions, rep.Others = ev.sessions, ev.memories
		for i, t := range ev.terms {
			rep.Terms = append(rep.Terms, RecallTerm{Term: t, Weight: round3(ev.w[i]), In: ev.in[i],
				LineWeight: round3(ev.lineW[i]), InOther: ev.held[i] - ev.in[i], Weak: ev.weak[i], Related: i >= ev.own})
		}
	}
	if len(hits) == 0 {
		rep.Silent = "no memory holds a word of the prompt"
		if !hook && o.Skip != nil {
			// Said why: what matches may be what the session was shown.
			opt.Skip, opt.SkipMost = nil, 0
			if shown, _, err := search(ctx, e, prompt, opt); err == nil && len(shown) > 0 {
				rep.Silent = "what matches (" + strconv.Quote(textfmt.Shorten(shown[0].Title, 60)) + ") is shown already: the start-up block, or an earlier recall in this session, holds it"
			}
		}
		return rep, nil
	}
	rep.Verdicts = make([]string, len(hits))
	for i, h := range hits {
		switch {
		case i == 0:
			if why := o.short(h, bar, 1); why != "" {
				rep.Silent = "search's first hit " + why
				rep.Verdicts[0] = why
				for j := 1; j < len(hits); j++ {
					rep.Verdicts[j] = "not recalled: the first hit fell short"
				}
				// Weaker but real: a session the prompt's words point at
				// is named in one line (never on small talk: it has no
				// telling words, and stopped above).
				if h.Kind == KindEpisode && o.short(h, bar, o.pointerPart()) == "" {
					p := h
					rep.Pointer = &p
					rep.Verdicts[0] = why + "; named in one line (clears " + fmt.Sprintf("%.0f%%", 100*o.pointerPart()) + " of the bar)"
				}
				return rep, nil
			}
		case len(rep.Recalled) == o.MaxItems:
			rep.Verdicts[i] = fmt.Sprintf("not recalled: %d already (max_items)", o.MaxItems)
			continue
		default:
			if why := o.short(h, bar, followBar); why != "" {
				rep.Verdicts[i] = why + " (half the bar, after the first)"
				continue
			}
		}
		rep.Recalled = append(rep.Recalled, h)
	}
	return rep, nil
}

// clientMark matches what the client writes into a prompt in place of
// what was pasted or dropped in ("[Pasted text #1 +19 lines]", "[Image
// #2]") and its notes ("[Request interrupted by user]"): words no person
// typed, which say nothing about what the prompt needs.
var clientMark = lazyregexp.New(`\[(?:Pasted text #\d+(?: \+\d+ lines?)?|Image #\d+|Image: [^\]\n]{0,200}|Request interrupted by user[^\]\n]{0,40})\]`)

// ClientMarks is a prompt without the client's placeholders and notes.
func ClientMarks(prompt string) string {
	if !strings.Contains(prompt, "[") {
		return prompt
	}
	return clientMark.ReplaceAllString(prompt, " ")
}

// PointerPart is the part of the bar a session must clear to be named in
// one line when it falls short of recall (see RecallReport.Pointer),
// before this person's use moves it (RecallOptions.PointerShift).
const PointerPart = 0.9

func (o RecallOptions) pointerPart() float64 { return PointerPart + o.PointerShift }

// followBar is the part of the bar a hit after the first must clear: the
// first has shown that the prompt asks for what memory holds, and the
// hits search ranks next are its context (a question's second session,
// a paraphrase's answer found by related words).
const followBar = 0.5

// short says how a hit falls short of recall's bar ("" when it clears
// it).
func (o RecallOptions) short(h Hit, bar, part float64) string {
	bar *= part
	minShare, minScore := o.MinMatched*part, o.MinScore*part
	switch {
	case h.Evidence < bar:
		if h.Evidence == 0 {
			return "holds none of the prompt's telling words"
		}
		return fmt.Sprintf("holds too little of the prompt's telling words (weight %.2f, needs %.2f)", h.Evidence, bar)
	case h.Share < minShare:
		return fmt.Sprintf("holds too small a part of the prompt's telling words (%s, needs %s)", percent(h.Share, minShare), percent(minShare, h.Share))
	case h.Score < minScore:
		return fmt.Sprintf("scores too low (%.2f, needs %.2f)", h.Score, minScore)
	}
	return ""
}

// percent is x as a percentage, with a decimal when whole numbers would
// make x and other read the same ("10%, needs 10%").
func percent(x, other float64) string {
	if fmt.Sprintf("%.0f", 100*x) == fmt.Sprintf("%.0f", 100*other) {
		return fmt.Sprintf("%.1f%%", 100*x)
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }
