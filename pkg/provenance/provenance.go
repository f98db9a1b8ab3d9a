// Package provenance says who wrote each piece of memory — the person, the
// assistant, a repository, another machine, Claude Code's own memory,
// ccmem itself — and what authority that gives it.
//
// Authority is attested, never assumed. A line or an entry is one of the
// user's standing rules (and may hold a command) only when this machine's
// ledger (provenance.json at the store's root, never synced) records that
// the person wrote or accepted that very text through a channel the model
// and a remote cannot drive: ccmem's commands in a terminal, the ui,
// their editor through `ccmem edit`. Everything else is memory framed as
// what it is: the assistant's note, another machine's line, Claude Code's
// saved memory, ccmem's own proposal — or, when the ledger has no word
// for it (a hand edit, a shape it never saw, a ledger it cannot read),
// memory nobody confirmed. A repository's files are the repository's,
// whoever committed them.
//
// A line is known by its canonical form (Canonical): the same words are
// the same line for every reader and writer, whatever its Markdown shape.
// An entry (a learned file) is attested with a digest of what gives it
// authority (its rule, where it applies), so an entry changed by anything
// but the person's own channel loses its attestation.
package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/store"
)

// By is who wrote a piece of memory ("" when nothing says).
type By string

// The writers.
const (
	Unknown    By = ""           // nothing on this machine says: not confirmed
	Person     By = "person"     // the person, attested: ccmem's commands, the ui, ccmem edit
	Assistant  By = "assistant"  // the model, through MCP remember
	Repository By = "repository" // a repository's .claude/memory/, committed by its authors
	Machine    By = "machine"    // another machine, through sync, not confirmed here
	Curated    By = "curated"    // Claude Code's memory folders, curated by learn (the model wrote them)
	Derived    By = "ccmem"      // drawn by ccmem itself (a rule from friction), not accepted
)

// Origin is who wrote a line or a file, how, and in which project.
type Origin struct {
	By By `json:"by"`
	// Via is how it came: for the person "cli", "ui", "edit", "review";
	// else "mcp", "sync", "learn", "friction". "changed" marks an entry
	// whose text changed since the person accepted it.
	Via string `json:"via,omitempty"`
	// Project is the store key of the project it was written in (the
	// assistant's notes stay there until the person accepts them).
	Project string    `json:"project,omitempty"`
	At      time.Time `json:"at,omitzero"`
	// Digest, for an entry the person accepted, is what they accepted
	// (see File).
	Digest string `json:"digest,omitempty"`
}

// Standing tells whether memory of this origin is one of the user's
// standing rules: the person's own words, or what they accepted, as this
// machine's ledger attests. Nothing else is.
func (o Origin) Standing() bool { return o.By == Person }

// Label is the origin in a few plain words, for a reader ("" for the
// person, whose words need none).
func (o Origin) Label() string {
	switch o.By {
	case Person:
		return ""
	case Assistant:
		return "the assistant's note, not confirmed by the user"
	case Repository:
		return "the repository's, committed by its authors"
	case Machine:
		return "synced from another machine, not confirmed here"
	case Curated:
		return "from Claude Code's memory, not reviewed"
	case Derived:
		return "drawn by ccmem from friction, not accepted"
	}
	if o.Via == "changed" {
		return "changed since the user accepted it, not confirmed"
	}
	return "not confirmed by the user"
}

// ShownIn tells whether memory of this origin reaches the sessions of the
// project key: the assistant's notes only the project they were written
// in, until the person accepts them; everything else wherever its file
// applies.
func (o Origin) ShownIn(key string) bool {
	return o.By != Assistant || o.Project == "" || o.Project == key
}

// ledgerName is the ledger's file at the store's root.
const ledgerName = "provenance.json"

// Bounds of the ledger. A ledger that grows past what it may hold takes
// nothing more from anyone but the person (ErrFull: a sync refuses the
// remote's excess, MCP remember refuses the note); one read over maxLedger
// bytes, or that is not the ledger, attests nothing (Err).
const (
	MaxLabels   = 20000 // lines and files someone other than the person wrote
	MaxAttested = 50000 // what the person wrote or accepted
	maxLedger   = 32 << 20
)

// ErrFull is a ledger that takes no more of what others wrote.
var ErrFull = errors.New("the provenance ledger is full")

// Path is the ledger of the store.
func Path(e store.Env) string { return filepath.Join(e.Store, ledgerName) }

// Ledger is this machine's record of who wrote its memory.
type Ledger struct {
	store   string
	Entries map[string]Origin `json:"entries"`
	// Err says why the ledger could not be read (nil: it was, or there is
	// none yet). An unreadable ledger attests nothing: every line of the
	// store reads as not confirmed.
	Err error `json:"-"`
}

// file is the ledger's form on disk.
type file struct {
	Version int               `json:"version"`
	Entries map[string]Origin `json:"entries"`
}

// version is the ledger's format: 2 records the person's attestations
// (version 1, or none, recorded only what others wrote).
const version = 2

// Load reads the ledger: empty when there is none; with Err set, and
// attesting nothing, when it cannot be read.
func Load(e store.Env) Ledger {
	l := Ledger{store: e.Store, Entries: map[string]Origin{}}
	data, err := store.ReadSmallFile(Path(e), maxLedger)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return l
	case err != nil:
		l.Err = err
		return l
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		l.Err = fmt.Errorf("%s: %w", Path(e), err)
		return l
	}
	if f.Version > version {
		l.Err = fmt.Errorf("%s: written by a newer ccmem (format %d)", Path(e), f.Version)
		return l
	}
	for k, o := range f.Entries {
		// A version 1 ledger recorded no attestation: anything there
		// that says "person" did not come from ccmem.
		if o.By == Person && f.Version < 2 {
			continue
		}
		l.Entries[k] = o
	}
	return l
}

// Line is who wrote the line text of the file at path (a repository's
// file is the repository's, whatever the ledger says).
func (l Ledger) Line(path, text string) Origin {
	if l.Err == nil && l.inStore(path) {
		if c := Canonical(text); c != "" {
			if o, ok := l.Entries[lineKey(l.rel(path), c)]; ok {
				return o
			}
		}
	}
	return l.place(path)
}

// File is who wrote the file at path (a learned entry, a review item),
// whose authority-bearing text has the digest given ("" when the caller
// does not know it: then no attestation counts). The person's acceptance
// holds only for the text they accepted: an entry changed since reads as
// not confirmed.
func (l Ledger) File(path, digest string) Origin {
	if l.Err == nil && l.inStore(path) {
		if o, ok := l.Entries[l.rel(path)]; ok {
			if o.By == Person && (digest == "" || o.Digest != digest) {
				return Origin{Via: "changed"}
			}
			return o
		}
	}
	return l.place(path)
}

func (l Ledger) inStore(path string) bool { return l.store != "" && store.Within(l.store, path) }

// place is who wrote what the ledger has no word for: a repository's
// files are the repository's; in the store, nobody confirmed it.
func (l Ledger) place(path string) Origin {
	if l.inStore(path) {
		return Origin{}
	}
	return Origin{By: Repository}
}

// rel is path relative to the store, with slashes (the ledger's keys
// hold on every machine and under a moved store); a path outside the
// store stays absolute.
func (l Ledger) rel(path string) string {
	if l.store != "" {
		if r, err := filepath.Rel(l.store, path); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(path)
}

// lineKey keys a line of a file by its canonical form.
func lineKey(rel, canonical string) string { return rel + "\x00" + canonical }

// Note records who wrote lines of the file at path. The person's
// attestation (o.By Person) replaces whatever was recorded; anyone else's
// record never replaces an attestation, and a line already recorded keeps
// its first origin. With more than the ledger may hold of what others
// wrote, nothing is recorded and ErrFull is returned.
func Note(e store.Env, path string, lines []string, o Origin) error {
	if len(lines) == 0 {
		return nil
	}
	return edit(e, func(l *Ledger) (bool, error) {
		if !l.inStore(path) {
			return false, nil // a repository's lines are the repository's
		}
		rel := l.rel(path)
		add := map[string]bool{}
		for _, t := range lines {
			c := Canonical(t)
			if c == "" {
				continue
			}
			k := lineKey(rel, c)
			cur, ok := l.Entries[k]
			switch {
			case o.By == Person && (!ok || cur.By != Person):
				add[k] = true
			case o.By != Person && !ok:
				add[k] = true
			}
		}
		if len(add) == 0 {
			return false, nil
		}
		if err := l.room(o.By, len(add)); err != nil {
			return false, err
		}
		for k := range add {
			l.Entries[k] = o
		}
		return true, nil
	})
}

// Attest records that the person wrote or accepted lines of the file at
// path, through via ("cli", "ui", "edit", "review").
func Attest(e store.Env, via, path string, lines ...string) error {
	return Note(e, path, lines, Origin{By: Person, Via: via, At: e.Time().UTC()})
}

// AttestFile records that the person accepted the entry at path whose
// authority-bearing text has digest.
func AttestFile(e store.Env, via, path, digest string) error {
	return edit(e, func(l *Ledger) (bool, error) {
		k := l.rel(path)
		if cur, ok := l.Entries[k]; ok && cur.By == Person && cur.Digest == digest {
			return false, nil
		}
		if err := l.room(Person, 1); err != nil {
			return false, err
		}
		l.Entries[k] = Origin{By: Person, Via: via, At: e.Time().UTC(), Digest: digest}
		return true, nil
	})
}

// NoteFile records who wrote the files at paths: a later origin replaces
// an earlier one (a file rewritten by sync is the other machine's now,
// whoever accepted it before).
func NoteFile(e store.Env, o Origin, paths ...string) error {
	if len(paths) == 0 {
		return nil
	}
	return edit(e, func(l *Ledger) (bool, error) {
		fresh := 0
		for _, p := range paths {
			if _, ok := l.Entries[l.rel(p)]; !ok {
				fresh++
			}
		}
		if err := l.room(o.By, fresh); err != nil {
			return false, err
		}
		for _, p := range paths {
			l.Entries[l.rel(p)] = o
		}
		return true, nil
	})
}

// Revoke takes back what the ledger says of lines of the file at path and
// of the files at paths: forgotten memory holds no authority if its words
// come back.
func Revoke(e store.Env, path string, lines []string, files ...string) error {
	return edit(e, func(l *Ledger) (bool, error) {
		changed := false
		for _, t := range lines {
			k := lineKey(l.rel(path), Canonical(t))
			if _, ok := l.Entries[k]; ok {
				delete(l.Entries, k)
				changed = true
			}
		}
		for _, f := range files {
			if _, ok := l.Entries[l.rel(f)]; ok {
				delete(l.Entries, l.rel(f))
				changed = true
			}
		}
		return changed, nil
	})
}

// Room is how many more lines or files others may be recorded as having
// written (the rest is refused, see ErrFull).
func Room(e store.Env) int {
	l := Load(e)
	if l.Err != nil {
		return 0
	}
	return max(0, MaxLabels-l.count(false))
}

// count counts the attestations (person) or the other records.
func (l Ledger) count(person bool) int {
	n := 0
	for _, o := range l.Entries {
		if (o.By == Person) == person {
			n++
		}
	}
	return n
}

// room fails with ErrFull when n more records of by do not fit.
func (l Ledger) room(by By, n int) error {
	limit, person := MaxLabels, by == Person
	if person {
		limit = MaxAttested
	}
	if have := l.count(person); have+n > limit {
		if person {
			return fmt.Errorf("%w: it holds %d of the user's own lines and entries, the most it keeps", ErrFull, have)
		}
		return fmt.Errorf("%w: it holds %d lines and entries others wrote, and takes at most %d", ErrFull, have, limit)
	}
	return nil
}

// Pending lists the lines of the file at path (given) that are not the
// person's, with their origins, in the file's order: every line that
// holds words, whatever its shape (headings aside: they name, they do not
// state).
func (l Ledger) Pending(path string, lines []string) []PendingLine {
	var out []PendingLine
	for i, t := range lines {
		sh := ShapeOf(t)
		if sh.Kind == Blank || sh.Kind == Heading {
			continue
		}
		if o := l.Line(path, t); !o.Standing() {
			out = append(out, PendingLine{Line: i + 1, Text: t, Origin: o})
		}
	}
	return out
}

// PendingLine is a line not the person's, and who wrote it.
type PendingLine struct {
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Origin Origin `json:"origin"`
}

// ErrUnreadable is a change refused because the ledger on disk cannot be
// read: writing a new one would lose what it records.
var ErrUnreadable = errors.New("the provenance ledger cannot be read")

// edit changes the ledger under its lock: f says whether it changed
// anything. A ledger that cannot be read is not replaced.
func edit(e store.Env, f func(*Ledger) (bool, error)) error {
	if err := os.MkdirAll(e.Store, 0o700); err != nil {
		return err
	}
	unlock, err := store.Lock(filepath.Join(e.Store, ".provenance"))
	if err != nil {
		return err
	}
	defer unlock()
	l := Load(e)
	if l.Err != nil {
		return fmt.Errorf("%w (%v); hint: ccmem doctor says what to do", ErrUnreadable, l.Err)
	}
	changed, err := f(&l)
	if err != nil || !changed {
		return err
	}
	data, err := json.MarshalIndent(file{Version: version, Entries: l.Entries}, "", "  ")
	if err != nil {
		return err
	}
	err = store.WriteFileAtomic(Path(e), append(data, '\n'))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Kind is the Markdown shape of a line.
type Kind int

// The shapes.
const (
	Blank   Kind = iota
	Text         // a paragraph line
	Item         // a list item, bulleted or numbered, at any depth
	Heading      // an ATX heading
)

// Shape is a memory line as a reader sees it: its kind and its words
// without the Markdown that frames them (block quotes, list markers and
// numbers, task boxes, heading marks), in the line's own case. Every
// reader and writer of memory lines takes a line apart here.
type Shape struct {
	Kind Kind
	// Level is a heading's level (1–6).
	Level int
	Text  string
}

// ShapeOf takes a line apart.
func ShapeOf(line string) Shape {
	t := strings.TrimSpace(stripInvisible(line))
	sh := Shape{Kind: Text}
	for {
		switch {
		case t == "":
			if sh.Kind == Text {
				sh.Kind = Blank
			}
			sh.Text = ""
			return sh
		case t[0] == '>':
			t = strings.TrimSpace(t[1:])
			continue
		case sh.Kind != Heading && t[0] == '#':
			n := 0
			for n < len(t) && t[n] == '#' {
				n++
			}
			if n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t') {
				sh.Kind, sh.Level = Heading, n
				t = strings.TrimSpace(t[n:])
				// A closing sequence of #s goes too.
				if s := strings.TrimRight(t, "#"); s != t && (s == "" || strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\t")) {
					t = strings.TrimSpace(s)
				}
				continue
			}
		}
		if rest, ok := cutMarker(t); ok && sh.Kind != Heading {
			sh.Kind, t = Item, rest
			continue
		}
		sh.Text = t
		return sh
	}
}

// cutMarker cuts a list marker ("-", "*", "+", "1.", "1)", then a space
// or the line's end) and a task box after it.
func cutMarker(t string) (string, bool) {
	n := 0
	switch {
	case t[0] == '-' || t[0] == '*' || t[0] == '+':
		n = 1
	default:
		for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(t) || t[n] != '.' && t[n] != ')' {
			return t, false
		}
		n++
	}
	if n < len(t) && t[n] != ' ' && t[n] != '\t' {
		return t, false
	}
	rest := strings.TrimSpace(t[n:])
	for _, box := range []string{"[ ]", "[x]", "[X]"} {
		if r, ok := strings.CutPrefix(rest, box); ok && (r == "" || r[0] == ' ' || r[0] == '\t') {
			rest = strings.TrimSpace(r)
		}
	}
	return rest, true
}

// Canonical is a line's words as the ledger knows them: its Shape's text,
// case folded, one space between words, invisible characters gone. Two
// lines with the same canonical form are the same line to every reader
// and writer of memory; a blank line's is "".
func Canonical(line string) string {
	return strings.Join(strings.Fields(strings.ToLower(ShapeOf(line).Text)), " ")
}

// stripInvisible takes out format characters (zero-width spaces and
// joiners, bidirectional marks, the byte-order mark): they change no
// word a reader sees.
func stripInvisible(s string) string {
	clean := true
	for _, r := range s {
		if r >= 0x80 && unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
}

// Digest is what gives a learned entry or a review item its authority,
// as a hash: its type, what it says (its description and its body's first
// paragraph, the rule itself; spacing aside), and the frontmatter that
// says where it applies and how (scope, source_cwd, advisory). When it
// was proposed, accepted, counted or seen, and how sure ccmem is (the rest
// of a rule's body), are not part of it: ccmem updates those, and they
// change nothing a session is told to do. "" for a file that is no entry.
func Digest(data []byte) string {
	m, body, err := frontmatter.Read(data)
	if err != nil {
		return ""
	}
	h := sha256.New()
	para, _, _ := strings.Cut(strings.TrimSpace(strings.ReplaceAll(string(body), "\r\n", "\n")), "\n\n")
	parts := []string{m.Type, oneSpace(m.Description), oneSpace(para)}
	for _, k := range []string{"scope", "source_cwd", "advisory"} {
		parts = append(parts, k+"="+fmt.Sprint(m.Fields[k]))
	}
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func oneSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// Entry is who wrote the entry or review item at path, as the ledger says
// of its text now (read here, bounded): the person only for the very text
// they accepted.
func (l Ledger) Entry(path string) Origin {
	data, err := store.ReadSmallFile(path, 1<<20)
	if err != nil {
		return l.File(path, "")
	}
	return l.File(path, Digest(data))
}

// AttestEntry records that the person accepted the entry at path as it
// is now, through via.
func AttestEntry(e store.Env, via, path string) error {
	data, err := store.ReadSmallFile(path, 1<<20)
	if err != nil {
		return err
	}
	return AttestFile(e, via, path, Digest(data))
}
