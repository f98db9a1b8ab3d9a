// Package turn is the Stop and PreCompact hooks' work: a session's record
// brought up to date with its transcript after each turn, triage run on
// what is new, and the compaction's instructions. It links no search and
// no index: a turn ends without starting either.
package turn

import (
	"context"
	"time"

	"github.com/ccmem/ccmem/pkg/inject"
	"github.com/ccmem/ccmem/pkg/memory/where"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
)

// Request is what the Stop and PreCompact hooks hand over after a turn
// or before a compaction.
type Request struct {
	session.Turn
	// Started is when the hook started; the configured deadline counts
	// from it.
	Started time.Time
}

// Result is what the hook tells the client.
type Result struct {
	// Disabled is set when ccmem is off for this project: nothing was done.
	Disabled bool
	// Checkpoint is the session's record after this run (nil when it could
	// not be written at all).
	Checkpoint *session.Checkpoint
	// Instructions are added to the compaction prompt (PreCompact only).
	Instructions string
}

// Capture brings the session's checkpoint up to date with its transcript
// and, after a turn, runs triage when it is on: what it finds waits in the
// checkpoint for the next prompt (Prompt), so the answer the user is
// waiting for is never replaced. The error says why the checkpoint could
// not be brought up to date; the result still holds the instructions for
// the client.
func Capture(ctx context.Context, e store.Env, req Request) (Result, error) {
	pl := where.Locate(e, req.Cwd)
	if !pl.Cfg.Enabled {
		return Result{Disabled: true}, nil
	}
	ctx, cancel := where.Deadline(ctx, req.Started, pl.Cfg)
	defer cancel()
	var res Result
	if req.PreCompact {
		// A repository's config may set these: they are text for the model.
		res.Instructions = inject.Neutralize(pl.Cfg.PreCompactInstructions)
	}
	creq := session.CaptureRequest{Turn: req.Turn, Project: pl.Project, Capture: &pl.Cfg.Capture}
	if !req.PreCompact && pl.Cfg.Triage.Enabled {
		creq.Triage = &pl.Cfg.Triage
	}
	// The transcript is read until a second before the deadline (what is
	// left, the next turn's end reads on from there): the second is for
	// writing what was read, so that a starved CPU does not carry the hook
	// past the client's budget.
	if !req.Started.IsZero() {
		reserve := min(captureReserve, pl.Cfg.Deadline/2)
		var rcancel context.CancelFunc
		ctx, rcancel = context.WithDeadline(ctx, req.Started.Add(pl.Cfg.Deadline-reserve))
		defer rcancel()
	}
	cp, err := session.Capture(ctx, e, creq)
	res.Checkpoint = cp
	return res, err
}

// captureReserve is the part of a turn's end kept for writing what it read.
const captureReserve = time.Second
