package search

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/store"
)

// A prompt never waits for the index. Memory that changed (an import, a
// sync, the sessions archived at a start) is indexed outside the prompt's
// path: by `ccmem import` when it ends, and by `ccmem search --index`,
// which a session start runs in the background when the index of its
// project is stale (Stale). While that runs, a prompt builds nothing and
// answers from the index there is (an out-of-date bucket with its files
// unchanged since: see listing.go); otherwise it builds what fits in a
// small allowance (recallBuild) and leaves the rest out.

// buildingName is the marker a refresh keeps fresh while it builds.
const buildingName = "building"

// buildingFresh is how long a refresh's marker says it still runs: a
// refresh touches it after every unit it builds, so an older one was left
// by a refresh that died.
const buildingFresh = time.Minute

// Building tells whether a refresh is building the index now.
func Building(e store.Env) bool {
	fi, err := os.Lstat(filepath.Join(Dir(e), buildingName))
	return err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) < buildingFresh
}

// RefreshReport says what a refresh did.
type RefreshReport struct {
	Units int `json:"units"` // the index files of the scope
	Built int `json:"built"` // of them, (re)built now
}

// Refresh brings the index of every unit of the scope up to date, each
// source file checked: what Search would build on its way, without a
// query. It marks the index as being built while it runs (see Building).
func Refresh(ctx context.Context, e store.Env, sc Scope) (RefreshReport, error) {
	var rep RefreshReport
	dir := Dir(e)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return rep, err
	}
	marker := filepath.Join(dir, buildingName)
	touch := func() { _ = os.WriteFile(marker, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600) }
	touch()
	defer os.Remove(marker)
	units := layout(e, sc)
	rep.Units = len(units)
	readers, _ := openUnits(ctx, e, units, false, 0, func() {
		rep.Built++
		touch()
	})
	for _, r := range readers {
		r.Close()
	}
	return rep, ctx.Err()
}

// Stale tells whether the index of the scope's sessions (its project's
// episodes and archive) is out of date, as a prompt's quick look would
// find it: a folder's modification time differs from the one its index
// was built at. A session start asks it to decide whether to refresh the
// index in the background: archiving, an import or a sync change these
// folders, and a bucket of thousands of sessions is what a prompt cannot
// build in its allowance. Everything else (a MEMORY.md, a few learned
// entries) is small enough for the prompt to build, or to find missing and
// start the refresh itself (see RecallOptions.Refresh). It reads a few
// stamps, never the memory itself.
func Stale(e store.Env, sc Scope) bool {
	dir := Dir(e)
	checked := map[string]bool{}
	for _, u := range layout(e, sc) {
		if u.kind != KindEpisode {
			continue
		}
		g := u.group()
		if checked[g] {
			continue
		}
		checked[g] = true
		stamp := dirStamp(u.dir)
		if trusted, _ := readDirStamp(filepath.Join(dir, g+".dir"), stamp); !trusted && stamp != "absent" {
			return true
		}
	}
	return false
}

// StartRefresh runs `ccmem search --index` (ccmem at path) for the project
// at root in the background, marking the index as being built first, so
// that the prompts that follow at once build nothing (see Building) and a
// start that follows does not run another.
func StartRefresh(e store.Env, ccmem, root string) error {
	dir := Dir(e)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	marker := filepath.Join(dir, buildingName)
	if err := os.WriteFile(marker, []byte("starting\n"), 0o600); err != nil {
		return err
	}
	if _, err := proc.StartDetached(ccmem, []string{"search", "--index", "--cwd", root}, e.Store); err != nil {
		os.Remove(marker)
		return err
	}
	return nil
}

// RefreshIfStale starts a background refresh of the scope's index (see
// StartRefresh) unless one runs or the index is current; it tells whether
// it started one.
func RefreshIfStale(e store.Env, sc Scope, ccmem, root string) bool {
	if Building(e) || !Stale(e, sc) {
		return false
	}
	return StartRefresh(e, ccmem, root) == nil
}
