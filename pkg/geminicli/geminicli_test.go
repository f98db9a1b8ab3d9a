package geminicli

import (
	"slices"
	"testing"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// TestTyped: the context Gemini glues to a headless first prompt is not
// the person's prompt; a prompt that only mentions the tag is theirs.
func TestTyped(t *testing.T) {
	for in, want := range map[string]string{
		"<hook_context># Memory recalled by ccmem\nfacts</hook_context>\n\nwhich port?": "which port?",
		"<hook_context>a</hook_context>\n\n<hook_context>b</hook_context>\n\nhi":        "hi",
		"which port?": "which port?",
		"why does <hook_context> show up in the log?": "why does <hook_context> show up in the log?",
		"<hook_context>never closed":                  "<hook_context>never closed",
	} {
		if got := Typed(in); got != want {
			t.Errorf("Typed(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestToolNames: Gemini's tools are read in Claude Code's names, and
// guard.tools registers BeforeTool for Gemini's names of them.
func TestToolNames(t *testing.T) {
	if ClaudeTool("run_shell_command") != "Bash" || ClaudeTool("replace") != "Edit" || ClaudeTool("mcp_x") != "mcp_x" {
		t.Error("tool names")
	}
	if got := Tools([]string{"Bash", "Edit", "Write", "MultiEdit", "NotebookEdit", "Skill"}); !slices.Equal(got, []string{"run_shell_command", "replace", "write_file", "activate_skill"}) {
		t.Errorf("Tools = %q", got)
	}
}

// TestHooksAreClaudeCodes: every binary Gemini runs is one of Claude
// Code's hooks, serving the event it was written for.
func TestHooksAreClaudeCodes(t *testing.T) {
	for _, h := range Hooks {
		i := slices.IndexFunc(claudecode.Hooks, func(c claudecode.Hook) bool { return c.Binary == h.Binary })
		if i < 0 || claudecode.Hooks[i].Event != h.Claude {
			t.Errorf("%s → %s is not Claude Code's %s hook", h.Event, h.Binary, h.Claude)
		}
	}
	if !Serves("BeforeAgent") || Serves("SessionStart") || Serves("UserPromptSubmit") || Serves("PreCompress") {
		t.Error("Serves")
	}
	if d, _ := Deny("rule").Encode(); string(d) != `{"decision":"deny","reason":"rule"}`+"\n" {
		t.Errorf("Deny = %s", d)
	}
}
