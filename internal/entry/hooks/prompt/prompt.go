// Package prompt holds the UserPromptSubmit hook's body: per-prompt
// recall and triage's note (pkg/memory).
package prompt

import (
	"context"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/geminicli"
	"github.com/ccmem/ccmem/pkg/memory"
)

const promptUsage = `usage: userpromptsubmit < hook-input.json

userpromptsubmit is ccmem's UserPromptSubmit hook for Claude Code. Before
the model sees a person's prompt, it adds the few memories that bear on it
and the session was not shown yet (one line each: date, where, the
sentence that matches, the file and turn to read), and what triage found
in the session's earlier turns (once each; only with triage.ask_model), as
  {"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"…"}}
It prints nothing when there is nothing to add.
`

// promptOutput is the UserPromptSubmit hook's stdout.
// UserPromptSubmit is the body of the userpromptsubmit hook: silent unless
// it has context to add; one stderr line and exit 1 on a problem (the
// prompt still goes through); never 2, which would block the prompt.
func UserPromptSubmit(p hookio.Process) int {
	const name = "userpromptsubmit"
	return hookio.Contain(name, p, false, func() int {
		r, code := hookio.BeginInput(name, promptUsage, p)
		if r == nil {
			return code
		}
		event, prompt := "UserPromptSubmit", r.In.Prompt
		if geminicli.Serves(r.In.HookEventName) {
			// Gemini CLI's BeforeAgent: its answer names its own event,
			// and a headless first prompt carries the start's context.
			event, prompt = r.In.HookEventName, geminicli.Typed(prompt)
		}
		res, err := memory.Prompt(context.Background(), r.Env, memory.PromptRequest{
			SessionID: r.In.SessionID, Cwd: r.In.Cwd, Prompt: prompt, Source: r.In.Source, Started: r.Started, CCMem: hookio.CCMemCommand, Binary: hookio.CCMemBinary,
		})
		if err != nil {
			hookio.WriteLine(p.Stderr, name+": "+err.Error())
			return 1
		}
		if res.Disabled || res.Context == "" {
			return 0
		}
		return hookio.EmitContext(p, name, event, res.Context)
	})
}
