package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
)

// Counts sums up the sessions of every project in the store.
type Counts struct {
	Episodes int `json:"episodes"`
	Projects int `json:"projects"`
	// LastCapture is when a checkpoint or episode was last written; zero
	// when never.
	LastCapture time.Time `json:"last_capture,omitzero"`
}

// Count counts episodes and projects and finds the newest capture, from
// directory listings alone.
func Count(e store.Env) Counts {
	var c Counts
	keys, _ := os.ReadDir(e.ProjectsDir())
	for _, k := range keys {
		if !k.IsDir() {
			continue
		}
		c.Projects++
		for _, dir := range []string{e.EpisodesDir(k.Name()), e.CheckpointsDir(k.Name())} {
			ents, _ := os.ReadDir(dir)
			for _, de := range ents {
				if filepath.Ext(de.Name()) != ".json" {
					continue
				}
				if dir == e.EpisodesDir(k.Name()) {
					c.Episodes++
				}
				if fi, err := de.Info(); err == nil && fi.ModTime().After(c.LastCapture) {
					c.LastCapture = fi.ModTime()
				}
			}
		}
	}
	return c
}

// GCReport is what GC did across projects.
type GCReport struct {
	DryRun   bool     `json:"dry_run"`
	Moved    []string `json:"moved"`
	Cleaned  []string `json:"cleaned"`
	Projects int      `json:"projects"`
}

// GC applies retention to every project in the store, each with its own
// configuration.
func GC(ctx context.Context, e store.Env, dryRun bool) (GCReport, error) {
	rep := GCReport{DryRun: dryRun, Moved: []string{}, Cleaned: []string{}}
	keys, err := os.ReadDir(e.ProjectsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return rep, err
	}
	for _, k := range keys {
		if !k.IsDir() {
			continue
		}
		rep.Projects++
		cfg, _ := config.Load(e, e.ProjectRoot(k.Name()), k.Name())
		var r ArchiveReport
		var err error
		if dryRun {
			r, err = ApplyRetention(ctx, e, k.Name(), cfg, true)
		} else {
			r, _, err = Maintain(ctx, e, k.Name(), cfg, true)
		}
		if err != nil {
			return rep, fmt.Errorf("%s: %w", k.Name(), err)
		}
		rep.Moved = append(rep.Moved, r.Moved...)
		rep.Cleaned = append(rep.Cleaned, r.Cleaned...)
	}
	return rep, nil
}
