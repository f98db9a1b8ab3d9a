package notes

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/store"
)

// Unconfirmed is memory in the store the ledger does not attest as the
// person's (see provenance): a line of the global MEMORY.md the assistant
// noted, a sync brought, or that nothing accounts for (a hand edit, an
// older ccmem's); a learned entry a sync brought, learn curated from
// Claude Code's memory, or that changed since the person accepted it.
// Each is shown as what it is, and is none of the user's standing rules,
// until the person accepts it.
type Unconfirmed struct {
	// ID names it for a decision: "line-" and a hash of a line's words,
	// or "entry-TYPE/NAME".
	ID   string `json:"id"`
	Text string `json:"text"`
	Path string `json:"path"`
	// Line is a line's number in its file (0 for an entry).
	Line   int               `json:"line,omitempty"`
	Origin provenance.Origin `json:"origin"`
}

// ListUnconfirmed lists what awaits the person's word: the global
// MEMORY.md's lines in the file's order, then the learned entries by path.
func ListUnconfirmed(e store.Env) ([]Unconfirmed, error) {
	l := provenance.Load(e)
	var out []Unconfirmed
	data, err := store.ReadSmallFile(e.GlobalMemory(), 16<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	seen := map[string]bool{}
	for _, p := range l.Pending(e.GlobalMemory(), lines) {
		id := LineID(p.Text)
		if seen[id] {
			continue // the same words twice: one decision
		}
		seen[id] = true
		out = append(out, Unconfirmed{ID: id, Text: strings.TrimSpace(p.Text), Path: e.GlobalMemory(), Line: p.Line, Origin: p.Origin})
	}
	// Entries about the user and their feedback, which would apply in
	// every project (a project's or a reference entry is data of its
	// project, never a rule).
	var entries []Unconfirmed
	for _, typ := range []string{"user", "feedback"} {
		dir := filepath.Join(e.LearnedDir(), typ)
		ents, _ := os.ReadDir(dir)
		for _, de := range ents {
			if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".md") || strings.HasPrefix(de.Name(), ".") {
				continue
			}
			path := filepath.Join(dir, de.Name())
			o := l.Entry(path)
			if o.Standing() {
				continue
			}
			name, text := strings.TrimSuffix(de.Name(), ".md"), ""
			if data, err := store.ReadSmallFile(path, 1<<20); err == nil {
				if m, body, err := frontmatter.Read(data); err == nil {
					text = strings.TrimSpace(m.Description + "\n" + strings.TrimSpace(string(body)))
				}
			}
			entries = append(entries, Unconfirmed{ID: "entry-" + typ + "/" + name, Text: text, Path: path, Origin: o})
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return append(out, entries...), nil
}

// LineID names a line of memory for a decision: a hash of its words.
func LineID(text string) string {
	sum := sha256.Sum256([]byte(provenance.Canonical(text)))
	return "line-" + hex.EncodeToString(sum[:4])
}

// FindUnconfirmed is the item named id.
func FindUnconfirmed(items []Unconfirmed, id string) (Unconfirmed, bool) {
	for _, u := range items {
		if u.ID == id {
			return u, true
		}
	}
	return Unconfirmed{}, false
}

// Confirm makes it the person's, through via ("cli", "ui"): a line
// becomes the user's word; an entry too, and one that waited in the
// project it came from applies in every project (learned user and
// feedback entries).
func Confirm(e store.Env, u Unconfirmed, via string) error {
	if u.Line > 0 {
		return provenance.Attest(e, via, u.Path, u.Text)
	}
	if err := learn.Widen(e, u.Path); err != nil {
		return err
	}
	return provenance.AttestEntry(e, via, u.Path)
}

// Dismiss forgets it, with the person's reason: a line goes to the global
// archive, an entry to the learned archive (nothing is deleted).
func Dismiss(e store.Env, u Unconfirmed, reason string) (string, error) {
	if reason == "" {
		reason = "not confirmed"
	}
	if u.Line > 0 {
		res, err := Forget(e, Global, store.Project{}, provenance.ShapeOf(u.Text).Text, reason)
		if err != nil {
			return "", err
		}
		return res.Archive, nil
	}
	typ, name, ok := strings.Cut(strings.TrimPrefix(u.ID, "entry-"), "/")
	if !ok {
		return "", fmt.Errorf("%q names no learned entry", u.ID)
	}
	return learn.Forget(e, typ, name, reason)
}
