// Package claudecode is Claude Code's contract as ccmem relies on it, in
// one place: the hook events and the binaries that serve them, the
// plugin's id, how ccmem's commands are registered and recognised, a
// hook's input (bounded, lenient), the one shape of a hook's output, the
// tags the client gives meaning to, the status line's input, and the
// inline limit of added context. Every layer imports it; it imports nothing of ccmem but text
// helpers. What is written here was verified against the real client
// (docs/claude-code-contract.md in the shared docs; e2e tests hold it).
package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Hook is one of ccmem's hook binaries and the event it is registered for.
type Hook struct{ Binary, Event string }

// Hooks are ccmem's hook binaries and their events, in the order install
// registers them: the one list every other list of hooks (the Makefile,
// the release, the plugin's hooks.json, the benchmarks, the tests) equals.
var Hooks = []Hook{
	{"sessionstart", "SessionStart"},
	{"userpromptsubmit", "UserPromptSubmit"},
	{"stop", "Stop"},
	{"precompact", "PreCompact"},
	{"pretooluse", "PreToolUse"},
	{"posttoolusefailure", "PostToolUseFailure"},
	{"subagentstart", "SubagentStart"},
}

// Binaries are the hook binaries' names, in the order of Hooks.
func Binaries() []string {
	out := make([]string, len(Hooks))
	for i, h := range Hooks {
		out[i] = h.Binary
	}
	return out
}

// PluginID is ccmem's plugin as Claude Code names it (plugin@marketplace).
const PluginID = "ccmem@ccmem"

// MaxInline is the client's inline limit for a hook's added context: a
// longer one is saved to a file and the model sees a 2 KB preview (same
// threshold in 2.1.328 and 2.1.330).
const MaxInline = 10000

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

// ReadInput reads and decodes a hook's stdin, every string cut to
// MaxString and the whole bounded by MaxInput, giving up at the deadline so
// a client that never closes stdin cannot hold the hook past its budget.
func ReadInput(stdin io.Reader, deadline time.Time) (Input, error) {
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

// Output is what a hook prints on stdout: one JSON object. Specific is
// the event's part (nil for none); SystemMessage is shown to the person,
// not the model.
type Output struct {
	Specific      *Specific `json:"hookSpecificOutput,omitempty"`
	SystemMessage string    `json:"systemMessage,omitempty"`
	// Decision and Reason are the top-level decision on an event ("block"
	// a Stop, in Claude Code's words; "deny" a tool call, in Gemini
	// CLI's: geminicli.Deny) and why.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Specific is an event's part of a hook's output: context for the model
// (SessionStart, UserPromptSubmit, PreToolUse, PostToolUseFailure,
// SubagentStart), or PreToolUse's decision on the call ("deny": the call
// does not run and the model reads the reason as its result).
type Specific struct {
	HookEventName            string `json:"hookEventName"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// Context is the output that adds text to the model's context for event.
func Context(event, text string) Output {
	return Output{Specific: &Specific{HookEventName: event, AdditionalContext: text}}
}

// Deny is PreToolUse's output that holds a call, with the reason the
// model reads instead of the call's result.
func Deny(reason string) Output {
	return Output{Specific: &Specific{HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: reason}}
}

// Encode is the output as the client reads it: one line of JSON, with
// <, > and & as they are.
func (o Output) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ParseOutput reads a hook's output (for tests, doctor and benchmarks);
// a zero Output for anything else.
func ParseOutput(data []byte) Output {
	var o Output
	_ = json.Unmarshal(bytes.TrimSpace(data), &o)
	return o
}

// AddedContext is the context an output adds ("" for none).
func (o Output) AddedContext() string {
	if o.Specific == nil {
		return ""
	}
	return o.Specific.AdditionalContext
}

// Payload is a hook's input as the client sends it, for the programs that
// run a hook themselves (doctor's dry runs, benchmarks, the demo).
type Payload struct {
	SessionID      string          `json:"session_id,omitempty"`
	TranscriptPath string          `json:"transcript_path,omitempty"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	Source         string          `json:"source,omitempty"`
	Trigger        string          `json:"trigger,omitempty"`
	Prompt         string          `json:"prompt,omitempty"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	Error          string          `json:"error,omitempty"`
	AgentID        string          `json:"agent_id,omitempty"`
	AgentType      string          `json:"agent_type,omitempty"`
}

// JSON is the payload as the client writes it.
func (p Payload) JSON() []byte {
	data, _ := json.Marshal(p)
	return data
}

// StatusInput is the part of the status line's stdin JSON ccmem uses: the
// session's folders.
type StatusInput struct {
	Cwd       string `json:"cwd"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
}

// Folders are the status input's folders that are set.
func (s StatusInput) Folders() []string {
	var out []string
	for _, d := range []string{s.Cwd, s.Workspace.CurrentDir, s.Workspace.ProjectDir} {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// ReadStatusInput reads the status line's input: one JSON value, at most
// 1 MB, within wait — a client that keeps stdin open after it (or sends
// nothing) is not waited on; what did not come is left empty.
func ReadStatusInput(r io.Reader, wait time.Duration) StatusInput {
	got := make(chan StatusInput, 1)
	go func() {
		var v StatusInput
		if r != nil {
			_ = json.NewDecoder(io.LimitReader(r, 1<<20)).Decode(&v)
		}
		got <- v
	}()
	select {
	case in := <-got:
		return in
	case <-time.After(wait):
		return StatusInput{}
	}
}
