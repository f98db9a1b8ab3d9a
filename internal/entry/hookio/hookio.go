// Package hookio translates between Claude Code's hook protocol and ccmem:
// it decodes hook input leniently, and runs a hook body so that it can never
// block the client by accident (no exit 2, no panic trace, one stderr line).
package hookio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Input is the part of a hook's stdin JSON that ccmem uses. Unknown fields
// are ignored and a field of an unexpected type is treated as absent, so a
// newer client never breaks an older ccmem.
type Input struct {
	SessionID      string
	TranscriptPath string
	Cwd            string
	HookEventName  string
	// Source is SessionStart's reason (startup, resume, clear, compact,
	// fork), or who sent a UserPromptSubmit's prompt (user, sdk, system,
	// loop_wakeup, schedule_wakeup, poll_event; none from claude -p).
	Source string
	// StopHookActive is true when a Stop hook already made the model go on.
	StopHookActive bool
	// LastAssistantMessage is Stop's copy of the reply just given (the
	// transcript may not hold it yet).
	LastAssistantMessage string
	// Trigger is PreCompact's "manual" or "auto".
	Trigger string
	// CustomInstructions is the argument of /compact, if any.
	CustomInstructions string
	// Prompt is UserPromptSubmit's prompt, as the user typed it.
	Prompt string
	// ToolName and ToolInput are the tool call of PreToolUse and
	// PostToolUseFailure (ToolInput: the input object as it came); Error
	// is what a failed call reported.
	ToolName  string
	ToolInput json.RawMessage
	Error     string
	// AgentType is a subagent's type (SubagentStart, and any hook inside
	// a subagent).
	AgentType string
}

// ToolString is the string field key of the tool call's input ("" when it
// is absent or not a string).
func (in Input) ToolString(key string) string {
	if len(in.ToolInput) == 0 || in.ToolInput[0] != '{' {
		return ""
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(in.ToolInput, &fields) != nil {
		return ""
	}
	return jsonString(fields[key])
}

// ErrTimedOut is returned when the hook input did not arrive by the deadline.
var ErrTimedOut = errors.New("timed out reading hook input on stdin")

// MaxInput bounds how much stdin a hook reads (each string of it is cut
// to MaxString as it is read).
const MaxInput = 64 << 20

// Decode parses a hook payload.
func Decode(data []byte) (Input, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return Input{}, errors.New("no hook input on stdin (expected Claude Code's hook JSON)")
	}
	if data[0] != '{' {
		if !json.Valid(data) {
			return Input{}, errors.New("hook input is not valid JSON")
		}
		return Input{}, errors.New("hook input is not a JSON object")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Input{}, fmt.Errorf("hook input is not valid JSON: %s", textfmt.Shorten(err.Error(), 121))
	}
	in := Input{
		SessionID:            jsonString(raw["session_id"]),
		TranscriptPath:       jsonString(raw["transcript_path"]),
		Cwd:                  jsonString(raw["cwd"]),
		HookEventName:        jsonString(raw["hook_event_name"]),
		Source:               jsonString(raw["source"]),
		StopHookActive:       boolean(raw["stop_hook_active"]),
		LastAssistantMessage: jsonString(raw["last_assistant_message"]),
		Trigger:              jsonString(raw["trigger"]),
		CustomInstructions:   jsonString(raw["custom_instructions"]),
		Prompt:               jsonString(raw["prompt"]),
		ToolName:             jsonString(raw["tool_name"]),
		ToolInput:            raw["tool_input"],
		Error:                jsonString(raw["error"]),
		AgentType:            jsonString(raw["agent_type"]),
	}
	return in, nil
}

func jsonString(r json.RawMessage) string {
	var s string
	if len(r) == 0 || json.Unmarshal(r, &s) != nil {
		return ""
	}
	return s
}

func boolean(r json.RawMessage) bool {
	var b bool
	if len(r) == 0 || json.Unmarshal(r, &b) != nil {
		return false
	}
	return b
}

// ReadInput reads and decodes stdin, giving up at the deadline so a client
// that never closes stdin cannot hold the hook past its budget. A terminal on
// stdin is refused at once: the hook was run by hand.
func ReadInput(stdin io.Reader, deadline time.Time) (Input, error) {
	if IsTerminal(stdin) {
		return Input{}, errors.New("stdin is a terminal: this hook reads Claude Code's hook JSON on stdin")
	}
	type result struct {
		data []byte
		over bool
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, over, err := shortenStrings(stdin, MaxString, MaxInput)
		done <- result{data, over, err}
	}()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			return Input{}, fmt.Errorf("reading hook input: %w", r.err)
		}
		if r.over {
			return Input{}, fmt.Errorf("hook input is over %d MB", MaxInput>>20)
		}
		return Decode(r.data)
	case <-timer.C:
		return Input{}, ErrTimedOut
	}
}

// Problems gathers what went wrong in a hook run; the hook reports them as
// one line on stderr, because the client shows only the first line.
type Problems struct{ list []string }

// Add records a problem; nil errors are ignored.
func (p *Problems) Add(err error) {
	if err != nil {
		p.list = append(p.list, err.Error())
	}
}

// Addf records a formatted problem.
func (p *Problems) Addf(format string, args ...any) {
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

// Len is the number of problems recorded.
func (p *Problems) Len() int { return len(p.list) }

// Line folds the problems into one line prefixed by the hook's name, or ""
// when there are none.
func (p *Problems) Line(name string) string {
	if len(p.list) == 0 {
		return ""
	}
	s := textfmt.OneLine(p.list[0])
	if n := len(p.list) - 1; n > 0 {
		s += fmt.Sprintf(" (and %d more; run `ccmem show` for all)", n)
	}
	return name + ": " + s
}

// Contain runs body and turns a panic into exit status 1 with one stderr line
// (a trace too when CCMEM_DEBUG is set), and any exit status 2 that body did
// not mean into 1: only a deliberate Stop block may exit 2, and hooks signal
// that through allow2.
func Contain(name string, p Process, allow2 bool, body func() int) (code int) {
	defer func() {
		if r := recover(); r != nil {
			if p.Getenv("CCMEM_DEBUG") != "" {
				fmt.Fprintf(p.Stderr, "%s: internal error: %v\n%s", name, r, debug.Stack())
			} else {
				fmt.Fprintf(p.Stderr, "%s: internal error: %v (set CCMEM_DEBUG=1 for a trace)\n", name, textfmt.OneLine(fmt.Sprint(r)))
			}
			code = 1
		}
		if code == 2 && !allow2 {
			code = 1
		}
	}()
	return body()
}
