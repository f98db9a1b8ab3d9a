package session

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
)

// Every ended session becomes an episode, however ccmem meets it. A
// session start archives its own project's ended sessions; SettleAll does
// it for every project of the store, for what reads or ships the whole
// store — an import, a sync (so the session that just ended on this
// machine reaches the others), the local page — and, now and then, for a
// session start anywhere.

// SettleReport says what SettleAll archived.
type SettleReport struct {
	Projects int      `json:"projects"` // projects with live records looked at
	Archived []string `json:"archived,omitempty"`
}

// SettleAll archives, in every project of the store, the live records of
// sessions that are over (their claude process is gone, or their
// transcript quiet for orphan_after), as the next session start there
// would. cfgOf gives a project's configuration (nil: each project's own,
// as a session there loads it). It stops when ctx is done.
func SettleAll(ctx context.Context, e store.Env, cfgOf func(store.Project) config.Config) (SettleReport, error) {
	return settle(ctx, e, cfgOf, "")
}

// settleEvery is how often a session start settles the other projects.
const settleEvery = 10 * time.Minute

// SettleElsewhere is a session start's share of SettleAll: at most every
// settleEvery (a stamp in the projects folder says when), the other
// projects' ended sessions, for at most a few tens of milliseconds of
// ctx. A session that ended in one project is then an episode, synced
// and searched, without waiting for the next session there.
func SettleElsewhere(ctx context.Context, e store.Env, except string) {
	stamp := filepath.Join(e.ProjectsDir(), ".settled")
	now := e.Time()
	if fi, err := os.Lstat(stamp); err == nil && now.Sub(fi.ModTime()) < settleEvery {
		return
	}
	if err := os.Chtimes(stamp, now, now); err != nil {
		if err := os.WriteFile(stamp, nil, 0o600); err != nil {
			return
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, _ = settle(ctx, e, nil, except)
}

func settle(ctx context.Context, e store.Env, cfgOf func(store.Project) config.Config, except string) (SettleReport, error) {
	var rep SettleReport
	ents, err := os.ReadDir(e.ProjectsDir())
	if err != nil {
		if os.IsNotExist(err) {
			return rep, nil
		}
		return rep, err
	}
	for _, de := range ents {
		if ctx.Err() != nil {
			break
		}
		key := de.Name()
		if !de.IsDir() || !store.ValidKey(key) || key == except {
			continue
		}
		if cps, err := store.ReadDirIn(e.ProjectDir(key), e.CheckpointsDir(key)); err != nil || len(cps) == 0 {
			continue
		}
		root := e.ProjectRoot(key)
		if root == "" {
			continue // synced from another machine: its sessions are that machine's to settle
		}
		p := store.ProjectAt(e, root)
		if p.Key != key {
			continue // the folder is no longer this project's
		}
		var cfg config.Config
		if cfgOf != nil {
			cfg = cfgOf(p)
		} else {
			cfg, _ = config.Load(e, p.Root, p.Key)
		}
		rep.Projects++
		ar, err := ArchiveOrphans(ctx, e, p, Current{}, cfg)
		rep.Archived = append(rep.Archived, ar.Archived...)
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}
