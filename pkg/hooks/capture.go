package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ccmem/ccmem/pkg/hookio"
	"github.com/ccmem/ccmem/pkg/memory"
)

const stopUsage = `usage: stop < hook-input.json

stop is ccmem's Stop hook for Claude Code. After every assistant turn it
reads what the session's transcript gained since the last turn and updates
the session's checkpoint in the store. It prints nothing.
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
	return hookio.Guard(name, p.Stderr, false, func() int {
		env, in, started, err, code, ok := start(name, usage, p)
		if !ok {
			return code
		}
		if err != nil {
			writeLine(p.Stderr, name+": "+err.Error())
			return 1
		}
		root := ""
		proj, perr := memory.ResolveProject(env, in.Cwd)
		if perr == nil {
			root = proj.Root
		}
		cfg, _ := env.LoadConfig(root)
		if !cfg.Enabled {
			return 0
		}
		ctx, cancel := context.WithDeadline(context.Background(), started.Add(cfg.Deadline))
		defer cancel()
		req := memory.CaptureRequest{
			SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, Cwd: in.Cwd,
			Process: memory.ClaudeProcess(p.Getenv), PreCompact: preCompact, Trigger: in.Trigger,
			StopHookActive: in.StopHookActive, LastAssistantMessage: in.LastAssistantMessage,
		}
		if perr == nil {
			req.Project = &proj
		}
		if !preCompact && cfg.Triage.Enabled {
			req.Triage = &cfg.Triage
		}
		cp, err := memory.Capture(ctx, env, req)
		if err == nil && cp != nil && len(cp.Triage) > 0 {
			// Ask the model to save what triage found: the client makes it
			// go on with reason as its instruction.
			enc := json.NewEncoder(p.Stdout)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(map[string]string{"decision": "block", "reason": memory.TriageReason(cp.Triage, ccmemCommand())})
		}
		if preCompact && cfg.PreCompactInstructions != "" {
			fmt.Fprintln(p.Stdout, cfg.PreCompactInstructions)
		}
		if err != nil {
			writeLine(p.Stderr, name+": "+err.Error())
			if !preCompact {
				return 1
			}
		}
		return 0
	})
}

// ccmemCommand is how the model can run ccmem: the installed binary beside
// this hook's install (PREFIX/lib/ccmem/stop → PREFIX/bin/ccmem), else
// "ccmem" from PATH.
func ccmemCommand() string {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "..", "..", "bin", "ccmem")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return filepath.Clean(p)
		}
	}
	return "ccmem"
}
