// Package notes holds the memory people and the model write on purpose:
// facts remembered into a MEMORY.md, the project briefing, and the memory
// section consolidated into a repository's CLAUDE.md.
package notes

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/redact"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// RememberResult says what Remember did.
type RememberResult struct {
	Path  string `json:"path"`
	Topic string `json:"topic"`
	Line  string `json:"line"`
	Added bool   `json:"added"` // false: the fact was there already
	// Confirmed says the fact was there already, not the person's, and
	// is theirs now (remembered by the person: see provenance).
	Confirmed  bool `json:"confirmed,omitempty"`
	Created    bool `json:"created"`
	Redactions int  `json:"redactions"`
	// Similar are the facts there already that say nearly the same
	// (look before you create); the new one is not added
	// unless forced.
	Similar []Similar `json:"similar,omitempty"`
}

// Similar is a fact nearly the same as one being remembered.
type Similar struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// ErrSimilar is a fact refused because one nearly the same is there.
var ErrSimilar = errors.New("a fact nearly the same is there already")

// RememberOptions change how Remember adds a fact.
type RememberOptions struct {
	// Force adds the fact even when one nearly the same is there.
	Force bool
	// Origin is who writes it, kept in this machine's ledger (see
	// provenance): only provenance.Person, given by a channel the model
	// and a remote cannot drive (the person's own ccmem command, the ui),
	// makes it the user's word; the zero Origin records nothing, and the
	// line reads as not confirmed.
	Origin provenance.Origin
}

// DefaultTopic is the header facts go under when no topic is given.
const DefaultTopic = "Notes"

// Scope is where a remembered fact goes.
type Scope string

// The scopes: the user's private global memory, or the repository's
// (committed, shared with the team).
const (
	Global  Scope = "global"
	Project Scope = "project"
)

// ErrNoRepository refuses project memory outside a git repository: the
// project's MEMORY.md is shared by being committed with the repository,
// and a folder that is none (the temp folder, a home directory) has no one
// to share it with.
var ErrNoRepository = errors.New("not in a git repository")

// Target is the MEMORY.md of a scope (p is the project, needed for
// Project), and the folder whose lock guards it: the store's for the global
// file, the project's folder in the store for the repository's (so nothing
// but memory lands in the repository).
func Target(e store.Env, scope Scope, p store.Project) (path, lockDir string, err error) {
	switch scope {
	case Global:
		return e.GlobalMemory(), e.Store, nil
	case Project:
		if p.Root == "" {
			return "", "", errors.New("no project here for --project")
		}
		if !p.Git {
			return "", "", fmt.Errorf("%s is %w, so project memory (committed with the repository, for the team) has nowhere to go", e.Tilde(p.Root), ErrNoRepository)
		}
		return store.RepoMemory(p.Root), e.ProjectDir(p.Key), nil
	}
	return "", "", fmt.Errorf("unknown scope %q", scope)
}

// Size caps of what Remember writes: a fact is one bullet (what outgrows
// one belongs in a topic file, with a pointer line), and a MEMORY.md that
// grows past what search reads (8 MB) or a session shows (200 lines) only
// hides memory.
const (
	MaxFactChars = 2000
	MaxFileBytes = 2 << 20
)

// ErrTooLong is a fact or a MEMORY.md over its cap.
var ErrTooLong = errors.New("too long")

// Remember adds one fact as a bullet under the "## topic" header of the
// scope's MEMORY.md, creating the file (and its folder) if needed and the
// header if missing. A fact already there (same words, any case or
// spacing) is not added twice. Every other byte of the file is kept.
// Secrets are redacted first.
//
// It edits the file under a cross-process lock, reading it again under the
// lock, so facts remembered at the same moment are all kept.
func Remember(e store.Env, scope Scope, p store.Project, topic, text string) (RememberResult, error) {
	return RememberWith(e, scope, p, topic, text, RememberOptions{})
}

// RememberWith is Remember with options. A fact whose words nearly all
// match one there already (see MergeNearDuplicates) is refused with
// ErrSimilar, the similar facts in the result, unless opts.Force.
func RememberWith(e store.Env, scope Scope, p store.Project, topic, text string, opts RememberOptions) (RememberResult, error) {
	return rememberWith(e, scope, p, topic, text, opts)
}

func rememberWith(e store.Env, scope Scope, p store.Project, topic, text string, opts RememberOptions) (RememberResult, error) {
	if scope == Project && !p.Git {
		_, _, err := Target(e, scope, p) // refused before anything is claimed
		return RememberResult{}, err
	}
	if scope == Project && p.Root != "" {
		var err error
		if p, err = store.ClaimProject(e, p); err != nil {
			return RememberResult{}, err
		}
	}
	path, lockDir, err := Target(e, scope, p)
	if err != nil {
		return RememberResult{}, err
	}
	unlock, err := store.Lock(lockDir)
	if err != nil {
		return RememberResult{}, err
	}
	defer unlock()
	store.Tidy(filepath.Dir(path), "MEMORY.md")
	read := func() ([]byte, error) { return store.ReadSmallFile(path, 16<<20) }
	write := store.WriteFileAtomic
	if scope == Project {
		// The repository's file: read by the team like the code, and
		// untrusted (no symlink followed, for the read or the write).
		read = func() ([]byte, error) { return store.ReadFileIn(p.Root, path, 16<<20) }
		write = func(path string, data []byte) error { return store.WriteFileIn(p.Root, path, data) }
	}
	// One line each, with no control character (an ESC or a NUL would
	// reach every later session's block and the user's terminal).
	topic = provenance.ShapeOf(textfmt.Line(textfmt.OneLine(topic))).Text
	if topic == "" {
		topic = DefaultTopic
	}
	if n := textfmt.Chars(topic); n > 200 {
		return RememberResult{}, fmt.Errorf("the topic has %d characters, more than 200: %w", n, ErrTooLong)
	}
	fact := textfmt.Line(textfmt.OneLine(provenance.ShapeOf(textfmt.OneLine(text)).Text))
	if fact == "" {
		return RememberResult{}, errors.New("nothing to remember: the text is empty")
	}
	if n := textfmt.Chars(fact); n > MaxFactChars {
		return RememberResult{}, fmt.Errorf("the fact has %d characters, more than the %d a bullet holds (%w); hint: put the detail in a topic file beside MEMORY.md and remember a one-line pointer to it", n, MaxFactChars, ErrTooLong)
	}
	fact, n := redact.String(fact)
	res := RememberResult{Path: path, Topic: topic, Line: "- " + fact, Redactions: n}
	data, err := read()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res.Created, res.Added = true, true
		if err := provenance.Note(e, path, []string{res.Line}, opts.Origin); err != nil {
			return res, err
		}
		return res, write(path, []byte("## "+topic+"\n"+res.Line+"\n"))
	case err != nil:
		return res, err
	}
	if len(data)+len(res.Line)+len(topic)+8 > MaxFileBytes {
		return res, fmt.Errorf("%s has %d bytes; a fact more would take it past %d MB (%w): sessions show its first 200 lines; hint: move detail into topic files, or ccmem forget what no longer holds", e.Tilde(path), len(data), MaxFileBytes>>20, ErrTooLong)
	}
	content := string(data)
	lines := strings.Split(content, "\n")
	key := provenance.Canonical(fact)
	for _, l := range lines {
		if provenance.ShapeOf(l).Kind != provenance.Heading && provenance.Canonical(l) == key {
			// Already there; the person remembering it makes it theirs.
			if opts.Origin.Standing() && scope == Global && !provenance.Load(e).Line(path, l).Standing() {
				if err := provenance.Note(e, path, []string{l}, opts.Origin); err != nil {
					return res, err
				}
				res.Confirmed = true
			}
			return res, nil
		}
	}
	if !opts.Force {
		terms := termSet(fact)
		for i, l := range lines {
			if sh := provenance.ShapeOf(l); (sh.Kind == provenance.Item || sh.Kind == provenance.Text) && nearSame(termSet(sh.Text), terms) {
				res.Similar = append(res.Similar, Similar{Line: i + 1, Text: sh.Text})
			}
		}
		if len(res.Similar) > 0 {
			return res, fmt.Errorf("%w in %s (line %d: %q): forget or edit that one, or remember this anyway with --force", ErrSimilar, e.Tilde(path), res.Similar[0].Line, textfmt.Shorten(res.Similar[0].Text, 120))
		}
	}
	res.Added = true
	// Who wrote it is recorded before it is written: killed between the
	// two, the ledger names a line that is not there (nothing), never a
	// line that passes for the person's.
	if err := provenance.Note(e, path, []string{res.Line}, opts.Origin); err != nil {
		return res, err
	}
	// Find the topic's section; insert after its last non-blank line.
	start := -1
	for i, l := range lines {
		if sh := provenance.ShapeOf(l); sh.Kind == provenance.Heading && sh.Level == 2 && strings.EqualFold(sh.Text, topic) {
			start = i
			break
		}
	}
	if start < 0 {
		out := strings.TrimRight(content, "\n")
		if out != "" {
			out += "\n\n"
		}
		out += "## " + topic + "\n" + res.Line + "\n"
		return res, write(path, []byte(out))
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		// The section ends at the next header of its level or above;
		// "###" subheaders belong to it.
		if sh := provenance.ShapeOf(lines[i]); sh.Kind == provenance.Heading && sh.Level <= 2 {
			end = i
			break
		}
	}
	at := start + 1
	for i := end - 1; i > start; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			at = i + 1
			break
		}
	}
	out := append(append(append([]string{}, lines[:at]...), res.Line), lines[at:]...)
	result := strings.Join(out, "\n")
	if !strings.HasSuffix(result, "\n") {
		result += "\n"
	}
	return res, write(path, []byte(result))
}
