package learn

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// ReviewItem is one feedback memory awaiting a person's decision.
type ReviewItem struct {
	File        string `json:"file"` // name in review/feedback, without .md
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Path        string `json:"path"`
	// Current is the accepted entry of the same name, if there is one.
	Current string `json:"current,omitempty"`
	// SourceCwd is the folder the memory came from (its frontmatter's
	// word: where it applies, never who wrote it); Origin is who wrote it
	// as this machine's ledger says (see OriginOf): OriginFriction,
	// OriginClaudeCode, OriginMachine or OriginUnknown.
	SourceCwd string `json:"source_cwd,omitempty"`
	Origin    string `json:"origin,omitempty"`
}

// Who wrote a review item, as this machine saw it (a file's own
// "origin:" says nothing: a remote or the model can write it).
const (
	// OriginFriction is a rule ccmem drew here from a project's friction:
	// nothing ccmem inferred is shown to a session before a person
	// accepts it.
	OriginFriction = "friction"
	// OriginClaudeCode is a correction Claude Code saved as feedback
	// memory on this machine, curated here by learn.
	OriginClaudeCode = "claude-code"
	// OriginMachine came from another machine through sync.
	OriginMachine = "machine"
	// OriginUnknown is a file nothing on this machine accounts for.
	OriginUnknown = "unknown"
)

// reviewOrigin is the Origin of a review item of this origin.
func reviewOrigin(o provenance.Origin) string {
	switch o.By {
	case provenance.Derived:
		return OriginFriction
	case provenance.Curated:
		return OriginClaudeCode
	case provenance.Machine:
		return OriginMachine
	}
	return OriginUnknown
}

// ShownWhilePending tells whether a pending item reaches the sessions of
// the project here before anyone decides on it: a correction the person
// gave (Claude Code's feedback memory, curated on this machine) does, only
// in the project it came from (where the client itself would show it), and
// only while no accepted version of it is shown instead; a rule ccmem
// inferred, another machine's item or one nothing accounts for never
// does.
func (it ReviewItem) ShownWhilePending(here store.Here) bool {
	return it.Origin == OriginClaudeCode && it.Current == "" && it.SourceCwd != "" && here.Holds(it.SourceCwd, "")
}

// Pending lists feedback awaiting review, by file name.
func Pending(e store.Env) ([]ReviewItem, error) {
	ents, err := os.ReadDir(e.ReviewDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []ReviewItem
	var ledger provenance.Ledger
	for _, de := range ents {
		n := de.Name()
		if !isReviewFile(de) {
			continue
		}
		if ledger.Entries == nil {
			ledger = provenance.Load(e)
		}
		it := ReviewItem{File: strings.TrimSuffix(n, ".md"), Path: filepath.Join(e.ReviewDir(), n), Origin: OriginUnknown}
		it.Name = it.File
		if data, err := store.ReadSmallFile(it.Path, 1<<20); err == nil {
			if m, _, err := frontmatter.Read(data); err == nil {
				if m.Name != "" {
					it.Name = textfmt.OneLine(m.Name)
				}
				it.Description = textfmt.OneLine(m.Description)
				_, it.SourceCwd = ScopeOf(m)
			}
			it.Origin = reviewOrigin(ledger.File(it.Path, provenance.Digest(data)))
		}
		cur := filepath.Join(e.LearnedDir(), "feedback", n)
		if _, err := os.Stat(cur); err == nil {
			it.Current = cur
		}
		out = append(out, it)
	}
	return out, nil
}

// DropUnchanged takes out of review the items that say exactly what their
// accepted entry says (provenance aside: where and when they came from) —
// a memory learned again, nothing changed — and returns the rest and
// those it dropped. Nothing is lost: the accepted entry is the same.
func DropUnchanged(e store.Env, items []ReviewItem) (rest, dropped []ReviewItem, err error) {
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return items, nil, err
	}
	defer unlock()
	for _, it := range items {
		if it.Current != "" {
			pending, err1 := store.ReadSmallFile(it.Path, 1<<20)
			current, err2 := store.ReadSmallFile(it.Current, 1<<20)
			if err1 == nil && err2 == nil && bytes.Equal(ReviewText(pending), ReviewText(current)) {
				if err := os.Remove(it.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return rest, dropped, err
				}
				dropped = append(dropped, it)
				continue
			}
		}
		rest = append(rest, it)
	}
	return rest, dropped, nil
}

// ReviewView is a pending memory as a person reads it: no frontmatter, no
// escapes. Lines are what it says (its description when the body does not
// say it, then its body, "" between paragraphs), in their Markdown; Applies says where it applies as it is, once
// accepted and while it waits; Confidence, Faded and Evidence are a rule's
// drawn from friction, as plain text (commands in `code spans`).
type ReviewView struct {
	Lines      []string `json:"lines"`
	Applies    string   `json:"applies"`
	Confidence string   `json:"confidence,omitempty"`
	Faded      string   `json:"faded,omitempty"`
	Evidence   []string `json:"evidence,omitempty"`
}

// ReviewViewOf reads a pending memory's file as a ReviewView; ok is false for a file
// that has no frontmatter.
func ReviewViewOf(e store.Env, data []byte) (ReviewView, bool) {
	m, body, err := frontmatter.Read(data)
	if err != nil {
		return ReviewView{}, false
	}
	var v ReviewView
	if d := textfmt.OneLine(m.Description); d != "" && !strings.Contains(string(body), strings.TrimSpace(m.Description)) {
		v.Lines = append(v.Lines, d, "")
	}
	for _, l := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		v.Lines = append(v.Lines, textfmt.Line(strings.TrimRight(l, " \t")))
	}
	for len(v.Lines) > 0 && v.Lines[len(v.Lines)-1] == "" {
		v.Lines = v.Lines[:len(v.Lines)-1]
	}
	scope, cwd := ScopeOf(m)
	origin, _ := m.Fields["origin"].(string)
	switch {
	case scope == ScopeProject:
		v.Applies = e.Tilde(cwd) + " only, once accepted (not shown to any session while it waits)"
	case origin == OriginFriction:
		v.Applies = "every project, once accepted (not shown to any session while it waits)"
	case cwd != "":
		v.Applies = "every project, once accepted (while it waits, the sessions of " + e.Tilde(cwd) + ")"
	default:
		v.Applies = "every project, once accepted"
	}
	if conf, _ := m.Fields["confidence"].(string); conf != "" {
		v.Confidence = fmt.Sprintf("%s (seen in %v sessions)", conf, m.Fields["seen_in_sessions"])
	}
	if f, _ := m.Fields["faded"].(string); f != "" {
		v.Faded = textfmt.Line(f)
	}
	if ev, ok := m.Fields["evidence"].([]any); ok {
		for _, x := range ev {
			v.Evidence = append(v.Evidence, textfmt.Line(fmt.Sprint(x)))
		}
	}
	return v, true
}

// Find finds a pending item by file name or frontmatter name.
func Find(items []ReviewItem, name string) (ReviewItem, bool) {
	for _, it := range items {
		if it.File == name || it.Name == name || it.File == store.SafeFileName(name) {
			return it, true
		}
	}
	return ReviewItem{}, false
}

// tidyStore removes leftovers of interrupted writes in the store folders
// learn writes.
func tidyStore(e store.Env) {
	store.Tidy(e.Store)
	store.Tidy(e.LearnedDir())
	for _, t := range Types {
		store.Tidy(filepath.Join(e.LearnedDir(), t))
	}
	store.Tidy(e.ReviewDir())
	for _, t := range Types {
		store.Tidy(filepath.Join(e.ArchiveDir(), t))
	}
}

// Decided finds a decision already made about the feedback named name:
// the accepted entry in learned/feedback/, or its rejected copy in
// archive/feedback/ ("" for none). A decision re-run after a crash finds
// it done instead of failing.
func Decided(e store.Env, name string) (accepted, rejected string) {
	file := store.SafeFileName(name)
	if p := filepath.Join(e.LearnedDir(), "feedback", file+".md"); isFile(p) {
		accepted = p
	}
	olds, _ := filepath.Glob(filepath.Join(e.ArchiveDir(), "feedback", globEscape(file)+".*.md"))
	for _, o := range olds {
		data, err := store.ReadSmallFile(o, 1<<20)
		if err != nil {
			continue
		}
		if m, _, err := frontmatter.Read(data); err == nil {
			if r, _ := m.Fields["archived_reason"].(string); strings.HasPrefix(r, "rejected in review") {
				rejected = o
			}
		}
	}
	return accepted, rejected
}

func isFile(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

func globEscape(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}

// Accept makes a pending feedback memory canonical, the person's: an
// accepted entry of the same name it replaces is archived first, and the
// ledger attests the entry as the person accepted it, through via ("cli",
// "ui"). Only a person's own channel calls it: the model never accepts.
func Accept(e store.Env, it ReviewItem, via string) (string, error) {
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return "", err
	}
	defer unlock()
	tidyStore(e)
	dest := storeNames{}.find(filepath.Join(e.LearnedDir(), "feedback", it.File+".md"))
	if _, err := os.Stat(dest); err == nil {
		if _, err := archiveEntry(e, dest, "replaced by a reviewed version"); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return "", err
	}
	// Stamped with when it was accepted: from then on `ccmem friction`
	// measures it.
	if data, err := store.ReadSmallFile(it.Path, 1<<20); err == nil {
		if front, body, err := frontmatter.Split(data); err == nil {
			front = stripKey(stripKey(front, "accepted_at"), "faded")
			out := "---\n" + string(front) + "accepted_at: " + strconv.Quote(e.Time().UTC().Format(time.RFC3339)) + "\n---\n" + string(body)
			if err := store.WriteFileAtomic(it.Path, []byte(out)); err != nil {
				return "", err
			}
		}
	}
	// Attested before it is in place: a kill between leaves an
	// attestation of a file that is not there yet (nothing holds).
	data, err := store.ReadSmallFile(it.Path, 1<<20)
	if err != nil {
		return "", err
	}
	if err := provenance.AttestFile(e, via, dest, provenance.Digest(data)); err != nil {
		return "", err
	}
	if err := os.Rename(it.Path, dest); err != nil {
		return "", err
	}
	_ = provenance.Revoke(e, "", nil, it.Path)
	return dest, store.SyncDir(filepath.Dir(dest))
}

// Widen makes the learned entry at path apply in every project: its
// scope to the project it came from is dropped (a person's decision, for a
// rule drawn from one project's friction that holds everywhere). An entry
// the person accepted stays theirs.
func Widen(e store.Env, path string) error {
	return editFront(e, path, func(front []byte) []byte {
		var kept []string
		for _, l := range strings.SplitAfter(string(front), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "scope:"); !ok || strings.Trim(strings.TrimSpace(v), `"'`) != ScopeProject {
				kept = append(kept, l)
			}
		}
		return []byte(strings.Join(kept, ""))
	})
}

// SetAdvisory marks the learned entry at path advisory (on) or not: an
// advisory rule is given to the model before a call it bears on, and
// never holds the call (see guard.Rule.Advisory).
func SetAdvisory(e store.Env, path string, on bool) error {
	return editFront(e, path, func(front []byte) []byte {
		front = stripKey(front, "advisory")
		if on {
			front = append(front, "advisory: true\n"...)
		}
		return front
	})
}

// editFront changes a learned entry's frontmatter under the store's lock,
// its body kept; an edit that changes nothing writes nothing. An entry the
// person accepted (the ledger attests it) stays theirs after the edit; any
// other stays unconfirmed.
func editFront(e store.Env, path string, edit func(front []byte) []byte) error {
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := store.ReadSmallFile(path, 1<<20)
	if err != nil {
		return err
	}
	front, body, err := frontmatter.Split(data)
	if err != nil {
		return err
	}
	out := "---\n" + string(edit(front)) + "---\n" + string(body)
	if out == string(data) {
		return nil
	}
	was := provenance.Load(e).File(path, provenance.Digest(data))
	if was.Standing() {
		// Attested first: a kill between leaves the old text
		// unattested (it holds nothing), never a change nobody made.
		if err := provenance.AttestFile(e, was.Via, path, provenance.Digest([]byte(out))); err != nil {
			return err
		}
	}
	return store.WriteFileAtomic(path, []byte(out))
}

// Reject moves a pending feedback memory to the archive, recording
// why.
func Reject(e store.Env, it ReviewItem, reason string) (string, error) {
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return "", err
	}
	defer unlock()
	tidyStore(e)
	if reason == "" {
		reason = "rejected in review"
	} else {
		reason = "rejected in review: " + reason
	}
	return archiveEntry(e, it.Path, reason)
}

// ErrNoEntry is returned when no learned entry has the name given.
var ErrNoEntry = errors.New("no learned entry")

// EntryPath is the file of the learned entry TYPE/NAME (the name in any
// case), or ErrNoEntry.
func EntryPath(e store.Env, typ, name string) (string, error) {
	if !slices.Contains(Types, typ) {
		return "", fmt.Errorf("unknown type %q (one of %s)", typ, strings.Join(Types, ", "))
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\:`) {
		return "", fmt.Errorf("%w named %q", ErrNoEntry, name)
	}
	path := storeNames{}.find(filepath.Join(e.LearnedDir(), typ, name+".md"))
	if !isFile(path) {
		return "", fmt.Errorf("%w %s/%s in %s", ErrNoEntry, typ, name, e.Tilde(e.LearnedDir()))
	}
	return path, nil
}

// Forget moves the learned entry TYPE/NAME (any case) to the archive with
// the reason in its frontmatter; it is no longer injected or searched.
// Nothing is deleted.
func Forget(e store.Env, typ, name, reason string) (string, error) {
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return "", err
	}
	defer unlock()
	tidyStore(e)
	path, err := EntryPath(e, typ, name)
	if err != nil {
		return "", err
	}
	return archiveEntry(e, path, reason)
}

// archiveEntry moves a store entry to $CCMEM_HOME/archive/<type>/ with an
// archived_reason in its frontmatter, then removes the original.
func archiveEntry(e store.Env, path, reason string) (string, error) {
	data, err := store.ReadSmallFile(path, 1<<20)
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
	stamp := e.Time().UTC().Format("20060102T150405Z")
	dest := filepath.Join(e.ArchiveDir(), filepath.Base(filepath.Dir(path)), strings.TrimSuffix(filepath.Base(path), ".md")+"."+stamp+".md")
	if err := store.WriteFileAtomic(dest, data); err != nil {
		return "", err
	}
	if err := os.Remove(path); err != nil {
		return "", err
	}
	// Forgotten: what the ledger said of it goes (the same text back
	// there later is nobody's word until someone says so).
	_ = provenance.Revoke(e, "", nil, path)
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

// ReviewText is an entry as a person reviews it: its frontmatter without
// ccmem's provenance (paths, times, sources differ between any two copies
// and say nothing about the memory), then its body. A file without
// frontmatter is itself.
func ReviewText(data []byte) []byte {
	front, body, err := frontmatter.Split(data)
	if err != nil {
		return data
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(stripProvenance(front))
	b.WriteString("---\n")
	b.Write(body)
	return b.Bytes()
}

// isReviewFile tells a feedback file awaiting review from anything else in
// the review folder.
func isReviewFile(de fs.DirEntry) bool {
	n := de.Name()
	return de.Type().IsRegular() && strings.HasSuffix(n, ".md") && !strings.HasPrefix(n, ".")
}

// countPending is len(Pending(e)) from a listing alone: the status cache
// needs the count, not the names, on every session start.
func countPending(e store.Env) (int, error) {
	ents, err := os.ReadDir(e.ReviewDir())
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	n := 0
	for _, de := range ents {
		if isReviewFile(de) {
			n++
		}
	}
	return n, err
}

// The person is told, in one line of the start-up block, when something
// new waits for them; once they have looked, the line goes until
// something else arrives. What they saw is kept in the store's .seen
// (names, one a line; this machine's own, never synced).

func seenPath(e store.Env) string { return filepath.Join(e.Store, ".seen") }

// Seen lists what the person has looked at.
func Seen(e store.Env) map[string]bool {
	seen := map[string]bool{}
	data, err := store.ReadSmallFile(seenPath(e), 1<<20)
	if err != nil {
		return seen
	}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			seen[l] = true
		}
	}
	return seen
}

// FrictionSeen is the key that records that the person looked at a
// project's friction as of its newest episode file: the start-up block
// stops pointing at it until a newer session goes badly.
func FrictionSeen(key, newestEpisode string) string {
	return "friction:" + key + ":" + newestEpisode
}

// BriefingSeen is the key that records that the person looked at a draft
// of a project's briefing as it was written at written (zero: none yet):
// the start-up block stops suggesting one until the briefing changes.
func BriefingSeen(key string, written time.Time) string {
	if written.IsZero() {
		return "briefing:" + key
	}
	return "briefing:" + key + "@" + strconv.FormatInt(written.UnixNano(), 10)
}

// TriageDecided is the key that records the person's decision ("kept" or
// "dismissed") on what triage found in a project (key): by its words, so
// the same words noted again in a later session are decided already; for
// what has no words (a session's work), by its session.
func TriageDecided(key, decision, category, words, sessionID string) string {
	id := "session " + sessionID
	if w := strings.Join(strings.Fields(words), " "); w != "" {
		id = strings.ToLower(w)
	}
	sum := sha256.Sum256([]byte(category + "\x00" + id))
	return "triage-" + decision + ":" + key + ":" + hex.EncodeToString(sum[:8])
}

// MarkSeen records that the person looked at names (review items by
// file, or any other key a nudge uses).
func MarkSeen(e store.Env, names ...string) error {
	seen := Seen(e)
	n := len(seen)
	for _, name := range names {
		seen[name] = true
	}
	if len(seen) == n {
		return nil
	}
	keys := slices.Sorted(maps.Keys(seen))
	if err := os.MkdirAll(e.Store, 0o700); err != nil {
		return err
	}
	return store.WriteFileAtomic(seenPath(e), []byte(strings.Join(keys, "\n")+"\n"))
}
