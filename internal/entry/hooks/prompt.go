package hooks

import (
	"context"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/memory"
)

const promptUsage = `usage: userpromptsubmit < hook-input.json

userpromptsubmit is ccmem's UserPromptSubmit hook for Claude Code. Before
the model sees a person's prompt, it adds the few memories that bear on it
and the session was not shown yet (one line each: date, where, the
sentence that matches, the file and turn to read), and what triage found
in the session's earlier turns (once each; only when triage is on), as
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
		r, code := begin(name, promptUsage, p)
		if r == nil {
			return code
		}
		if r.inErr != nil {
			writeLine(p.Stderr, name+": "+r.inErr.Error())
			return 1
		}
		res, err := memory.Prompt(context.Background(), r.env, memory.PromptRequest{
			SessionID: r.in.SessionID, Cwd: r.in.Cwd, Prompt: r.in.Prompt, Source: r.in.Source, Started: r.started, CCMem: ccmemCommand, Binary: ccmemBinary,
		})
		if err != nil {
			writeLine(p.Stderr, name+": "+err.Error())
			return 1
		}
		if res.Disabled || res.Context == "" {
			return 0
		}
		return emitContext(p, name, "UserPromptSubmit", res.Context)
	})
}
