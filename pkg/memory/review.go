package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/frontmatter"
)

// ReviewItem is one feedback memory awaiting a person's decision.
type ReviewItem struct {
	File string `json:"file"` // name in review/feedback, without .md
	Name string `json:"name"`
	Path string `json:"path"`
	// Current is the accepted entry of the same name, if there is one.
	Current string `json:"current,omitempty"`
}

// ReviewDir holds feedback awaiting review.
func (e Env) ReviewDir() string { return filepath.Join(e.Store, "review", "feedback") }

// PendingReview lists feedback awaiting review, by file name.
func PendingReview(e Env) ([]ReviewItem, error) {
	ents, err := os.ReadDir(e.ReviewDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []ReviewItem
	for _, de := range ents {
		n := de.Name()
		if !de.Type().IsRegular() || !strings.HasSuffix(n, ".md") || strings.HasPrefix(n, ".") {
			continue
		}
		it := ReviewItem{File: strings.TrimSuffix(n, ".md"), Path: filepath.Join(e.ReviewDir(), n)}
		it.Name = it.File
		if data, err := ReadSmallFile(it.Path, 1<<20); err == nil {
			if m, _, err := frontmatter.Read(data); err == nil && m.Name != "" {
				it.Name = m.Name
			}
		}
		cur := filepath.Join(e.LearnedDir(), "feedback", n)
		if _, err := os.Stat(cur); err == nil {
			it.Current = cur
		}
		out = append(out, it)
	}
	return out, nil
}

// FindReview finds a pending item by file name or frontmatter name.
func FindReview(items []ReviewItem, name string) (ReviewItem, bool) {
	for _, it := range items {
		if it.File == name || it.Name == name || it.File == SafeName(name) {
			return it, true
		}
	}
	return ReviewItem{}, false
}

// AcceptReview makes a pending feedback memory canonical; an accepted entry
// of the same name it replaces is archived first.
func AcceptReview(e Env, it ReviewItem) (string, error) {
	unlock, err := Lock(e.Store)
	if err != nil {
		return "", err
	}
	defer unlock()
	dest := filepath.Join(e.LearnedDir(), "feedback", it.File+".md")
	if _, err := os.Stat(dest); err == nil {
		if _, err := archiveEntry(e, dest, "replaced by a reviewed version"); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return "", err
	}
	if err := os.Rename(it.Path, dest); err != nil {
		return "", err
	}
	return dest, syncDir(filepath.Dir(dest))
}

// RejectReview moves a pending feedback memory to the archive, recording
// why.
func RejectReview(e Env, it ReviewItem, reason string) (string, error) {
	unlock, err := Lock(e.Store)
	if err != nil {
		return "", err
	}
	defer unlock()
	if reason == "" {
		reason = "rejected in review"
	} else {
		reason = "rejected in review: " + reason
	}
	return archiveEntry(e, it.Path, reason)
}

// archiveEntry moves a store entry to $CCMEM_HOME/archive/feedback/ with an
// archived_reason in its frontmatter, then removes the original.
func archiveEntry(e Env, path, reason string) (string, error) {
	data, err := ReadSmallFile(path, 1<<20)
	if err != nil {
		return "", err
	}
	front, body, err := frontmatter.Split(data)
	if err == nil {
		var b strings.Builder
		b.WriteString("---\n")
		b.Write(stripKey(front, "archived_reason"))
		q, _ := json.Marshal(reason)
		fmt.Fprintf(&b, "archived_reason: %s\n---\n", q)
		b.Write(body)
		data = []byte(b.String())
	}
	stamp := e.now().UTC().Format(stampLayout)
	dest := filepath.Join(e.Store, "archive", "feedback", strings.TrimSuffix(filepath.Base(path), ".md")+"."+stamp+".md")
	if err := WriteFileAtomic(dest, data); err != nil {
		return "", err
	}
	if err := os.Remove(path); err != nil {
		return "", err
	}
	return dest, nil
}

func stripKey(front []byte, key string) []byte {
	var out []string
	for _, l := range strings.SplitAfter(string(front), "\n") {
		if !strings.HasPrefix(l, key+":") {
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, ""))
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

// StatusPath is the status cache.
func (e Env) StatusPath() string { return filepath.Join(e.Store, "status.json") }

// ReadStatus reads the status cache; a missing or damaged one is empty.
func ReadStatus(e Env) Status {
	var s Status
	if data, err := ReadSmallFile(e.StatusPath(), 16<<20); err == nil {
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
func (p LearnPlan) SkippedStamps() []FileStamp {
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
func RefreshStatus(ctx context.Context, e Env, skipped []FileStamp) (Status, error) {
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
	if items, err := PendingReview(e); err == nil {
		s.Review = len(items)
	}
	if old.Backlog == s.Backlog && old.Review == s.Review && sameStamps(old.Skipped, s.Skipped) {
		// Unchanged: only mark it as just verified (see CachedBacklog).
		_ = os.Chtimes(e.StatusPath(), began, began)
		return old, nil
	}
	if _, err := os.Stat(e.Store); err != nil && skipped == nil {
		return s, nil // no store yet, and nothing worth creating it for
	}
	s.UpdatedAt = e.now().UTC().Format(time.RFC3339)
	unlock, err := Lock(e.Store)
	if err != nil {
		return s, err
	}
	defer unlock()
	if err := writeJSON(e.StatusPath(), s); err != nil {
		return s, err
	}
	_ = os.Chtimes(e.StatusPath(), began, began)
	return s, nil
}

func sameStamps(a, b []FileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// CachedBacklog returns the backlog from status.json when no silo folder
// changed since it was counted (every silo's memory folder, and the folder
// of silos, is older than status.json), else counts the silos. That costs a
// stat per silo instead of a listing, so the status line and the nudge stay
// cheap with hundreds of silos, and are never stale.
func CachedBacklog(ctx context.Context, e Env) (Backlog, bool, error) {
	if statusFresh(e) {
		return ReadStatus(e).Backlog, true, nil
	}
	b, err := CountBacklog(ctx, e)
	return b, false, err
}

// statusFresh tells whether status.json is newer than every silo folder.
func statusFresh(e Env) bool {
	fi, err := os.Stat(e.StatusPath())
	return err == nil && silosOlderThan(e, fi.ModTime())
}

func silosOlderThan(e Env, t time.Time) bool {
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
