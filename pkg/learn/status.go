package learn

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/str"
	"github.com/ccmem/ccmem/pkg/store"
)

// Backlog is how many memory files wait in Claude Code's silos.
type Backlog struct {
	Files int `json:"files"`
	Silos int `json:"silos"`
}

// CountBacklog counts the memory files in every silo
// (<claude dir>/projects/*/memory/*.md, MEMORY.md excepted) from directory
// listings alone: no memory file is opened, so it stays cheap with many
// silos. Files the last `learn check` skipped (and that have not changed
// since) are not counted: learn would leave them alone.
func CountBacklog(ctx context.Context, e store.Env) (Backlog, error) {
	return countBacklog(ctx, e, ReadStatus(e).skippedSet())
}

func countBacklog(ctx context.Context, e store.Env, skipped map[string]FileStamp) (Backlog, error) {
	var b Backlog
	projects, err := os.ReadDir(e.SilosDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return b, nil
		}
		return b, e.PathError(e.SilosDir(), err)
	}
	for _, p := range projects {
		if err := ctx.Err(); err != nil {
			return b, err
		}
		if !p.IsDir() {
			continue
		}
		n := countSiloFiles(filepath.Join(e.SilosDir(), p.Name(), "memory"), skipped)
		if n > 0 {
			b.Files += n
			b.Silos++
		}
	}
	return b, nil
}

func countSiloFiles(dir string, skipped map[string]FileStamp) int {
	f, err := os.Open(dir)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	for {
		ents, err := f.ReadDir(1024)
		for _, de := range ents {
			name := de.Name()
			if !strings.HasSuffix(name, ".md") || name == "MEMORY.md" {
				continue
			}
			if st, ok := skipped[filepath.Join(dir, name)]; ok {
				if fi, err := de.Info(); err == nil && fi.Size() == st.Size && fi.ModTime().UnixNano() == st.ModTime {
					continue
				}
			}
			if de.Type().IsRegular() || de.Type()&fs.ModeSymlink != 0 {
				n++
			}
		}
		if err != nil {
			return n
		}
	}
}

// Status is the cache behind the status line and the nudge.
type Status struct {
	UpdatedAt string  `json:"updated_at"`
	Backlog   Backlog `json:"backlog"`
	Review    int     `json:"review"`
	// Skipped are silo files learn leaves alone (no or broken frontmatter,
	// unknown type): not counted as backlog while they stay unchanged.
	Skipped []FileStamp `json:"skipped,omitempty"`
}

// FileStamp identifies a file version without reading it.
type FileStamp struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
}

// ReadStatus reads the status cache; a missing or damaged one is empty.
func ReadStatus(e store.Env) Status {
	var s Status
	if data, err := store.ReadSmallFile(e.StatusPath(), 16<<20); err == nil {
		_ = json.Unmarshal(data, &s)
	}
	return s
}

// skippedSet maps the skipped paths to their stamps.
func (s Status) skippedSet() map[string]FileStamp {
	m := make(map[string]FileStamp, len(s.Skipped))
	for _, f := range s.Skipped {
		m[f.Path] = f
	}
	return m
}

// SkippedStamps lists the plan's skipped files as stamps.
func (p Plan) SkippedStamps() []FileStamp {
	var out []FileStamp
	for _, it := range p.Items {
		if it.Action != ActSkip {
			continue
		}
		if fi, err := os.Lstat(it.Path); err == nil {
			out = append(out, FileStamp{Path: it.Path, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()})
		}
	}
	return out
}

// RefreshStatus recounts the backlog and pending review and rewrites the
// status cache when they changed. skipped replaces the remembered skipped
// files when not nil.
func RefreshStatus(ctx context.Context, e store.Env, skipped []FileStamp) (Status, error) {
	// The cache is stamped with the time counting began, so a silo file
	// added while counting makes it stale (see CachedBacklog).
	began := time.Now()
	old := ReadStatus(e)
	s := Status{Skipped: old.Skipped}
	if skipped != nil {
		s.Skipped = skipped
	}
	b, err := countBacklog(ctx, e, s.skippedSet())
	if err != nil {
		return old, err
	}
	s.Backlog = b
	if items, err := Pending(e); err == nil {
		s.Review = len(items)
	}
	if old.Backlog == s.Backlog && old.Review == s.Review && slices.Equal(old.Skipped, s.Skipped) {
		// Unchanged: only mark it as just verified (see CachedBacklog).
		_ = os.Chtimes(e.StatusPath(), began, began)
		return old, nil
	}
	if _, err := os.Stat(e.Store); err != nil && skipped == nil {
		return s, nil // no store yet, and nothing worth creating it for
	}
	s.UpdatedAt = e.Time().UTC().Format(time.RFC3339)
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return s, err
	}
	defer unlock()
	store.Tidy(e.Store, "status.json")
	if err := store.WriteJSON(e.StatusPath(), s); err != nil {
		return s, err
	}
	_ = os.Chtimes(e.StatusPath(), began, began)
	return s, nil
}

// CachedBacklog returns the backlog from status.json when no silo folder
// changed since it was counted (every silo's memory folder, and the folder
// of silos, is older than status.json), else counts the silos. That costs a
// stat per silo instead of a listing, so the status line and the nudge stay
// cheap with hundreds of silos, and are never stale.
func CachedBacklog(ctx context.Context, e store.Env) (Backlog, bool, error) {
	if StatusFresh(e) {
		return ReadStatus(e).Backlog, true, nil
	}
	b, err := CountBacklog(ctx, e)
	return b, false, err
}

// StatusFresh tells whether status.json is newer than every silo folder.
func StatusFresh(e store.Env) bool {
	fi, err := os.Stat(e.StatusPath())
	return err == nil && silosOlderThan(e, fi.ModTime())
}

func silosOlderThan(e store.Env, t time.Time) bool {
	fi, err := os.Stat(e.SilosDir())
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	if fi.ModTime().After(t) {
		return false
	}
	f, err := os.Open(e.SilosDir())
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return false
	}
	for _, n := range names {
		if fi, err := os.Stat(filepath.Join(e.SilosDir(), n, "memory")); err == nil && fi.ModTime().After(t) {
			return false
		}
	}
	return true
}

// BacklogLine is the status line's text: "3 un-ingested memories across 2
// silos".
func BacklogLine(b Backlog) string {
	return str.Plural(b.Files, "un-ingested memory", "un-ingested memories") + " across " + str.Plural(b.Silos, "silo", "silos")
}
