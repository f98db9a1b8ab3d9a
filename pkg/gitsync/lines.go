package gitsync

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/pkg/provenance"
)

// A line file (MEMORY.md and the topic files beside it, merged as lists
// of lines) can lose a fact without losing the file, and in more ways than
// a deleted line: the remote may replace it with a blank or with junk,
// turn it into a heading, or pad the file first and delete later. So a
// fact is counted lost when this machine held it, the common base held it
// (this machine did not just add it: the merge keeps what it added), and
// the remote's version no longer states it — whatever shape a line takes
// (provenance.Canonical: a bullet stripped or renumbered is the same fact;
// a heading names, it does not state). Lost facts are counted and recorded
// with the files (How "lines"), kept with --keep-deleted and put back by
// --undo. What they are counted against is this machine's own facts (the
// lines no sync brought: see ownFacts), so padding cannot dilute them.

// lineFile tells a file sync merges as a list of lines (.gitattributes:
// /*.md merge=union).
func lineFile(rel string) bool {
	return !strings.Contains(rel, "/") && strings.HasSuffix(rel, ".md") && live(rel)
}

// maxLineFile bounds the line files read to tell lost facts: a line file
// from the remote is within MaxLineFileBytes (see refuseExcess), this
// machine's within what ccmem remember writes, with room for a hand edit.
const maxLineFile = 4 * MaxLineFileBytes

// splitLines is a file's lines, without their ends.
func splitLines(data []byte) []string {
	s := strings.TrimRight(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}

// facts is the canonical forms of the lines of data that state something
// (not blank, not a heading).
func facts(data []byte) map[string]bool {
	out := map[string]bool{}
	for _, l := range splitLines(data) {
		if provenance.ShapeOf(l).Kind == provenance.Heading {
			continue
		}
		if c := provenance.Canonical(l); c != "" {
			out[c] = true
		}
	}
	return out
}

// factsLostBy lists the line files of this machine (ours) that integrating
// their would take facts from, with those facts as this machine holds
// them.
func (s *Syncer) factsLostBy(ctx context.Context, was, ours, their files) []Removed {
	if was.m == nil {
		return nil
	}
	var out []Removed
	for rel, o := range ours.m {
		b, inBase := was.m[rel]
		t, there := their.m[rel]
		if !lineFile(rel) || !inBase || !there || t.obj == b.obj || t.obj == o.obj || max(o.size, b.size, t.size) > int64(maxLineFile) {
			continue
		}
		blobs, err := s.blobs(ctx, []string{b.obj, t.obj, o.obj})
		if err != nil {
			continue
		}
		base, kept := facts(blobs[b.obj]), facts(blobs[t.obj])
		var lost []string
		seen := map[string]bool{}
		for _, l := range splitLines(blobs[o.obj]) {
			c := provenance.Canonical(l)
			if c == "" || seen[c] || provenance.ShapeOf(l).Kind == provenance.Heading || !base[c] || kept[c] {
				continue
			}
			seen[c] = true
			lost = append(lost, l)
		}
		if len(lost) > 0 {
			out = append(out, Removed{Path: rel, Obj: o.obj, How: "lines", Lines: lost})
		}
	}
	slices.SortFunc(out, func(a, b Removed) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// ownFacts is how many facts the line files of fs hold that no sync
// brought (this machine's ledger does not say another machine wrote
// them): what a loss of facts is measured against.
func (s *Syncer) ownFacts(ctx context.Context, fs files) int {
	var objs, rels []string
	for rel, f := range fs.m {
		if lineFile(rel) && f.size <= int64(maxLineFile) {
			objs, rels = append(objs, f.obj), append(rels, rel)
		}
	}
	blobs, err := s.blobs(ctx, objs)
	if err != nil {
		return 0
	}
	l := provenance.Load(s.Env)
	n := 0
	for i, o := range objs {
		path := filepath.Join(s.Env.Store, filepath.FromSlash(rels[i]))
		for c := range facts(blobs[o]) {
			if l.Line(path, c).By != provenance.Machine {
				n++
			}
		}
	}
	return n
}

// withLines is data with each of lines whose fact it does not state
// added at its end.
func withLines(data []byte, lines []string) ([]byte, bool) {
	have := facts(data)
	out := bytes.TrimRight(data, "\n")
	changed := false
	for _, l := range lines {
		c := provenance.Canonical(l)
		if c == "" || have[c] {
			continue
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, l...)
		have[c], changed = true, true
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	return out, changed
}

// tooManyLost tells whether what syncs took since the person last
// confirmed (earlier, and now) calls for a person's yes: files against
// the memory files this machine holds, facts against this machine's own
// facts (ownFacts), each as tooMany says.
func tooManyLost(earlier, now []Removed, files, lines int) bool {
	count := func(rs []Removed) (f, l int) {
		for _, r := range rs {
			if r.How == "lines" {
				l += len(r.Lines)
			} else {
				f++
			}
		}
		return f, l
	}
	f, l := count(earlier)
	fNow, lNow := count(now)
	return fNow > 0 && tooMany(f+fNow, files+f) || lNow > 0 && tooMany(l+lNow, lines+l)
}

// keepLines is their version of a line file with the lines a removal
// record lists put back, as a blob in the store's repository.
func (s *Syncer) keepLines(ctx context.Context, t file, r Removed) (file, error) {
	blobs, err := s.blobs(ctx, []string{t.obj})
	if err != nil {
		return t, err
	}
	data, changed := withLines(blobs[t.obj], r.Lines)
	if !changed {
		return t, nil
	}
	obj, err := s.gitRaw(ctx, data, "hash-object", "-w", "--stdin")
	if err != nil {
		return t, err
	}
	return file{mode: t.mode, obj: strings.TrimSpace(string(obj)), size: int64(len(data))}, nil
}
