// Package records holds a project's structured memories:
// categorised JSON records in the repository, changed only through a
// validating write pipeline with optimistic concurrency, anti-resurrection,
// merge rules, a rolling window of session summaries and a grace period
// before retired records go; and the instruction a triage block gives the
// model to save one.
package records

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/triage"
)

// Records are kept as JSON in <repo>/.claude/memory/records/<category>/<id>.json.

// Categories are the categories, in display order (triage's).
var Categories = triage.Categories

// Record lifecycle states.
const (
	StatusActive   = "active"
	StatusRetired  = "retired"
	StatusArchived = "archived"
)

// Pipeline limits.
const (
	SchemaVersion     = "1.0"
	maxTags           = 12
	maxChanges        = 50
	maxTitle          = 120
	resurrectionGuard = 24 * time.Hour
	// SessionWindow is how many session summaries stay active.
	SessionWindow = 5
)

// Record is one structured memory.
type Record struct {
	SchemaVersion  string         `json:"schema_version"`
	Category       string         `json:"category"`
	ID             string         `json:"id"`
	Title          string         `json:"title"`
	CreatedAt      string         `json:"created_at"`
	UpdatedAt      string         `json:"updated_at"`
	Tags           []string       `json:"tags"`
	RelatedFiles   []string       `json:"related_files"`
	Confidence     float64        `json:"confidence"`
	RecordStatus   string         `json:"record_status"`
	Changes        []RecordChange `json:"changes"`
	TimesUpdated   int            `json:"times_updated"`
	RetiredAt      string         `json:"retired_at,omitempty"`
	RetiredReason  string         `json:"retired_reason,omitempty"`
	ArchivedAt     string         `json:"archived_at,omitempty"`
	ArchivedReason string         `json:"archived_reason,omitempty"`
	Content        map[string]any `json:"content"`
}

// RecordChange is one entry of a record's history.
type RecordChange struct {
	Date     string `json:"date"`
	Summary  string `json:"summary"`
	Field    string `json:"field,omitempty"`
	OldValue any    `json:"old_value,omitempty"`
	NewValue any    `json:"new_value,omitempty"`
}

// Dir is where a project's records live.
func Dir(root string) string { return filepath.Join(store.RepoMemoryDir(root), "records") }

// CheckRef refuses a record reference that is not a known category and a
// slug id: nothing named by a user or a model may reach outside records/
// ("decision/../../x").
func CheckRef(category, id string) error {
	if !slices.Contains(Categories, category) {
		return refuse(ErrInvalid, "unknown category %q (one of %s)", category, strings.Join(Categories, ", "))
	}
	if !store.ValidID(id, 80, true) {
		return refuse(ErrInvalid, "id %q must be a slug: lowercase letters, digits and dashes, at most 80", id)
	}
	return nil
}

// Read reads one record of the store, by reference.
func (s *Store) Read(category, id string) (File, error) {
	if err := CheckRef(category, id); err != nil {
		return File{}, err
	}
	return Read(s.Root, Path(s.Root, category, id)), nil
}

// Path is the file of one record.
func Path(root, category, id string) string {
	return filepath.Join(Dir(root), category, id+".json")
}

// Hash is the optimistic-concurrency token of a record file: the
// first 16 hex digits of its SHA-256.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// File is a record as read from disk.
type File struct {
	Path   string  `json:"path"`
	Hash   string  `json:"hash"`
	Record *Record `json:"record,omitempty"`
	// Retired, on a session summary just created, are the summaries the
	// rolling window retired to make room for it (CATEGORY/ID, title).
	Retired []RetiredRef `json:"retired,omitempty"`
	// Err is set for a file that cannot be read or is not a valid record.
	Err error `json:"-"`
}

// MarshalJSON adds Err as "error", a string.
func (f File) MarshalJSON() ([]byte, error) {
	type plain File
	out := struct {
		plain
		Error string `json:"error,omitempty"`
	}{plain: plain(f)}
	if f.Err != nil {
		out.Error = f.Err.Error()
	}
	return json.Marshal(out)
}

// ErrNotRecord is a file that does not decode as a record.
var ErrNotRecord = errors.New("not a record")

// Read reads and validates one record file of the project rooted at root
// (a repository's file: no symlink is followed).
func Read(root, path string) File {
	rf := File{Path: path}
	data, err := store.ReadFileIn(root, path, 4<<20)
	if err != nil {
		rf.Err = err
		return rf
	}
	rf.Hash = Hash(data)
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		rf.Err = fmt.Errorf("%w: %v", ErrNotRecord, err)
		return rf
	}
	rf.Record = &r
	if err := r.Validate(); err != nil {
		rf.Err = err
	}
	return rf
}

// List reads every record of a project, by category then id; invalid
// files are returned with Err set, never fatal.
func List(root string) []File {
	var out []File
	// Most repositories have no records: one check, not one per category.
	if err := store.CheckIn(root, Dir(root)); err == nil {
		if _, err := os.Lstat(Dir(root)); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	for _, cat := range Categories {
		dir := filepath.Join(Dir(root), cat)
		ents, err := store.ReadDirIn(root, dir)
		if errors.Is(err, store.ErrSymlink) {
			out = append(out, File{Path: dir, Err: err})
			continue
		}
		if err != nil {
			continue
		}
		for _, de := range ents {
			if !strings.HasSuffix(de.Name(), ".json") || strings.HasPrefix(de.Name(), ".") {
				continue
			}
			out = append(out, Read(root, filepath.Join(dir, de.Name())))
		}
	}
	return out
}

// Store carries out record writes for one project, under the project's
// lock in the store (nothing but records lands in the repo).
type Store struct {
	Env  store.Env
	Root string
	Key  string
	// Policy is the project's records settings (config records).
	Policy config.Records
}

// Open returns the record store of the project dir belongs to.
// A kill between a record's write and the index's leaves index.md stale,
// and a kill inside a write leaves its temporary file; Open rebuilds the
// one and removes the other (once old), so every record command (a
// refused one too) heals them.
func Open(e store.Env, dir string) (*Store, error) {
	p, err := store.ResolveProject(e, dir)
	if err != nil {
		return nil, err
	}
	s := &Store{Env: e, Root: p.Root, Key: p.Key, Policy: config.Default().Records}
	if _, err := os.Stat(Dir(s.Root)); err == nil {
		unlock, err := s.lock()
		if err != nil {
			return nil, err
		}
		defer unlock()
		store.Tidy(Dir(s.Root), "index.md")
		if err := s.writeIndex(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Store) lock() (func(), error) {
	return store.Lock(s.Env.ProjectDir(s.Key))
}

func (s *Store) stamp() string { return s.Env.Time().UTC().Format(time.RFC3339) }

// write validates and writes a record atomically, then refreshes index.md.
func (s *Store) write(r *Record) (File, error) {
	if err := r.Validate(); err != nil {
		return File{}, err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return File{}, err
	}
	data = append(data, '\n')
	path := Path(s.Root, r.Category, r.ID)
	store.Tidy(filepath.Dir(path))
	store.Tidy(Dir(s.Root), "index.md")
	// Committed with the repository, like MEMORY.md.
	if err := store.WriteFileIn(s.Root, path, data); err != nil {
		return File{}, err
	}
	return File{Path: path, Hash: Hash(data), Record: r}, s.writeIndex()
}

// Create adds a new active record. The input needs a category, a title
// (the id defaults to its slug), tags and content; the pipeline fills the
// rest. A retired record's id cannot be re-created within 24 hours.
func (s *Store) Create(in *Record) (File, error) {
	unlock, err := s.lock()
	if err != nil {
		return File{}, err
	}
	defer unlock()
	r := *in
	redactRecord(&r)
	if r.ID == "" {
		r.ID = store.Slugify(r.Title)
	}
	if _, ok := contentSpecs[r.Category]; !ok {
		return File{}, refuse(ErrInvalid, "unknown category %q (one of %s)", r.Category, strings.Join(Categories, ", "))
	}
	if !s.Policy.On(r.Category) {
		return File{}, refuse(ErrDisabled, "the %s category is turned off in this project's config (records.categories.%s.enabled)", r.Category, r.Category)
	}
	if n := s.active(r.Category); n >= s.Policy.MaxPerCategory && r.Category != "session_summary" {
		return File{}, refuse(ErrCap, "%s already has %d active records, the most records.max_per_category allows", r.Category, n)
	}
	if store.ValidID(r.ID, 80, true) {
		if old := Read(s.Root, Path(s.Root, r.Category, r.ID)); old.Record != nil || !errors.Is(old.Err, fs.ErrNotExist) {
			if old.Record != nil && old.Record.RecordStatus == StatusRetired {
				if t, err := time.Parse(time.RFC3339, old.Record.RetiredAt); err == nil && s.Env.Time().Sub(t) < resurrectionGuard {
					return File{}, refuse(ErrResurrection, "%s/%s was retired at %s; it cannot be re-created within 24 hours (restore it, or use another id)", r.Category, r.ID, old.Record.RetiredAt)
				}
			} else {
				return File{}, refuse(ErrExists, "%s/%s already exists (hash %s); update it instead", r.Category, r.ID, old.Hash)
			}
		}
	}
	now := s.stamp()
	r.SchemaVersion = SchemaVersion
	r.CreatedAt, r.UpdatedAt = now, now
	r.RecordStatus = StatusActive
	r.RetiredAt, r.RetiredReason, r.ArchivedAt, r.ArchivedReason = "", "", "", ""
	r.TimesUpdated = 0
	if r.Confidence == 0 {
		r.Confidence = 0.8
	}
	r.Tags = dedupe(r.Tags)
	if len(r.Tags) > maxTags {
		r.Tags = r.Tags[:maxTags]
	}
	if r.RelatedFiles == nil {
		r.RelatedFiles = []string{}
	}
	r.Changes = []RecordChange{{Date: now, Summary: "created"}}
	rf, err := s.write(&r)
	if err != nil {
		return rf, err
	}
	if r.Category == "session_summary" {
		retired, err := s.rollSessions()
		rf.Retired = retired
		if err != nil {
			return rf, err
		}
	}
	return rf, nil
}

// RetiredRef names a record retired in passing.
type RetiredRef struct {
	Ref   string `json:"ref"` // CATEGORY/ID
	Title string `json:"title"`
}

// Update merges in into the record it names, if the file still has the
// hash the caller read (optimistic concurrency). Merge rules: created_at,
// category and schema_version never change, nor record_status (use
// retire/archive/restore); tags only grow, by at most 4 an update (oldest
// evicted past 12, and only to make room for new ones); related_files only grow, except paths that no
// longer exist may go; changes are append-only, at least one new entry per
// update, capped at 50 (oldest dropped).
func (s *Store) Update(category, id, hash string, in *Record) (File, error) {
	unlock, err := s.lock()
	if err != nil {
		return File{}, err
	}
	defer unlock()
	cur, err := s.current(category, id, hash)
	if err != nil {
		return File{}, err
	}
	old := cur.Record
	red := *in
	in = &red
	redactRecord(in)
	switch {
	case in.CreatedAt != "" && in.CreatedAt != old.CreatedAt:
		return File{}, refuse(ErrImmutable, "created_at cannot change")
	case in.Category != "" && in.Category != old.Category:
		return File{}, refuse(ErrImmutable, "category cannot change")
	case in.SchemaVersion != "" && in.SchemaVersion != old.SchemaVersion:
		return File{}, refuse(ErrImmutable, "schema_version cannot change")
	case in.RecordStatus != "" && in.RecordStatus != old.RecordStatus:
		return File{}, refuse(ErrImmutable, "record_status changes only through retire, archive and restore")
	case in.ID != "" && in.ID != old.ID:
		return File{}, refuse(ErrImmutable, "id cannot change")
	}
	newChanges := newEntries(old.Changes, in.Changes)
	if len(newChanges) == 0 {
		return File{}, refuse(ErrInvalid, "an update needs at least one new entry in changes (a date and a summary)")
	}
	r := *old
	if in.Title != "" {
		r.Title = in.Title
	}
	if in.Confidence != 0 {
		r.Confidence = in.Confidence
	}
	if in.Content != nil {
		r.Content = in.Content
	}
	r.Tags = mergeTags(old.Tags, in.Tags)
	r.RelatedFiles = mergeFiles(s.Root, old.RelatedFiles, in.RelatedFiles)
	now := s.stamp()
	for i := range newChanges {
		if newChanges[i].Date == "" {
			newChanges[i].Date = now
		}
	}
	r.Changes = appendChanges(old.Changes, newChanges...)
	r.TimesUpdated = old.TimesUpdated + 1
	r.UpdatedAt = now
	return s.write(&r)
}

// current reads the record to change, checking its hash when one is given.
func (s *Store) current(category, id, hash string) (File, error) {
	if err := CheckRef(category, id); err != nil {
		return File{}, err
	}
	path := Path(s.Root, category, id)
	cur := Read(s.Root, path)
	if cur.Record == nil {
		if errors.Is(cur.Err, fs.ErrNotExist) {
			return cur, refuse(ErrNotFound, "no record %s/%s", category, id)
		}
		return cur, refuse(ErrInvalid, "%s: %v", path, cur.Err)
	}
	if hash != "" && hash != cur.Hash {
		return cur, refuse(ErrConflict, "%s/%s changed since it was read (hash %s, not %s): read it again and retry", category, id, cur.Hash, hash)
	}
	return cur, nil
}

// SetStatus retires, archives or restores a record.
func (s *Store) SetStatus(category, id, status, reason string) (File, error) {
	unlock, err := s.lock()
	if err != nil {
		return File{}, err
	}
	defer unlock()
	cur, err := s.current(category, id, "")
	if err != nil {
		return File{}, err
	}
	r := *cur.Record
	now := s.stamp()
	switch status {
	case StatusRetired:
		r.RetiredAt, r.RetiredReason = now, reason
	case StatusArchived:
		r.ArchivedAt, r.ArchivedReason = now, reason
	case StatusActive:
		r.RetiredAt, r.RetiredReason, r.ArchivedAt, r.ArchivedReason = "", "", "", ""
	}
	if r.RecordStatus == status {
		return cur, nil
	}
	summary := map[string]string{StatusRetired: "retired", StatusArchived: "archived", StatusActive: "restored"}[status]
	if reason != "" {
		summary += ": " + reason
	}
	r.Changes = appendChanges(r.Changes, RecordChange{Date: now, Summary: summary, Field: "record_status", OldValue: r.RecordStatus, NewValue: status})
	r.RecordStatus = status
	r.UpdatedAt = now
	return s.write(&r)
}
