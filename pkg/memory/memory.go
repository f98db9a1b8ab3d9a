// Package memory is ccmem's shared library, the one the hooks call: it
// composes the capped memory block a session starts with, archives the
// sessions that are over, records each turn, and nudges the user when
// Claude Code's memory folders need curating. It owns the hooks' deadline:
// every entry point reads the configuration first and then bounds its work
// by the configured deadline, counted from when the hook started.
//
// The rules themselves live in focused packages: store (layout, files,
// project identity), config, inject (fitting the block), session
// (checkpoints, episodes), learn (silos, learned entries, status cache),
// records and notes.
package memory

import (
	"context"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
)

// withDeadline bounds ctx by the configured deadline counted from started;
// a zero started leaves ctx as it is (a command, not a hook).
func withDeadline(ctx context.Context, started time.Time, cfg config.Config) (context.Context, context.CancelFunc) {
	if started.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, started.Add(cfg.Deadline))
}
