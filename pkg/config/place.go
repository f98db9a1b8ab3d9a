package config

// Where a hook runs — the project of its working folder and the
// configuration that applies there — and its work bounded by the
// configured deadline. Every entry point of pkg/memory, and a turn's end
// (session.EndTurn), starts here.

import (
	"context"
	"errors"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
)

// Place is a session's resolved surroundings: its project (nil when the
// working directory is unusable) and configuration.
type Place struct {
	Project *store.Project
	Cfg     Config
	Files   []File
	Err     error // why there is no project
}

// Locate resolves the place of a hook run in cwd.
func Locate(e store.Env, cwd string) Place {
	var pl Place
	switch {
	case cwd == "":
		pl.Err = errors.New("no working directory in the hook input")
	default:
		if p, err := store.ResolveProject(e, cwd); err != nil {
			pl.Err = err
		} else {
			pl.Project = &p
		}
	}
	root := ""
	if pl.Project != nil {
		root = pl.Project.Root
	}
	key := ""
	if pl.Project != nil {
		key = pl.Project.Key
	}
	pl.Cfg, pl.Files = Load(e, root, key)
	return pl
}

// Deadline bounds ctx by the configured deadline counted from started;
// a zero started leaves ctx as it is (a command, not a hook).
func Deadline(ctx context.Context, started time.Time, cfg Config) (context.Context, context.CancelFunc) {
	if started.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, started.Add(cfg.Deadline))
}
