// Package tool holds the bodies of the hooks around tool calls:
// PreToolUse (the rules that bear on a call, holding the one they
// forbid), PostToolUseFailure (what fixed the same error before) and
// SubagentStart (a subagent's rules).
package tool

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/geminicli"
	"github.com/ccmem/ccmem/pkg/memory/action"
)

const preToolUsage = `usage: pretooluse < hook-input.json

pretooluse is ccmem's PreToolUse hook for Claude Code (registered for the
tools in guard.tools: Bash, Edit, Write, MultiEdit, NotebookEdit, Skill).
Before a command runs or a file is written, it adds at most guard.max_lines
of the user's standing rules that bear on it — learned feedback, the
project's preference and constraint records, rule-like MEMORY.md lines —
each once a session; when a skill runs, the project's profile of that
skill (ccmem profile); as
  {"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"…"}}
It prints nothing when no rule bears on the call. The client gives that
context to the model only after the call ran; so when a rule the person
gave (their feedback, their MEMORY.md, or one they accepted; not marked
advisory) forbids the command — "never run go test directly", "run make
codegen before make build" — the session's first such call is held, with
the rule as the reason the model reads:
  {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"…"}}
and the same call again runs (guard.hold: false turns holding off). It
never allows or changes a call.
`

const failureUsage = `usage: posttoolusefailure < hook-input.json

posttoolusefailure is ccmem's PostToolUseFailure hook for Claude Code.
After a tool call fails, it looks in the project's earlier sessions for
the same error (its line, with paths, numbers and ids taken out) and, when
one was fixed, adds one line: when, what fixed it, where to read more, as
  {"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"…"}}
It prints nothing when no earlier session fixed that error.
`

const subagentUsage = `usage: subagentstart < hook-input.json

subagentstart is ccmem's SubagentStart hook for Claude Code. A subagent
starts with no memory; this gives it a compact block — the user's
feedback, the project's constraints and preferences, rule-like MEMORY.md
lines — within guard.subagent_chars, as
  {"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"…"}}
`

// PreToolUse is the body of the pretooluse hook: silent unless a rule
// bears on the call; one stderr line and exit 1 on a problem (the call
// still runs); never 2, which would block the call. Under Gemini CLI
// (BeforeTool) a call is read in Claude Code's tool names, and a held one
// is denied in Gemini's words.
func PreToolUse(p hookio.Process) int {
	return toolHook("pretooluse", "PreToolUse", preToolUsage, p, func(r *hookio.Run) (action.ToolResult, error) {
		if geminicli.Serves(r.In.HookEventName) {
			r.In.ToolName = geminicli.ClaudeTool(r.In.ToolName)
		}
		return action.BeforeTool(context.Background(), r.Env, toolRequest(r))
	})
}

// PostToolUseFailure is the body of the posttoolusefailure hook.
func PostToolUseFailure(p hookio.Process) int {
	return toolHook("posttoolusefailure", "PostToolUseFailure", failureUsage, p, func(r *hookio.Run) (action.ToolResult, error) {
		req := toolRequest(r)
		req.Error = r.In.Error
		return action.AfterFailure(context.Background(), r.Env, req)
	})
}

// SubagentStart is the body of the subagentstart hook.
func SubagentStart(p hookio.Process) int {
	return toolHook("subagentstart", "SubagentStart", subagentUsage, p, func(r *hookio.Run) (action.ToolResult, error) {
		return action.Subagent(context.Background(), r.Env, action.SubagentRequest{
			SessionID: r.In.SessionID, Cwd: r.In.Cwd, AgentType: r.In.AgentType, Started: r.Started})
	})
}

// toolRequest is the tool call of the hook's input.
func toolRequest(r *hookio.Run) action.ToolRequest {
	req := action.ToolRequest{SessionID: r.In.SessionID, Cwd: r.In.Cwd, Tool: r.In.ToolName, Started: r.Started}
	switch r.In.ToolName {
	case "Bash":
		req.Command = r.In.ToolString("command")
	case "Edit", "Write", "MultiEdit", "Read":
		req.Path = r.In.ToolString("file_path")
	case "NotebookEdit":
		req.Path = r.In.ToolString("notebook_path")
	case "Skill":
		req.Skill = r.In.ToolString("skill")
	default:
		req.Input = toolText(r.In.ToolInput)
	}
	return req
}

// toolText is the string values of a call's input, joined (at most 2 KB):
// what another tool's call is about.
func toolText(raw json.RawMessage) string {
	var fields map[string]any
	if json.Unmarshal(raw, &fields) != nil {
		return ""
	}
	var parts []string
	n := 0
	for _, v := range fields {
		if s, ok := v.(string); ok && n < 2048 {
			parts = append(parts, s)
			n += len(s)
		}
	}
	text := strings.Join(parts, " ")
	if len(text) > 2048 {
		text = strings.ToValidUTF8(text[:2048], "")
	}
	return text
}

// toolHook runs a hook whose output is additionalContext for event.
func toolHook(name, event, usage string, p hookio.Process, work func(*hookio.Run) (action.ToolResult, error)) int {
	return hookio.Contain(name, p, false, func() int {
		r, code := hookio.BeginInput(name, usage, p)
		if r == nil {
			return code
		}
		res, err := work(r)
		if err != nil {
			hookio.WriteLine(p.Stderr, name+": "+err.Error())
			if res.Context == "" {
				return 1
			}
		}
		gemini := geminicli.Serves(r.In.HookEventName)
		if res.Hold != "" && event == "PreToolUse" {
			if gemini {
				return hookio.Emit(p, name, geminicli.Deny(res.Hold))
			}
			return hookio.Emit(p, name, claudecode.Deny(res.Hold))
		}
		if res.Disabled || res.Context == "" {
			return 0
		}
		if gemini {
			event = r.In.HookEventName
		}
		return hookio.EmitContext(p, name, event, res.Context)
	})
}
