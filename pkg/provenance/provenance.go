// Package provenance says who wrote each piece of memory — the person, the
// assistant, a repository, another machine, Claude Code's own memory — and
// what authority that gives it: only the person's words, and what the
// person accepted, are the user's standing rules; everything else is
// memory framed as what it is.
//
// A repository's files are the repository's, whoever committed them. In
// the store, the person writes through ccmem's commands, the ui and their
// editor; everything else that writes there says so in this machine's
// ledger (provenance.json at the store's root, never synced): the
// assistant's notes (MCP remember), the lines and entries a sync brought
// from another machine, the entries curated from Claude Code's memory
// folders. A line or file the ledger has no word for is the person's: so
// an edit by hand, or ccmem's own commands, need nothing; accepting a line
// or an entry (ccmem learn review) drops its ledger entry. A remote
// cannot write the ledger: it is this machine's own.
package provenance

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
)

// By is who wrote a piece of memory.
type By string

// The writers.
const (
	Person     By = "person"     // the person: ccmem's commands, the ui, their editor
	Assistant  By = "assistant"  // the model, through MCP remember
	Repository By = "repository" // a repository's .claude/memory/, committed by its authors
	Machine    By = "machine"    // another machine, through sync, not confirmed here
	Curated    By = "curated"    // Claude Code's memory folders, curated by learn (the model wrote them)
)

// Origin is who wrote a line or a file, how, and in which project.
type Origin struct {
	By By `json:"by"`
	// Via is how it came: "mcp", "sync", "learn" ("" for the person).
	Via string `json:"via,omitempty"`
	// Project is the store key of the project it was written in (the
	// assistant's notes stay there until the person accepts them).
	Project string    `json:"project,omitempty"`
	At      time.Time `json:"at,omitzero"`
}

// Standing tells whether memory of this origin is one of the user's
// standing rules: the person's own words, or what they accepted.
func (o Origin) Standing() bool { return o.By == Person || o.By == "" }

// Label is the origin in a few plain words, for a reader ("" for the
// person, whose words need none).
func (o Origin) Label() string {
	switch o.By {
	case Assistant:
		return "the assistant's note, not confirmed by the user"
	case Repository:
		return "the repository's, committed by its authors"
	case Machine:
		return "synced from another machine, not confirmed here"
	case Curated:
		return "from Claude Code's memory, not reviewed"
	}
	return ""
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

// maxLedger bounds the ledger read.
const maxLedger = 32 << 20

// Path is the ledger of the store.
func Path(e store.Env) string { return filepath.Join(e.Store, ledgerName) }

// Ledger is this machine's record of memory the person did not write.
type Ledger struct {
	store   string
	Entries map[string]Origin `json:"entries"`
}

// Load reads the ledger (empty when there is none, or it cannot be read:
// then every line reads as its place says).
func Load(e store.Env) Ledger {
	l := Ledger{store: e.Store, Entries: map[string]Origin{}}
	data, err := store.ReadSmallFile(Path(e), maxLedger)
	if err == nil {
		_ = json.Unmarshal(data, &l)
		if l.Entries == nil {
			l.Entries = map[string]Origin{}
		}
	}
	return l
}

// Line is who wrote the line text of the file at path.
func (l Ledger) Line(path, text string) Origin {
	if o, ok := l.Entries[lineKey(l.rel(path), text)]; ok {
		return o
	}
	return l.place(path)
}

// File is who wrote the file at path (a learned entry, a review item).
func (l Ledger) File(path string) Origin {
	if o, ok := l.Entries[l.rel(path)]; ok {
		return o
	}
	return l.place(path)
}

// place is who writes where the ledger has no word: a repository's files
// are the repository's, the store's the person's.
func (l Ledger) place(path string) Origin {
	if l.store != "" && store.Within(l.store, path) {
		return Origin{By: Person}
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

// lineKey keys a line of a file: its words, case and spacing aside, without
// the bullet.
func lineKey(rel, text string) string {
	return rel + "\x00" + Words(text)
}

// Words is a line's words as the ledger matches them: without its bullet,
// case folded, one space between words.
func Words(text string) string {
	t := strings.TrimSpace(text)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "- "), "* ")
	return strings.ToLower(strings.Join(strings.Fields(t), " "))
}

// Note records who wrote lines of the file at path (each once: a line
// already recorded keeps its first origin); the person's lines are not
// recorded (the ledger's silence says so).
func Note(e store.Env, path string, lines []string, o Origin) error {
	if o.Standing() || len(lines) == 0 {
		return nil
	}
	return edit(e, func(l *Ledger) bool {
		changed := false
		rel := l.rel(path)
		for _, t := range lines {
			if Words(t) == "" {
				continue
			}
			k := lineKey(rel, t)
			if _, ok := l.Entries[k]; !ok {
				l.Entries[k] = o
				changed = true
			}
		}
		return changed
	})
}

// NoteFile records who wrote the files at paths (a later origin replaces
// an earlier one: a file rewritten by sync is the other machine's now).
func NoteFile(e store.Env, o Origin, paths ...string) error {
	if o.Standing() || len(paths) == 0 {
		return nil
	}
	return edit(e, func(l *Ledger) bool {
		for _, p := range paths {
			l.Entries[l.rel(p)] = o
		}
		return true
	})
}

// Accept makes lines of the file at path, and the files at paths, the
// person's: their ledger entries go.
func Accept(e store.Env, path string, lines []string, files ...string) error {
	return edit(e, func(l *Ledger) bool {
		changed := false
		for _, t := range lines {
			k := lineKey(l.rel(path), t)
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
		return changed
	})
}

// Pending lists the lines of the file at path (given) that are not the
// person's, with their origins, in the file's order.
func (l Ledger) Pending(path string, lines []string) []PendingLine {
	var out []PendingLine
	for i, t := range lines {
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

// edit changes the ledger under the store's lock: f says whether it
// changed anything.
func edit(e store.Env, f func(*Ledger) bool) error {
	if err := os.MkdirAll(e.Store, 0o700); err != nil {
		return err
	}
	unlock, err := store.Lock(filepath.Join(e.Store, ".provenance"))
	if err != nil {
		return err
	}
	defer unlock()
	l := Load(e)
	if !f(&l) {
		return nil
	}
	data, err := json.MarshalIndent(struct {
		Entries map[string]Origin `json:"entries"`
	}{l.Entries}, "", "  ")
	if err != nil {
		return err
	}
	err = store.WriteFileAtomic(Path(e), append(data, '\n'))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
