package session

import (
	"context"
	"time"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
)

// TurnEnd is what the Stop and PreCompact hooks tell the client after
// EndTurn.
type TurnEnd struct {
	// Disabled is set when ccmem is off for this project: nothing was done.
	Disabled bool
	// Checkpoint is the session's record after this run (nil when it could
	// not be written at all).
	Checkpoint *Checkpoint
	// Instructions are added to the compaction prompt (PreCompact only).
	Instructions string
}

// EndTurn is the Stop and PreCompact hooks' whole work, started at
// started: the session's checkpoint brought up to date with its
// transcript within the configured deadline and, after a turn, triage run
// when it is on: what it finds waits in the checkpoint for the next
// prompt, so the answer the user is waiting for is never replaced. The
// error says why the checkpoint could not be brought up to date; the
// result still holds the instructions for the client. It links no search
// and no index: a turn ends without starting either.
func EndTurn(ctx context.Context, e store.Env, turn Turn, started time.Time) (TurnEnd, error) {
	pl := config.Locate(e, turn.Cwd)
	if !pl.Cfg.Enabled {
		return TurnEnd{Disabled: true}, nil
	}
	ctx, cancel := config.Deadline(ctx, started, pl.Cfg)
	defer cancel()
	var res TurnEnd
	if turn.PreCompact {
		// A repository's config may set these: they are text for the model.
		res.Instructions = claudecode.Neutralize(pl.Cfg.PreCompactInstructions)
	}
	creq := CaptureRequest{Turn: turn, Project: pl.Project, Capture: &pl.Cfg.Capture}
	if !turn.PreCompact && pl.Cfg.Triage.Enabled {
		creq.Triage = &pl.Cfg.Triage
	}
	// The transcript is read until a second before the deadline (what is
	// left, the next turn's end reads on from there): the second is for
	// writing what was read, so that a starved CPU does not carry the hook
	// past the client's budget.
	if !started.IsZero() {
		reserve := min(captureReserve, pl.Cfg.Deadline/2)
		var rcancel context.CancelFunc
		ctx, rcancel = context.WithDeadline(ctx, started.Add(pl.Cfg.Deadline-reserve))
		defer rcancel()
	}
	cp, err := Capture(ctx, e, creq)
	res.Checkpoint = cp
	return res, err
}

// captureReserve is the part of a turn's end kept for writing what it read.
const captureReserve = time.Second
