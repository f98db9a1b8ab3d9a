package memory

import (
	"context"
	"time"

	"github.com/ccmem/ccmem/pkg/inject"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
)

// TurnRequest is what the Stop and PreCompact hooks hand over after a turn
// or before a compaction.
type TurnRequest struct {
	SessionID      string
	TranscriptPath string
	Cwd            string
	// Started is when the hook started; the configured deadline counts
	// from it.
	Started time.Time
	Process proc.Info
	// PreCompact is set by the PreCompact hook; Trigger is its "manual" or
	// "auto".
	PreCompact bool
	Trigger    string
	// StopHookActive is set when the model already continues because of a
	// Stop hook: triage never blocks then.
	StopHookActive bool
	// LastAssistantMessage is the reply the Stop hook was given (the
	// transcript can lag behind it).
	LastAssistantMessage string
	// CCMem says how the model can run ccmem, for triage's instructions;
	// it is asked only when triage fires.
	CCMem func() string
}

// TurnResult is what the hook tells the client.
type TurnResult struct {
	// Disabled is set when ccmem is off for this project: nothing was done.
	Disabled bool
	// Checkpoint is the session's record after this run (nil when it could
	// not be written at all).
	Checkpoint *session.Checkpoint
	// Block, when not empty, asks the model to go on and save what triage
	// found (Stop only).
	Block string
	// Instructions are added to the compaction prompt (PreCompact only).
	Instructions string
}

// Capture brings the session's checkpoint up to date with its transcript
// and, after a turn, runs triage when it is on. The error says why the
// checkpoint could not be brought up to date; the result still holds the
// instructions for the client.
func Capture(ctx context.Context, e store.Env, req TurnRequest) (TurnResult, error) {
	pl := locate(e, req.Cwd)
	if !pl.cfg.Enabled {
		return TurnResult{Disabled: true}, nil
	}
	ctx, cancel := withDeadline(ctx, req.Started, pl.cfg)
	defer cancel()
	var res TurnResult
	if req.PreCompact {
		// A repository's config may set these: they are text for the model.
		res.Instructions = inject.Neutralize(pl.cfg.PreCompactInstructions)
	}
	creq := session.CaptureRequest{
		SessionID: req.SessionID, TranscriptPath: req.TranscriptPath, Cwd: req.Cwd,
		Process: req.Process, PreCompact: req.PreCompact, Trigger: req.Trigger,
		StopHookActive: req.StopHookActive, LastAssistantMessage: req.LastAssistantMessage,
		Project: pl.project,
	}
	if !req.PreCompact && pl.cfg.Triage.Enabled {
		creq.Triage = &pl.cfg.Triage
	}
	cp, err := session.Capture(ctx, e, creq)
	res.Checkpoint = cp
	if err == nil && cp != nil && len(cp.Triage) > 0 {
		ccmem := "ccmem"
		if req.CCMem != nil {
			ccmem = req.CCMem()
		}
		res.Block = inject.Neutralize(records.TriageReason(cp.Triage, ccmem))
	}
	return res, err
}
