// Package friction scores how hard a session was from the signals its
// transcript shows (fourteen signals and their weights), incrementally:
// a Tracker is fed each new transcript entry once, and its state is saved
// with the session's checkpoint between hook runs.
//
// Classes, from the weighted score:
//
//	BAD       score ≥ 20, or any user_intervention or session_abandoned
//	FRICTION  score ≥ 10
//	ROUGH     score ≥ 3
//	OK        otherwise
package friction

import (
	"hash/fnv"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/ccmem/ccmem/pkg/transcript"
)

// Weights of the signals.
var Weights = map[string]float64{
	"user_intervention":   10,  // the user stopped the model and corrected it (or typed /stash)
	"session_abandoned":   10,  // ended amid unresolved errors and an upset user
	"false_success":       8,   // the model claimed success right after a failure
	"no_resolution":       8,   // a turn's errors were never followed by a success
	"tool_loop":           6,   // the same tool call three or more times in a row
	"rapid_exit":          6,   // fewer than 3 turns, ending on an error
	"interrupt_cascade":   5,   // interrupts less than 60 s apart
	"user_curse":          5,   // profanity in a prompt
	"request_interrupted": 2.5, // the user hit Esc / Ctrl+C
	"exit_error":          1,   // a command exited non-zero
	"repeated_question":   1,   // the same prompt twice
	"long_silence":        0.5, // more than 10 minutes between messages
	"user_negation":       0.5, // "no", "that didn't work", …
	"compaction":          0.5, // the context overflowed and was compacted
}

// Result is the score of a session so far.
type Result struct {
	Score   float64        `json:"score"`
	Class   string         `json:"class"`
	Signals map[string]int `json:"signals"`
}

// State is what a Tracker keeps between hook runs.
type State struct {
	Signals map[string]int `json:"signals,omitempty"`
	// Pending is set while a tool error has not been followed by a success.
	Pending bool `json:"pending,omitempty"`
	// LastFailed is set when the most recent tool result was an error.
	LastFailed bool `json:"last_failed,omitempty"`
	// TurnUpset is set when the current turn's prompt was a negation, a
	// curse or an interrupt.
	TurnUpset bool `json:"turn_upset,omitempty"`
	// Stopped is set when the person interrupted the model and has not
	// typed since: a correction next is an intervention.
	Stopped       bool     `json:"stopped,omitempty"`
	LastCall      uint64   `json:"last_call,omitempty"`
	CallRun       int      `json:"call_run,omitempty"`
	LastInterrupt string   `json:"last_interrupt,omitempty"`
	LastTimestamp string   `json:"last_timestamp,omitempty"`
	Prompts       []uint64 `json:"prompts,omitempty"`
}

// maxPrompts bounds the prompt hashes kept for repeated_question: the
// newest hundred prompts (the record of a session stays small).
const maxPrompts = 100

// The detectors are word and phrase checks on lower-cased text rather than
// regular expressions, which a hook would compile on every run.

// words splits lower-cased text into words of letters and apostrophes,
// padded with spaces so phrases can be matched on word boundaries.
func words(text string) string {
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range strings.ToLower(text) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' {
			if r == '’' {
				r = '\''
			}
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

func hasAny(w string, phrases ...string) bool {
	for _, p := range phrases {
		if strings.Contains(w, " "+p+" ") {
			return true
		}
	}
	return false
}

func hasPrefixWord(w string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.Contains(w, " "+p) {
			return true
		}
	}
	return false
}

func isCurse(text string) bool { return curses(words(text)) }

// curses tells whether words (as words makes them) hold profanity.
func curses(w string) bool {
	return hasPrefixWord(w, "fuck", "shit", "damn", "goddamn", "bullshit") || hasAny(w, "wtf", "crap", "bloody hell")
}

// corrections are how people tell the model it got something wrong, per
// language: openers that correct when a prompt starts with them, and
// phrases that correct within its first words. CJK prompts have no spaces
// between words, so theirs are matched in the prompt's first characters.
var corrections = []struct {
	lang     string
	openers  []string // at the start of the prompt (as words)
	early    []string // within the first six words
	cjkEarly []string // within the first twelve characters
}{
	{lang: "en",
		openers: []string{"no", "nope", "wrong", "that's not", "thats not", "that's wrong", "not what i", "still broken", "still failing",
			"still fails", "not quite", "that's incorrect", "incorrect", "you broke", "revert that", "undo that", "i said", "i told you", "that is not",
			"this is not what", "don't do that", "that's not it", "not that"},
		early: []string{"doesn't work", "didn't work", "isn't working", "does not work", "did not work", "is not working", "doesnt work",
			"didnt work", "still doesn't work", "still not working", "you broke", "wrong file", "that's wrong", "not what i asked", "is wrong"}},
	{lang: "zh",
		cjkEarly: []string{"不对", "不是这样", "不是这个", "错了", "搞错", "还是不行", "还是不对", "不行", "没用", "不是我要的", "别这样", "撤销", "改回去", "还是报错", "不對", "錯了", "還是不行"}},
	{lang: "ja",
		cjkEarly: []string{"違う", "ちがう", "違います", "そうじゃない", "まだ動かない", "動かない", "だめ", "ダメ", "間違", "元に戻して", "やめて", "直ってない"}},
	{lang: "es",
		openers: []string{"no", "eso no", "no es", "está mal", "esta mal", "incorrecto", "mal", "te equivocaste", "no era eso", "así no", "asi no"},
		early:   []string{"no funciona", "sigue sin funcionar", "sigue fallando", "no sirve", "está mal", "esta mal", "no es lo que", "lo rompiste"}},
	{lang: "de",
		openers: []string{"nein", "falsch", "das stimmt nicht", "stimmt nicht", "nicht so", "das ist falsch", "das ist nicht"},
		early:   []string{"funktioniert nicht", "geht nicht", "immer noch", "klappt nicht", "ist falsch", "nicht was ich"}},
	{lang: "fr",
		openers: []string{"non", "c'est faux", "faux", "pas ça", "pas ca", "ce n'est pas", "c'est pas", "tu t'es trompé"},
		early:   []string{"ne marche pas", "ça ne marche pas", "ca ne marche pas", "ne fonctionne pas", "toujours pas", "c'est faux", "marche toujours pas"}},
}

// notCorrections open with a correction's word and mean nothing of it.
var notCorrections = []string{"no problem", "no worries", "no rush", "no need", "no hurry", "no es necesario", "no te preocupes", "non merci", "nein danke"}

// isNegation tells a prompt that corrects the model, in any of the
// languages of corrections.
func isNegation(text string) bool { return negates(words(text), text) }

// negates is isNegation of text, its words given (as words makes them).
func negates(w, text string) bool {
	for _, p := range notCorrections {
		if strings.HasPrefix(w, " "+p+" ") {
			return false
		}
	}
	head := firstWords(w, 6)
	trimmed := []rune(strings.TrimSpace(strings.ToLower(text)))
	cjkHead := string(trimmed[:min(len(trimmed), 12)])
	for _, c := range corrections {
		for _, p := range c.openers {
			if strings.HasPrefix(w, " "+p+" ") {
				return true
			}
		}
		for _, p := range c.early {
			if strings.Contains(head, " "+p+" ") {
				return true
			}
		}
		for _, p := range c.cjkEarly {
			if strings.Contains(cjkHead, p) {
				return true
			}
		}
	}
	return false
}

// firstWords is the first n words of w (as words pads them).
func firstWords(w string, n int) string {
	spaces := 0
	for i := 1; i < len(w); i++ {
		if w[i] == ' ' {
			if spaces++; spaces == n {
				return w[:i+1]
			}
		}
	}
	return w
}

func claimsSuccess(text string) bool {
	return hasAny(words(text), "done", "fixed", "succeeded", "successfully", "completed", "all tests pass", "all the tests pass",
		"tests pass", "tests now pass", "passing now", "works now", "is working now")
}

// isExitError tells a command that exited non-zero ("Exit code 1").
func isExitError(text string) bool {
	text = strings.TrimPrefix(text, "Error: ")
	rest, ok := strings.CutPrefix(text, "Exit code ")
	return ok && rest != "" && rest[0] >= '1' && rest[0] <= '9'
}

// Tracker feeds entries into a State.
type Tracker struct{ S *State }

func (t Tracker) add(signal string) {
	if t.S.Signals == nil {
		t.S.Signals = map[string]int{}
	}
	t.S.Signals[signal]++
}

// Observe updates the state with one transcript entry.
func (t Tracker) Observe(e transcript.Entry) {
	s := t.S
	if e.Sidechain {
		return
	}
	if e.Timestamp != "" {
		if gap(s.LastTimestamp, e.Timestamp) > 10*time.Minute && (e.Kind == transcript.Prompt || e.Kind == transcript.Assistant) {
			t.add("long_silence")
		}
		s.LastTimestamp = e.Timestamp
	}
	switch e.Kind {
	case transcript.Prompt:
		// A new turn: the last one's unresolved errors count now.
		if s.Pending {
			t.add("no_resolution")
			s.Pending = false
		}
		stopped := s.Stopped
		s.TurnUpset, s.LastFailed, s.Stopped = false, false, false
		if e.Command == "/stash" {
			t.add("user_intervention")
		}
		if e.Command != "" {
			return
		}
		// A curse or a correction is said up front, not in a pasted log;
		// a repeated question is told by its head too.
		head := e.Text[:min(len(e.Text), 2048)]
		w := words(head)
		if curses(w) {
			t.add("user_curse")
			s.TurnUpset = true
		}
		if negates(w, head) {
			t.add("user_negation")
			s.TurnUpset = true
		}
		if stopped && s.TurnUpset {
			// Esc, then "no, …": the person stepped in to change course.
			t.add("user_intervention")
		}
		h := hash(w)
		for _, p := range s.Prompts {
			if p == h {
				t.add("repeated_question")
				break
			}
		}
		s.Prompts = append(s.Prompts, h)
		if len(s.Prompts) > maxPrompts {
			s.Prompts = s.Prompts[len(s.Prompts)-maxPrompts:]
		}
	case transcript.Meta:
		if e.Interrupted {
			t.add("request_interrupted")
			s.TurnUpset, s.Stopped = true, true
			if s.LastInterrupt != "" && e.Timestamp != "" && gap(s.LastInterrupt, e.Timestamp) < 60*time.Second {
				t.add("interrupt_cascade")
			}
			s.LastInterrupt = e.Timestamp
		}
	case transcript.Assistant:
		if e.Text != "" && s.LastFailed && claimsSuccess(e.Text) {
			t.add("false_success")
		}
		for _, u := range e.Tools {
			sig := hash(u.Name + "\x00" + string(u.Input))
			if sig == s.LastCall {
				s.CallRun++
			} else {
				s.LastCall, s.CallRun = sig, 1
			}
			if s.CallRun == 3 {
				t.add("tool_loop")
			}
		}
	case transcript.ToolResults:
		for _, r := range e.Results {
			if r.Declined || r.Cancelled {
				continue // a "no", or a call that never ran: not the work's outcome
			}
			if r.IsError {
				s.Pending, s.LastFailed = true, true
				if isExitError(r.Text) {
					t.add("exit_error")
				}
			} else {
				s.Pending, s.LastFailed = false, false
			}
		}
	case transcript.Compaction:
		// Counted from the session's compactions; see Score.
	}
}

// Score computes the result so far. A turn still in progress counts its
// unresolved errors; final adds the signals that only an ended session can
// show (rapid_exit, session_abandoned). compactions and turns come from the
// checkpoint.
func (t Tracker) Score(turns, compactions int, final bool) Result {
	sig := map[string]int{}
	for k, v := range t.S.Signals {
		sig[k] = v
	}
	if t.S.Pending {
		sig["no_resolution"]++
	}
	if compactions > 0 {
		sig["compaction"] = compactions
	}
	if final && t.S.LastFailed {
		if turns < 3 {
			sig["rapid_exit"]++
		}
		if t.S.Pending && t.S.TurnUpset {
			sig["session_abandoned"]++
		}
	}
	score := 0.0
	names := make([]string, 0, len(sig))
	for k := range sig {
		names = append(names, k)
	}
	sort.Strings(names) // a stable sum, whatever the map order
	for _, k := range names {
		score += Weights[k] * float64(sig[k])
	}
	return Result{Score: score, Class: Class(score, sig), Signals: sig}
}

// Class names a session's quality from its score and signals.
func Class(score float64, sig map[string]int) string {
	switch {
	case score >= 20 || sig["user_intervention"] > 0 || sig["session_abandoned"] > 0:
		return "BAD"
	case score >= 10:
		return "FRICTION"
	case score >= 3:
		return "ROUGH"
	}
	return "OK"
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// gap is the time from a to b (RFC 3339); 0 when either is unknown.
func gap(a, b string) time.Duration {
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	if err1 != nil || err2 != nil {
		return 0
	}
	return tb.Sub(ta)
}
