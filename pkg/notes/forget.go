package notes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/pkg/lazyregexp"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/redact"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// ErrNoFact is returned when no fact matches what was to be forgotten.
var ErrNoFact = errors.New("no fact matches")

// AmbiguousError lists the facts that match when more than one does: a
// person picks, nothing is guessed.
type AmbiguousError struct {
	Query   string
	Matches []Match
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%d facts match %q", len(e.Matches), e.Query)
}

// Match is a fact that matches, where it is.
type Match struct {
	Path  string `json:"path"`
	Line  int    `json:"line"` // 1-based
	Topic string `json:"topic"`
	Text  string `json:"text"`
}

// ForgetResult says where a forgotten fact went.
type ForgetResult struct {
	Match
	Archive string `json:"archive"`
	// Moved are topic files the fact linked to ([Title](topic.md)), moved
	// to the archive with it.
	Moved []string `json:"moved,omitempty"`
}

// Matches finds the facts of a scope's MEMORY.md that query names: the
// bullet whose words equal it, else every bullet whose words contain it
// (any case or spacing).
func Matches(e store.Env, scope Scope, p store.Project, query string) ([]Match, error) {
	path, _, err := Target(e, scope, p)
	if err != nil {
		return nil, err
	}
	data, err := readScope(scope, p, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return match(path, string(data), query), nil
}

func match(path, content, query string) []Match {
	key := provenance.Canonical(query)
	if key == "" {
		return nil
	}
	var exact, within []Match
	topic := ""
	for i, l := range strings.Split(content, "\n") {
		sh := provenance.ShapeOf(l)
		switch sh.Kind {
		case provenance.Blank:
			continue
		case provenance.Heading:
			if sh.Level <= 2 {
				topic = sh.Text
			}
			continue
		}
		m := Match{Path: path, Line: i + 1, Topic: topic, Text: sh.Text}
		switch n := provenance.Canonical(l); {
		case n == key:
			exact = append(exact, m)
		case strings.Contains(n, key):
			within = append(within, m)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return within
}

// Forget moves the one fact of a scope's MEMORY.md that query names to the
// scope's archive (archive/MEMORY.md beside it, appended with the date and
// the reason), and a topic file it links to into archive/ too. Nothing is
// deleted: the archive is written before the fact leaves its file, so a
// crash between leaves it in both, never in neither. Several matches are
// refused with an AmbiguousError; none with ErrNoFact.
func Forget(e store.Env, scope Scope, p store.Project, query, reason string) (ForgetResult, error) {
	if scope == Project && !p.Git {
		_, _, err := Target(e, scope, p)
		return ForgetResult{}, err
	}
	path, lockDir, err := Target(e, scope, p)
	if err != nil {
		return ForgetResult{}, err
	}
	unlock, err := store.Lock(lockDir)
	if err != nil {
		return ForgetResult{}, err
	}
	defer unlock()
	data, err := readScope(scope, p, path)
	if errors.Is(err, fs.ErrNotExist) {
		return ForgetResult{}, fmt.Errorf("%w %q: %s does not exist", ErrNoFact, query, e.Tilde(path))
	}
	if err != nil {
		return ForgetResult{}, err
	}
	ms := match(path, string(data), query)
	switch {
	case len(ms) == 0:
		return ForgetResult{}, fmt.Errorf("%w %q in %s", ErrNoFact, query, e.Tilde(path))
	case len(ms) > 1:
		return ForgetResult{}, &AmbiguousError{Query: query, Matches: ms}
	}
	m := ms[0]
	dir := filepath.Dir(path)
	archive := filepath.Join(dir, "archive", "MEMORY.md")
	if scope == Global {
		archive = filepath.Join(e.ArchiveDir(), "MEMORY.md")
	}
	res := ForgetResult{Match: m, Archive: archive}
	store.Tidy(filepath.Dir(archive)) // an interrupted forget's temporary files (the folder is ccmem's)

	// The archive first: the fact, where it was, when and why.
	old, err := readScope(scope, p, archive)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	var b strings.Builder
	b.Write(old)
	if len(old) == 0 {
		b.WriteString("# Forgotten memory (ccmem forget): never injected, kept for the record\n")
	}
	why, _ := redact.String(textfmt.OneLine(reason))
	fmt.Fprintf(&b, "\n## %s, from \"## %s\": %s\n- %s\n", e.Time().UTC().Format("2006-01-02 15:04 UTC"), m.Topic, why, m.Text)
	if err := writeScope(scope, p, archive, []byte(b.String())); err != nil {
		return res, err
	}
	// A topic file the fact linked to goes with it.
	if name := linkedTopicFile(m.Text); name != "" {
		from := filepath.Join(dir, name)
		if body, err := readScope(scope, p, from); err == nil {
			to := filepath.Join(filepath.Dir(archive), name)
			if _, err := os.Lstat(to); err == nil {
				to = filepath.Join(filepath.Dir(archive), strings.TrimSuffix(name, ".md")+"."+e.Time().UTC().Format("20060102T150405Z")+".md")
			}
			if err := writeScope(scope, p, to, body); err != nil {
				return res, err
			}
			if err := os.Remove(from); err != nil {
				return res, err
			}
			res.Moved = append(res.Moved, to)
		}
	}
	lines := strings.Split(string(data), "\n")
	gone := lines[m.Line-1]
	lines = append(lines[:m.Line-1], lines[m.Line:]...)
	lines = dropEmptySection(lines, m.Line-1)
	if err := writeScope(scope, p, path, []byte(strings.Join(lines, "\n"))); err != nil {
		return res, err
	}
	// Forgotten: its words back later are nobody's until someone says so.
	if scope == Global {
		if err := provenance.Revoke(e, path, []string{gone}); err != nil && !errors.Is(err, provenance.ErrUnreadable) {
			return res, err
		}
	}
	return res, nil
}

// dropEmptySection removes the heading of the section that held line at
// (its index, now gone) when nothing but blank lines is left under it,
// with the blank lines: a fact forgotten leaves no empty "## Topic".
func dropEmptySection(lines []string, at int) []string {
	h := -1
	for i := min(at, len(lines)) - 1; i >= 0; i-- {
		if provenance.ShapeOf(lines[i]).Kind == provenance.Heading {
			h = i
			break
		}
	}
	if h < 0 {
		return lines
	}
	end := h + 1
	for end < len(lines) && provenance.ShapeOf(lines[end]).Kind != provenance.Heading {
		if strings.TrimSpace(lines[end]) != "" {
			return lines // the section still holds something
		}
		end++
	}
	if end == len(lines) {
		// The last section: the file ends with the line before it.
		for h > 0 && strings.TrimSpace(lines[h-1]) == "" {
			h--
		}
		return append(lines[:h], "")
	}
	// The blank line before the heading separates what is left.
	return append(lines[:h], lines[end:]...)
}

// topicLink finds a link to a topic file beside the index: [T](name.md).
var topicLink = lazyregexp.New(`\]\(([A-Za-z0-9][A-Za-z0-9._-]*\.md)\)`)

// linkedTopicFile is the topic file a fact links to, or "".
func linkedTopicFile(fact string) string {
	m := topicLink.FindStringSubmatch(fact)
	if m == nil || m[1] == "MEMORY.md" || strings.Contains(m[1], "..") {
		return ""
	}
	return m[1]
}

// readScope reads a file of a scope: the repository's without following
// a symlink (its files are untrusted), the store's as its own.
func readScope(scope Scope, p store.Project, path string) ([]byte, error) {
	if scope == Project {
		return store.ReadFileIn(p.Root, path, 16<<20)
	}
	return store.ReadSmallFile(path, 16<<20)
}

// writeScope writes a file of a scope atomically: the repository's shared
// (0644) and inside its root, the store's private.
func writeScope(scope Scope, p store.Project, path string, data []byte) error {
	if scope == Project {
		return store.WriteFileIn(p.Root, path, data)
	}
	return store.WriteFileAtomic(path, data)
}

// Whole tells whether query names the fact whole (its words, any case or
// spacing), not only a part of it.
func (m Match) Whole(query string) bool {
	return provenance.Canonical(m.Text) == provenance.Canonical(query)
}

// forgottenFrom reads the section an archived fact was forgotten from,
// out of its archive heading ("## 2026-11-20 10:00 UTC, from "## Queue": why").
var forgottenFrom = lazyregexp.New(`^(?:## )?.*?, from "## (.*?)": `)

// Restore brings a forgotten fact back: the one fact of the scope's
// archive that query names goes back under the section it was forgotten
// from (as Remember adds it), then leaves the archive with its heading.
// Added first, removed after: a crash between leaves it in both.
func Restore(e store.Env, scope Scope, p store.Project, query string) (ForgetResult, error) {
	path, lockDir, err := Target(e, scope, p)
	if err != nil {
		return ForgetResult{}, err
	}
	archive := filepath.Join(filepath.Dir(path), "archive", "MEMORY.md")
	if scope == Global {
		archive = filepath.Join(e.ArchiveDir(), "MEMORY.md")
	}
	find := func() ([]Match, []string, error) {
		data, err := readScope(scope, p, archive)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("%w %q: nothing was forgotten in %s", ErrNoFact, query, e.Tilde(path))
		}
		if err != nil {
			return nil, nil, err
		}
		lines := strings.Split(string(data), "\n")
		ms := match(archive, string(data), query)
		for i := range ms {
			if m := forgottenFrom.FindStringSubmatch(ms[i].Topic); m != nil {
				ms[i].Topic = m[1]
			}
		}
		return ms, lines, nil
	}
	ms, _, err := find()
	switch {
	case err != nil:
		return ForgetResult{}, err
	case len(ms) == 0:
		return ForgetResult{}, fmt.Errorf("%w %q in %s", ErrNoFact, query, e.Tilde(archive))
	case len(ms) > 1:
		return ForgetResult{}, &AmbiguousError{Query: query, Matches: ms}
	}
	m := ms[0]
	topic := m.Topic
	if topic == "" {
		topic = "Restored"
	}
	if _, err := rememberWith(e, scope, p, topic, m.Text, RememberOptions{Force: true}); err != nil {
		return ForgetResult{}, err
	}
	unlock, err := store.Lock(lockDir)
	if err != nil {
		return ForgetResult{}, err
	}
	defer unlock()
	ms, lines, err := find()
	if err != nil || len(ms) != 1 {
		return ForgetResult{Match: m, Archive: archive}, err // the archive changed meanwhile: the fact is back all the same
	}
	at := ms[0].Line - 1
	from := at
	if at > 0 && forgottenFrom.MatchString(strings.TrimSpace(lines[at-1])) {
		from = at - 1
		if from > 0 && strings.TrimSpace(lines[from-1]) == "" {
			from--
		}
	}
	lines = append(lines[:from], lines[at+1:]...)
	return ForgetResult{Match: Match{Path: path, Topic: topic, Text: m.Text}, Archive: archive}, writeScope(scope, p, archive, []byte(strings.Join(lines, "\n")))
}
