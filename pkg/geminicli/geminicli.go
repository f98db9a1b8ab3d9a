// Package geminicli is Google's Gemini CLI as ccmem serves it (0.61.0,
// verified by the end-to-end tests against the real client): which of
// ccmem's hook binaries serve which Gemini events, the names its tools go
// by, how it wraps the context a hook adds, and how a hook's answer is
// written for it. Gemini's hooks take Claude Code's shape (JSON on stdin,
// hookSpecificOutput.additionalContext on stdout) under other names. It
// imports nothing of ccmem but Claude Code's contract, whose hooks it
// serves.
package geminicli

import (
	"strings"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// Hook is one of ccmem's hook binaries and the Gemini event it serves,
// with the Claude Code event the binary was written for.
type Hook struct {
	Event  string // Gemini's
	Binary string
	Claude string // the Claude Code event of the same moment
}

// Hooks are the Gemini events ccmem serves. PreCompress is not one: it
// fires before every model call, not at a compaction. AfterTool, Gemini's
// only event after a tool, fires for failures and successes alike; the
// earlier fix after a failure stays Claude Code's. SessionEnd adds
// nothing AfterAgent has not recorded.
var Hooks = []Hook{
	{Event: "SessionStart", Binary: "sessionstart", Claude: "SessionStart"},
	{Event: "BeforeAgent", Binary: "userpromptsubmit", Claude: "UserPromptSubmit"},
	{Event: "BeforeTool", Binary: "pretooluse", Claude: "PreToolUse"},
	{Event: "AfterAgent", Binary: "stop", Claude: "Stop"},
}

// Serves tells whether event is a Gemini event ccmem's hooks serve under
// a name of its own (SessionStart, the same in both clients, is not).
func Serves(event string) bool {
	for _, h := range Hooks {
		if h.Event == event && h.Event != h.Claude {
			return true
		}
	}
	return false
}

// Timeout is how long Gemini gives each of ccmem's hooks, in
// milliseconds (Gemini counts a hook's timeout in them).
const Timeout = 5000

// tools are Gemini's tools by the names of Claude Code's that do the same.
var tools = map[string]string{
	"run_shell_command": "Bash",
	"write_file":        "Write",
	"replace":           "Edit",
	"read_file":         "Read",
	"glob":              "Glob",
	"grep_search":       "Grep",
	"list_directory":    "LS",
	"web_fetch":         "WebFetch",
	"activate_skill":    "Skill",
}

// ClaudeTool is a Gemini tool's name in Claude Code's words ("Bash" for
// run_shell_command), or name itself when Claude Code has no such tool.
// The argument names the hooks read are the same (command, file_path).
func ClaudeTool(name string) string {
	if c, ok := tools[name]; ok {
		return c
	}
	return name
}

// Tools are the Gemini names of the Claude Code tools claude (guard.tools),
// in that order; a tool Gemini does not have is left out.
func Tools(claude []string) []string {
	var out []string
	for _, c := range claude {
		for g, cc := range tools {
			if cc == c {
				out = append(out, g)
			}
		}
	}
	return out
}

// contextOpen and contextClose wrap what a hook added, in the user turn
// Gemini sends and records.
const (
	contextOpen  = "<hook_context>"
	contextClose = "</hook_context>"
)

// Typed is a prompt as the person typed it: Gemini glues what the
// SessionStart hook added in a headless run to the first prompt,
// "<hook_context>…</hook_context>\n\n<prompt>", and BeforeAgent's prompt
// carries it.
func Typed(prompt string) string {
	for strings.HasPrefix(prompt, contextOpen) {
		end := strings.Index(prompt, contextClose)
		if end < 0 {
			return prompt
		}
		prompt = strings.TrimLeft(prompt[end+len(contextClose):], "\n")
	}
	return prompt
}

// Deny is BeforeTool's answer that the call must not run: the model reads
// "Tool execution blocked: <reason>" as its result, and the turn goes on.
func Deny(reason string) claudecode.Output {
	return claudecode.Output{Decision: "deny", Reason: reason}
}
