// Package friction scores how hard a session was from the signals its
// transcript shows (seed 002's fourteen signals and weights), incrementally:
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
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ccmem/ccmem/pkg/transcript"
)

// Weights of the signals (seed 002).
var Weights = map[string]float64{
	"user_intervention":   10,  // the user stepped in with /stash
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
	TurnUpset     bool     `json:"turn_upset,omitempty"`
	LastCall      uint64   `json:"last_call,omitempty"`
	CallRun       int      `json:"call_run,omitempty"`
	LastInterrupt string   `json:"last_interrupt,omitempty"`
	LastTimestamp string   `json:"last_timestamp,omitempty"`
	Prompts       []uint64 `json:"prompts,omitempty"`
}

// maxPrompts bounds the prompt hashes kept for repeated_question.
const maxPrompts = 500

// The detectors, compiled on first use.
var (
	curse    = lazy(`(?i)\b(fuck\w*|shit\w*|damn\w*|wtf|crap|bullshit|goddamn\w*|bloody hell)\b`)
	negation = lazy(`(?i)^\s*(no\b|nope\b|wrong\b|that'?s (not|wrong)|not what i|(it |this |that )?(still )?(does ?n[o']?t|did ?n[o']?t|is ?n[o']?t) work|still (broken|failing|fails))`)
	success  = lazy(`(?i)\b(done|fixed|all (the )?tests pass|tests (now )?pass|passing now|succeeded|successfully|works now|is working now|completed)\b`)
	exitCode = lazy(`^(Error: )?Exit code [1-9]\d*`)
)

func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
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
		s.TurnUpset, s.LastFailed = false, false
		if e.Command == "/stash" {
			t.add("user_intervention")
		}
		if e.Command != "" {
			return
		}
		if curse().MatchString(e.Text) {
			t.add("user_curse")
			s.TurnUpset = true
		}
		if negation().MatchString(e.Text) {
			t.add("user_negation")
			s.TurnUpset = true
		}
		h := hash(strings.ToLower(strings.Join(strings.Fields(e.Text), " ")))
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
			s.TurnUpset = true
			if s.LastInterrupt != "" && e.Timestamp != "" && gap(s.LastInterrupt, e.Timestamp) < 60*time.Second {
				t.add("interrupt_cascade")
			}
			s.LastInterrupt = e.Timestamp
		}
	case transcript.Assistant:
		if e.Text != "" && s.LastFailed && success().MatchString(e.Text) {
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
			if r.IsError {
				s.Pending, s.LastFailed = true, true
				if exitCode().MatchString(r.Text) {
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
