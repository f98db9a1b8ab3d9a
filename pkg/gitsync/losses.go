package gitsync

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/syncstate"
)

// A remote can take memory away a little at a time: a sync that deletes a
// few files asks nothing, and the next few syncs do the same. So what
// syncs take away is counted across them, since the person last
// confirmed what this machine holds (sync/removed.json, this machine's
// own): a file the remote deleted, emptied or moved into the archive
// (forgotten: no longer shown or recalled), that this machine held. When
// the count reaches a quarter of the memory (tooMany), the sync stops and
// asks. Every removal is kept with the sync that made it, so `ccmem sync
// --undo` puts back what the last sync removed and --keep-deleted what
// every sync since the last confirmation did; the files come from the
// store's own history, which the remote cannot change.

// removedName is the file, in the sync folder, of what syncs removed.
const removedName = "removed.json"

// Removed is one memory file a sync took away from this machine.
type Removed struct {
	Path string `json:"path"`
	// Obj is the blob this machine held, Sync the commit (short) this
	// machine was at after the sync that removed it, How "deleted",
	// "emptied" or "archived".
	Obj  string    `json:"obj"`
	Sync string    `json:"sync"`
	How  string    `json:"how"`
	When time.Time `json:"when"`
	// Lines, when How is "lines", are the lines of a line file the sync
	// took away (the file itself stays): see lines.go.
	Lines []string `json:"lines,omitempty"`
}

// losses are what syncs removed since the person last confirmed.
type losses struct {
	// Since is when the person last confirmed (zero: never asked).
	Since time.Time `json:"since,omitzero"`
	Files []Removed `json:"files"`
}

func readLosses(e store.Env) losses {
	var l losses
	if data, err := store.ReadSmallFile(filepath.Join(syncstate.Dir(e), removedName), 16<<20); err == nil {
		_ = json.Unmarshal(data, &l)
	}
	return l
}

func writeLosses(e store.Env, l losses) error {
	if err := os.MkdirAll(syncstate.Dir(e), 0o700); err != nil {
		return err
	}
	return store.WriteJSON(filepath.Join(syncstate.Dir(e), removedName), l)
}

// live tells a file that is memory a person has: not the archive of what
// was forgotten (and of versions sync kept), not ccmem's own files or this
// machine's settings.
func live(rel string) bool {
	return !ownFiles[rel] && !localOnly(rel) && rel != "archive" && !strings.HasPrefix(rel, "archive/")
}

// liveCount is how many memory files fs holds.
func liveCount(fs files) int {
	n := 0
	for rel := range fs.m {
		if live(rel) {
			n++
		}
	}
	return n
}

// maxEmpty is the size under which a file may be empty to the eye (white
// space only); such a file is read to tell.
const maxEmpty = 64

// empty tells a file that holds nothing (or white space only).
func (s *Syncer) empty(ctx context.Context, f file) bool {
	if f.size == 0 {
		return true
	}
	if f.size > maxEmpty {
		return false
	}
	data, err := s.gitRaw(ctx, nil, "cat-file", "blob", f.obj)
	return err == nil && len(bytes.TrimSpace(data)) == 0
}

// removedBy lists the memory files this machine holds (ours) that
// integrating their would take away: deleted there (and unchanged here
// since the common base), emptied there, or moved there into the
// archive. A file whose contents stay in memory under another name (moved,
// as retention moves sessions to a project's archive) is not taken away.
func (s *Syncer) removedBy(ctx context.Context, was, ours, their files) []Removed {
	if was.m == nil {
		return nil // joining: nothing is taken away
	}
	kept := map[string]bool{} // blobs that stay in memory there
	for rel, f := range their.m {
		if live(rel) {
			kept[f.obj] = true
		}
	}
	var out []Removed
	for rel, o := range ours.m {
		if !live(rel) || s.empty(ctx, o) {
			continue
		}
		b, inBase := was.m[rel]
		t, there := their.m[rel]
		switch {
		case !there:
			// Deleted there: the merge deletes it here only when this
			// machine did not change it since the base.
			if !inBase || b.obj != o.obj || kept[o.obj] {
				continue
			}
			how := "deleted"
			for r, f := range their.m {
				if !live(r) && f.obj == o.obj {
					how = "archived"
					break
				}
			}
			out = append(out, Removed{Path: rel, Obj: o.obj, How: how})
		case t.obj != o.obj && (!inBase || b.obj == o.obj) && s.empty(ctx, t):
			// Changed there to nothing, and not here: the merge takes
			// theirs.
			out = append(out, Removed{Path: rel, Obj: o.obj, How: "emptied"})
		}
	}
	slices.SortFunc(out, func(a, b Removed) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// tooMany tells whether removed files out of memory (what this machine
// holds, with what was removed since the last confirmation) call for a
// person's yes: a quarter or more of it, and at least three.
func tooMany(removed, memory int) bool {
	return removed >= 3 && 4*removed >= memory
}

// restore writes back the files syncs removed, from the store's history,
// unless the file was written here since (it holds something, and not the
// removed version's text); it returns the paths it wrote.
func (s *Syncer) restore(ctx context.Context, rs []Removed) ([]string, error) {
	var out []string
	for _, r := range rs {
		if carriedPath(r.Path) != "" || !live(r.Path) {
			continue
		}
		p := filepath.Join(s.Env.Store, filepath.FromSlash(r.Path))
		if r.How == "lines" {
			// The lines that are not there again, at the file's end.
			data, err := store.ReadSmallFile(p, maxLineFile)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return out, err
			}
			if data, changed := withLines(data, r.Lines); changed {
				if err := s.writeFile(r.Path, data); err != nil {
					return out, err
				}
				out = append(out, r.Path)
			}
			continue
		}
		if data, err := store.ReadSmallFile(p, 64<<20); err == nil && len(bytes.TrimSpace(data)) > 0 {
			continue // written here since: this machine's stands
		}
		data, err := s.gitRaw(ctx, nil, "cat-file", "blob", r.Obj)
		if err != nil {
			return out, fmt.Errorf("%s: its last version is not in the store's history: %w", r.Path, err)
		}
		if err := s.writeFile(r.Path, data); err != nil {
			return out, err
		}
		out = append(out, r.Path)
	}
	return out, nil
}

// Undo puts back what the last sync that removed anything took away, from
// the store's history, and commits it (the next sync puts it back on the
// remote). It reports the files put back in Restored.
func (s *Syncer) Undo(ctx context.Context) (syncstate.Report, error) {
	var rep syncstate.Report
	if !syncstate.IsSetUp(s.Env) {
		return rep, ErrNotSetUp
	}
	unlock, err := store.Lock(syncstate.Dir(s.Env))
	if err != nil {
		return rep, err
	}
	defer unlock()
	l := readLosses(s.Env)
	if len(l.Files) == 0 {
		return rep, ErrNothingToUndo
	}
	last := l.Files[len(l.Files)-1].Sync
	var undo, rest []Removed
	for _, r := range l.Files {
		if r.Sync == last {
			undo = append(undo, r)
		} else {
			rest = append(rest, r)
		}
	}
	unlockStore, err := store.Lock(s.Env.Store)
	if err != nil {
		return rep, err
	}
	rep.Restored, err = s.restore(ctx, undo)
	unlockStore()
	if err != nil {
		return rep, err
	}
	l.Files = rest
	if err := writeLosses(s.Env, l); err != nil {
		return rep, err
	}
	return rep, s.commitLocal(ctx, &rep, "ccmem sync: "+s.machine()+" puts back what the last sync removed")
}

// ErrNothingToUndo is Undo when no sync removed anything since the person
// last confirmed.
var ErrNothingToUndo = fmt.Errorf("no sync removed anything since you last confirmed")
