package gitsync

import (
	"bytes"
	"context"
	"strings"

	"github.com/ccmem/ccmem/pkg/textfmt"
)

// A line file (MEMORY.md and the topic files beside it, merged as lists
// of lines) can lose a fact without losing the file: a remote that
// rewrites MEMORY.md without one of its lines would have the merge take
// that line away here. So lines are losses too: a line this machine held,
// that the common base held, and that the remote took out in a pure
// deletion (not replaced by another line there: that is an edit, which
// the merge carries, or keeps both of when both machines changed it).
// They are counted and recorded with the files (How "lines"), kept with
// --keep-deleted and put back by --undo.

// lineFile tells a file sync merges as a list of lines (.gitattributes:
// /*.md merge=union).
func lineFile(rel string) bool {
	return !strings.Contains(rel, "/") && strings.HasSuffix(rel, ".md") && live(rel)
}

// maxLineFile bounds the line files read to tell lost lines (larger ones
// are not compared line by line).
const maxLineFile = 1 << 20

// maxDiffLines bounds the lines compared (the comparison is quadratic).
const maxDiffLines = 4000

// splitLines is a file's lines, without their ends.
func splitLines(data []byte) []string {
	s := strings.TrimRight(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}

// pureDeletions are the lines of a that b leaves out in runs no line of b
// takes the place of (an edit, which the merge carries, is no deletion).
func pureDeletions(a, b []string) []string {
	if len(a) == 0 || len(a) > maxDiffLines || len(b) > maxDiffLines {
		return nil
	}
	var out, run []string
	added := false
	flush := func() {
		if !added {
			out = append(out, run...)
		}
		run, added = nil, false
	}
	for _, d := range textfmt.LineDiff(a, b) {
		switch d.Op {
		case ' ':
			flush()
		case '+':
			added = true
		default:
			run = append(run, d.Line)
		}
	}
	flush()
	return out
}

// linesRemovedBy lists the line files of this machine (ours) from which
// integrating their would take lines: those the base held and the remote
// deleted (pure deletions), that this machine still holds.
func (s *Syncer) linesRemovedBy(ctx context.Context, was, ours, their files) []Removed {
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
		held := map[string]bool{}
		for _, l := range splitLines(blobs[o.obj]) {
			held[l] = true
		}
		var lost []string
		for _, l := range pureDeletions(splitLines(blobs[b.obj]), splitLines(blobs[t.obj])) {
			if held[l] && strings.TrimSpace(l) != "" && !strings.HasPrefix(strings.TrimSpace(l), "#") {
				lost = append(lost, l)
			}
		}
		if len(lost) > 0 {
			out = append(out, Removed{Path: rel, Obj: o.obj, How: "lines", Lines: lost})
		}
	}
	return out
}

// lineCount is how many lines the line files of fs hold (what a loss of
// lines is measured against).
func (s *Syncer) lineCount(ctx context.Context, fs files) int {
	var objs []string
	for rel, f := range fs.m {
		if lineFile(rel) && f.size <= int64(maxLineFile) {
			objs = append(objs, f.obj)
		}
	}
	blobs, err := s.blobs(ctx, objs)
	if err != nil {
		return 0
	}
	n := 0
	for _, o := range objs {
		for _, l := range splitLines(blobs[o]) {
			if strings.TrimSpace(l) != "" {
				n++
			}
		}
	}
	return n
}

// withLines is data with each of lines it lacks added at its end.
func withLines(data []byte, lines []string) ([]byte, bool) {
	have := map[string]bool{}
	for _, l := range splitLines(data) {
		have[l] = true
	}
	out := bytes.TrimRight(data, "\n")
	changed := false
	for _, l := range lines {
		if !have[l] {
			if len(out) > 0 {
				out = append(out, '\n')
			}
			out = append(out, l...)
			have[l], changed = true, true
		}
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	return out, changed
}

// tooManyLost tells whether what syncs took since the person last
// confirmed (earlier, and now) calls for a person's yes: files against
// the memory files this machine holds, lines against the lines its line
// files hold, each as tooMany says.
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
