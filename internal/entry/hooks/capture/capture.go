// Package capture holds the Stop and PreCompact hooks' bodies: a turn
// recorded in the session's checkpoint (session.EndTurn). It links no
// search.
package capture

import (
	"context"
	"fmt"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/session"
)

const stopUsage = `usage: stop < hook-input.json

stop is ccmem's Stop hook for Claude Code. After every assistant turn it
reads what the session's transcript gained since the last turn and updates
the session's checkpoint in the store. It prints nothing: what triage
finds is noted in the session's record for the person (ccmem triage), and
carried to the model by the next prompt only when triage.ask_model is on;
never in place of the answer.
`

const preCompactUsage = `usage: precompact < hook-input.json

precompact is ccmem's PreCompact hook for Claude Code. It brings the
session's checkpoint up to date, counts the compaction, and prints the
instructions (config: precompact_instructions) that the client appends to
its compaction prompt.
`

// Stop is the body of the stop hook: silent, exit 0 on success; one stderr
// line and exit 1 on a problem; never 2.
func Stop(p hookio.Process) int {
	return capture("stop", stopUsage, p, false)
}

// PreCompact is the body of the precompact hook. The instructions are
// printed even when the capture fails, and then the hook exits 0 (the
// client would drop the output of a failed hook) with its one stderr line.
func PreCompact(p hookio.Process) int {
	return capture("precompact", preCompactUsage, p, true)
}

func capture(name, usage string, p hookio.Process, preCompact bool) int {
	return hookio.Contain(name, p, false, func() int {
		r, code := hookio.BeginInput(name, usage, p)
		if r == nil {
			return code
		}
		in := r.In
		res, err := session.EndTurn(context.Background(), r.Env, turnOf(in, p, preCompact), r.Started)
		if res.Disabled {
			return 0
		}
		if res.Instructions != "" {
			fmt.Fprintln(p.Stdout, res.Instructions)
		}
		if err != nil {
			hookio.WriteLine(p.Stderr, name+": "+err.Error())
			if !preCompact {
				return 1
			}
		}
		return 0
	})
}

// turnOf is the turn a Stop or PreCompact hook runs after, from its input
// and the client's process: the value that goes whole to capture.
func turnOf(in claudecode.Input, p hookio.Process, preCompact bool) session.Turn {
	claude := proc.Claude(p.Getenv)
	return session.Turn{
		SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, Cwd: in.Cwd,
		Process: claude, PreCompact: preCompact, Trigger: in.Trigger,
		StopHookActive: in.StopHookActive, LastAssistantMessage: in.LastAssistantMessage,
		Automation: func() string { return proc.Automation(p.Getenv, claude) },
	}
}
