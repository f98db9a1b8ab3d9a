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
	"github.com/ccmem/ccmem/pkg/lazyregexp"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/redact"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
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

// The rules of the write pipeline; every refused write wraps one of these.
var (
	ErrInvalid      = errors.New("invalid")
	ErrExists       = errors.New("exists")
	ErrNotFound     = errors.New("not found")
	ErrConflict     = errors.New("occ conflict")
	ErrResurrection = errors.New("anti resurrection")
	ErrImmutable    = errors.New("immutable")
	ErrCap          = errors.New("cap")
	ErrDisabled     = errors.New("disabled")
)

// codes are the rules' names (and in --json output).
var codes = map[error]string{
	ErrInvalid: "INVALID", ErrExists: "EXISTS", ErrNotFound: "NOT_FOUND",
	ErrConflict: "OCC_CONFLICT", ErrResurrection: "ANTI_RESURRECTION", ErrImmutable: "IMMUTABLE",
	ErrCap: "CATEGORY_CAP", ErrDisabled: "CATEGORY_DISABLED",
}

// Code is the name of the rule that refused a write ("OCC_CONFLICT" …), or
// "" for another error.
func Code(err error) string {
	for sentinel, code := range codes {
		if errors.Is(err, sentinel) {
			return code
		}
	}
	return ""
}

// refusal is a refused write: its message, and the rule that refused it.
type refusal struct {
	rule error
	msg  string
}

func (r *refusal) Error() string { return r.msg }

// Code is the name of the rule that refused the write.
func (r *refusal) Code() string  { return codes[r.rule] }
func (r *refusal) Unwrap() error { return r.rule }

func refuse(rule error, format string, args ...any) error {
	return &refusal{rule: rule, msg: fmt.Sprintf(format, args...)}
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

// content field kinds for validation.
type fieldKind int

const (
	kString fieldKind = iota
	kStrings
	kBool
	kAlternatives
	kExamples
)

type fieldSpec struct {
	kind     fieldKind
	required bool
	enum     []string
}

var contentSpecs = map[string]map[string]fieldSpec{
	"session_summary": {
		"goal":      {kind: kString, required: true},
		"outcome":   {kind: kString, required: true, enum: []string{"success", "partial", "blocked", "abandoned"}},
		"completed": {kind: kStrings}, "in_progress": {kind: kStrings}, "blockers": {kind: kStrings},
		"next_actions": {kind: kStrings}, "key_changes": {kind: kStrings},
	},
	"decision": {
		"status":       {kind: kString, required: true, enum: []string{"proposed", "accepted", "deprecated", "superseded"}},
		"context":      {kind: kString},
		"decision":     {kind: kString, required: true},
		"alternatives": {kind: kAlternatives},
		"rationale":    {kind: kStrings, required: true},
		"consequences": {kind: kStrings},
	},
	"runbook": {
		"trigger": {kind: kString, required: true}, "symptoms": {kind: kStrings}, "steps": {kind: kStrings, required: true},
		"verification": {kind: kString}, "root_cause": {kind: kString}, "environment": {kind: kString},
	},
	"constraint": {
		"kind":   {kind: kString, required: true, enum: []string{"limitation", "gap", "policy", "technical"}},
		"rule":   {kind: kString, required: true},
		"impact": {kind: kStrings}, "workarounds": {kind: kStrings},
		"severity": {kind: kString, required: true, enum: []string{"high", "medium", "low"}},
		"active":   {kind: kBool}, "expires": {kind: kString},
	},
	"tech_debt": {
		"status":          {kind: kString, required: true, enum: []string{"open", "in_progress", "resolved", "wont_fix"}},
		"priority":        {kind: kString, required: true, enum: []string{"critical", "high", "medium", "low"}},
		"description":     {kind: kString, required: true},
		"reason_deferred": {kind: kString},
		"impact":          {kind: kStrings}, "suggested_fix": {kind: kStrings}, "acceptance_criteria": {kind: kStrings},
	},
	"preference": {
		"topic":    {kind: kString, required: true},
		"value":    {kind: kString, required: true},
		"reason":   {kind: kString},
		"strength": {kind: kString, required: true, enum: []string{"strong", "default", "soft"}},
		"examples": {kind: kExamples},
	},
}

// ContentFields lists a category's content fields, required ones marked,
// for help text and triage instructions.
func ContentFields(category string) string {
	spec := contentSpecs[category]
	var names []string
	for k, f := range spec {
		n := k
		if f.required {
			n += "*"
		}
		if len(f.enum) > 0 {
			n += " (" + strings.Join(f.enum, "|") + ")"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Validate checks a record against the common rules and its category's.
func (r *Record) Validate() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	spec, ok := contentSpecs[r.Category]
	if !ok {
		return refuse(ErrInvalid, "unknown category %q (one of %s)", r.Category, strings.Join(Categories, ", "))
	}
	if r.SchemaVersion != SchemaVersion {
		bad("schema_version must be %q", SchemaVersion)
	}
	if !store.ValidID(r.ID, 80, true) {
		bad("id %q must be a slug: lowercase letters, digits and dashes, at most 80", r.ID)
	}
	if t := strings.TrimSpace(r.Title); t == "" || len([]rune(t)) > maxTitle || strings.ContainsAny(r.Title, "\n\r") {
		bad("title must be one line of 1 to %d characters", maxTitle)
	}
	for name, v := range map[string]string{"created_at": r.CreatedAt, "updated_at": r.UpdatedAt} {
		if _, err := time.Parse(time.RFC3339, v); err != nil {
			bad("%s must be an ISO 8601 UTC time", name)
		}
	}
	if len(r.Tags) < 1 || len(r.Tags) > maxTags {
		bad("tags must hold 1 to %d tags", maxTags)
	}
	for _, t := range r.Tags {
		if strings.TrimSpace(t) == "" || len(t) > 40 {
			bad("tag %q must be 1 to 40 characters", t)
		}
	}
	if r.Confidence < 0 || r.Confidence > 1 {
		bad("confidence must be between 0 and 1")
	}
	switch r.RecordStatus {
	case StatusActive, StatusRetired, StatusArchived:
	default:
		bad("record_status must be active, retired or archived")
	}
	if len(r.Changes) > maxChanges {
		bad("changes holds at most %d entries", maxChanges)
	}
	for _, c := range r.Changes {
		if c.Date == "" || strings.TrimSpace(c.Summary) == "" {
			bad("every change needs a date and a summary")
			break
		}
	}
	if r.TimesUpdated < 0 {
		bad("times_updated must not be negative")
	}
	if r.Content == nil {
		bad("content is missing")
	}
	for k, f := range spec {
		v, present := r.Content[k]
		if !present {
			if f.required {
				bad("content.%s is required for a %s", k, r.Category)
			}
			continue
		}
		if msg := checkField(v, f); msg != "" {
			bad("content.%s %s", k, msg)
		}
	}
	for k := range r.Content {
		if _, ok := spec[k]; !ok {
			bad("content.%s is not a %s field (fields: %s)", k, r.Category, ContentFields(r.Category))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return refuse(ErrInvalid, "invalid %s record %q: %s", r.Category, r.ID, strings.Join(problems, "; "))
	}
	return nil
}

func checkField(v any, f fieldSpec) string {
	strs := func(v any) bool {
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, x := range l {
			if _, ok := x.(string); !ok {
				return false
			}
		}
		return true
	}
	switch f.kind {
	case kString:
		s, ok := v.(string)
		if !ok {
			return "must be a string"
		}
		if f.required && strings.TrimSpace(s) == "" {
			return "must not be empty"
		}
		if len(f.enum) > 0 && !slices.Contains(f.enum, s) {
			return "must be one of " + strings.Join(f.enum, ", ")
		}
	case kStrings:
		if !strs(v) {
			return "must be a list of strings"
		}
		if f.required && len(v.([]any)) == 0 {
			return "must not be empty"
		}
	case kBool:
		if _, ok := v.(bool); !ok {
			return "must be true or false"
		}
	case kAlternatives:
		l, ok := v.([]any)
		if !ok {
			return "must be a list of {option, rejected_reason}"
		}
		for _, x := range l {
			m, ok := x.(map[string]any)
			if !ok {
				return "must be a list of {option, rejected_reason}"
			}
			if _, ok := m["option"].(string); !ok {
				return "entries need an option"
			}
		}
	case kExamples:
		m, ok := v.(map[string]any)
		if !ok {
			return "must be {prefer: [...], avoid: [...]}"
		}
		for k, x := range m {
			if (k != "prefer" && k != "avoid") || !strs(x) {
				return "must be {prefer: [...], avoid: [...]}"
			}
		}
	}
	return ""
}

// File is a record as read from disk.
type File struct {
	Path   string  `json:"path"`
	Hash   string  `json:"hash"`
	Record *Record `json:"record,omitempty"`
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
		if err := s.rollSessions(); err != nil {
			return rf, err
		}
	}
	return rf, nil
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

// newEntries returns the changes of in that old does not already hold.
func newEntries(old, in []RecordChange) []RecordChange {
	seen := map[string]bool{}
	for _, c := range old {
		seen[c.Date+"\x00"+c.Summary] = true
	}
	var out []RecordChange
	for _, c := range in {
		if strings.TrimSpace(c.Summary) == "" || seen[c.Date+"\x00"+c.Summary] {
			continue
		}
		out = append(out, c)
	}
	return out
}

func appendChanges(old []RecordChange, add ...RecordChange) []RecordChange {
	out := append(append([]RecordChange(nil), old...), add...)
	if len(out) > maxChanges {
		out = out[len(out)-maxChanges:]
	}
	return out
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// maxNewTags is the most tags one update adds: a record's tags are its
// history of what it is about, and one update cannot replace them all.
const maxNewTags = 4

// mergeTags keeps every old tag and adds the first maxNewTags new ones;
// past the cap the oldest tags make room for them.
func mergeTags(old, in []string) []string {
	old = dedupe(old)
	had := map[string]bool{}
	for _, t := range old {
		had[t] = true
	}
	var add []string
	for _, t := range dedupe(in) {
		if !had[t] && len(add) < maxNewTags {
			add = append(add, t)
		}
	}
	out := append(old, add...)
	if len(out) > maxTags {
		out = out[len(out)-maxTags:]
	}
	return out
}

// mergeFiles keeps every old path that still exists or is still named, and
// adds the new ones.
func mergeFiles(root string, old, in []string) []string {
	named := map[string]bool{}
	for _, f := range in {
		named[f] = true
	}
	var keep []string
	for _, f := range old {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		if _, err := os.Stat(p); err == nil || named[f] {
			keep = append(keep, f)
		}
	}
	out := dedupe(append(keep, in...))
	if out == nil {
		out = []string{}
	}
	return out
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

// active counts the active records of a category.
func (s *Store) active(category string) int {
	n := 0
	for _, rf := range List(s.Root) {
		if rf.Record != nil && rf.Err == nil && rf.Record.Category == category && rf.Record.RecordStatus == StatusActive {
			n++
		}
	}
	return n
}

// rollSessions retires the oldest active session summaries beyond the
// window. The caller holds the lock.
func (s *Store) rollSessions() error {
	var active []*Record
	for _, rf := range List(s.Root) {
		if rf.Record != nil && rf.Err == nil && rf.Record.Category == "session_summary" && rf.Record.RecordStatus == StatusActive {
			active = append(active, rf.Record)
		}
	}
	window := s.Policy.MaxRetained
	if window < 1 {
		window = SessionWindow
	}
	if len(active) <= window {
		return nil
	}
	sort.Slice(active, func(i, j int) bool {
		if active[i].CreatedAt != active[j].CreatedAt {
			return active[i].CreatedAt < active[j].CreatedAt
		}
		return active[i].ID < active[j].ID
	})
	now := s.stamp()
	for _, r := range active[:len(active)-window] {
		c := *r
		c.RecordStatus, c.RetiredAt, c.RetiredReason = StatusRetired, now, fmt.Sprintf("session rolling window: more than %d active session summaries", window)
		c.Changes = appendChanges(c.Changes, RecordChange{Date: now, Summary: "retired by the session rolling window", Field: "record_status", OldValue: StatusActive, NewValue: StatusRetired})
		c.UpdatedAt = now
		if _, err := s.write(&c); err != nil {
			return err
		}
	}
	return nil
}

// GCReport says what GC did (or, in a dry run, would do).
type GCReport struct {
	// Purged are retired records past their grace period, deleted.
	Purged []string `json:"purged"`
	// Expired are active records of a category with a retention, not
	// updated for that long: retired now.
	Expired []string `json:"expired"`
}

// GC retires the active records past their category's retention_days,
// then deletes retired records whose grace period (grace_period_days) has
// passed; archived records are never deleted.
func (s *Store) GC(dryRun bool) (GCReport, error) {
	rep := GCReport{Purged: []string{}, Expired: []string{}}
	unlock, err := s.lock()
	if err != nil {
		return rep, err
	}
	defer unlock()
	now := s.Env.Time()
	grace := time.Duration(s.Policy.GracePeriodDays) * 24 * time.Hour
	for _, rf := range List(s.Root) {
		r := rf.Record
		if r == nil || rf.Err != nil {
			continue
		}
		switch r.RecordStatus {
		case StatusActive:
			days := s.Policy.Categories[r.Category].RetentionDays
			t, err := time.Parse(time.RFC3339, r.UpdatedAt)
			if days <= 0 || err != nil || now.Sub(t) < time.Duration(days)*24*time.Hour {
				continue
			}
			rep.Expired = append(rep.Expired, rf.Path)
			if !dryRun {
				c := *r
				stamp := s.stamp()
				reason := fmt.Sprintf("expired: not updated for %d days (records.categories.%s.retention_days)", days, r.Category)
				c.RecordStatus, c.RetiredAt, c.RetiredReason, c.UpdatedAt = StatusRetired, stamp, reason, stamp
				c.Changes = appendChanges(c.Changes, RecordChange{Date: stamp, Summary: "retired: " + reason, Field: "record_status", OldValue: StatusActive, NewValue: StatusRetired})
				if _, err := s.write(&c); err != nil {
					return rep, err
				}
			}
		case StatusRetired:
			t, err := time.Parse(time.RFC3339, r.RetiredAt)
			if err != nil || now.Sub(t) < grace {
				continue
			}
			rep.Purged = append(rep.Purged, rf.Path)
			if !dryRun {
				if err := os.Remove(rf.Path); err != nil {
					return rep, err
				}
			}
		}
	}
	if len(rep.Purged) > 0 && !dryRun {
		return rep, s.writeIndex()
	}
	return rep, nil
}

// IndexPath is the generated list of a project's active records.
func IndexPath(root string) string { return filepath.Join(Dir(root), "index.md") }

// writeIndex regenerates index.md: active records by category, a line
// each, deterministic (no clock).
func (s *Store) writeIndex() error {
	data := []byte(Index(List(s.Root)))
	if old, err := store.ReadFileIn(s.Root, IndexPath(s.Root), 4<<20); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return store.WriteFileIn(s.Root, IndexPath(s.Root), data)
}

// Index renders the index of active records.
func Index(files []File) string {
	var b strings.Builder
	b.WriteString("# Records (generated by ccmem; change them with `ccmem record`)\n")
	for _, cat := range Categories {
		var lines []string
		for _, rf := range files {
			r := rf.Record
			if rf.Err != nil || r == nil || r.Category != cat || r.RecordStatus != StatusActive {
				continue
			}
			lines = append(lines, fmt.Sprintf("- [%s](%s/%s.json) — %s", textfmt.OneLine(r.Title), cat, r.ID, strings.Join(r.Tags, ", ")))
		}
		if len(lines) == 0 {
			continue
		}
		sort.Strings(lines)
		fmt.Fprintf(&b, "\n## %s\n%s\n", cat, strings.Join(lines, "\n"))
	}
	return b.String()
}

// indexLink is how a line of Index links its record.
var indexLink = lazyregexp.New(`\]\(([a-z_]+/[^()/]+\.json)\)`)

// IndexRef is the record a line of Index links to, as a slash path under
// Dir ("" for a line that links none): the one reader of Index's format.
func IndexRef(line string) string {
	if m := indexLink.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// redactRecord replaces the secrets in every string a record holds before
// it is written (records are committed with the repository), and returns
// how many it replaced.
func redactRecord(r *Record) int {
	var c redact.Counter
	r.Tags, r.RelatedFiles, r.Changes = slices.Clone(r.Tags), slices.Clone(r.RelatedFiles), slices.Clone(r.Changes)
	r.Title = c.String(r.Title)
	for i := range r.Tags {
		r.Tags[i] = c.String(r.Tags[i])
	}
	for i := range r.RelatedFiles {
		r.RelatedFiles[i] = c.String(r.RelatedFiles[i])
	}
	for i := range r.Changes {
		ch := &r.Changes[i]
		ch.Summary = c.String(ch.Summary)
		ch.OldValue = redactValue(&c, ch.OldValue)
		ch.NewValue = redactValue(&c, ch.NewValue)
	}
	r.RetiredReason = c.String(r.RetiredReason)
	r.ArchivedReason = c.String(r.ArchivedReason)
	if r.Content != nil {
		r.Content = redactValue(&c, r.Content).(map[string]any)
	}
	return c.N
}

// redactValue redacts the strings of a decoded JSON value, in copies.
func redactValue(c *redact.Counter, v any) any {
	switch t := v.(type) {
	case string:
		return c.String(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = redactValue(c, x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = redactValue(c, x)
		}
		return out
	}
	return v
}

// LinkedBy lists the active records that link to category/id (the
// deletion guard): ones whose title or content names it as CATEGORY/ID,
// by its id, or by its title. Retiring or archiving it leaves them
// pointing at memory no longer injected; the caller warns, naming them.
func (s *Store) LinkedBy(category, id string) []string {
	target := Read(s.Root, Path(s.Root, category, id))
	title := ""
	if target.Record != nil {
		title = strings.ToLower(strings.TrimSpace(target.Record.Title))
	}
	ref := category + "/" + id
	var out []string
	for _, rf := range List(s.Root) {
		r := rf.Record
		if r == nil || rf.Err != nil || r.RecordStatus != StatusActive || r.Category == category && r.ID == id {
			continue
		}
		var parts []string
		collectText(r.Content, &parts)
		text := strings.ToLower(r.Title + "\n" + strings.Join(parts, "\n"))
		if strings.Contains(text, ref) || len(id) >= 6 && containsWord(text, id) || len(title) >= 12 && strings.Contains(text, title) {
			out = append(out, fmt.Sprintf("%s/%s (%s)", r.Category, r.ID, r.Title))
		}
	}
	return out
}

// collectText gathers the strings of a record's content.
func collectText(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			collectText(e, out)
		}
	case map[string]any:
		for _, e := range x {
			collectText(e, out)
		}
	}
}

// containsWord tells whether text holds w not inside a longer slug.
func containsWord(text, w string) bool {
	isSlug := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '_' }
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isSlug(text[j-1])) && (end == len(text) || !isSlug(text[end])) {
			return true
		}
		i = j + 1
	}
}

// ContentText is the text of a record's content, its strings one a line.
func (r *Record) ContentText() string {
	var parts []string
	collectText(r.Content, &parts)
	sort.Strings(parts) // a map's order: the same record, the same text
	return strings.Join(parts, "\n")
}
