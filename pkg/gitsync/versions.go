package gitsync

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/syncstate"
)

// A fact both machines edited differently becomes two versions the person
// settles (ccmem learn review): never two facts with no word, never one
// silently chosen. Line files merge as a union, so the two lines both stay
// in the file; for other files the newer stays in place and the older goes
// to the archive (keepBoth). Either way syncstate records the pair, the
// sync says so, the start-up block marks the two lines as disagreeing,
// and Settle keeps the one the person chooses.

// editedOnBoth pairs the lines of a line file that replaced the same line
// on each side: a line of base that both sides removed, and the most alike
// line each side added in its place (by shared words; one removed and one
// added on each side pair whatever their words).
func editedOnBoth(base, ours, theirs string) [][2]string {
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(s, "\n") {
			if t := strings.TrimSpace(l); t != "" {
				m[t]++
			}
		}
		return m
	}
	order := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if t := strings.TrimSpace(l); t != "" && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		return out
	}
	b, o, t := count(base), count(ours), count(theirs)
	var removed, addedO, addedT []string
	for _, l := range order(base) {
		if o[l] == 0 && t[l] == 0 && provenance.ShapeOf(l).Kind != provenance.Heading {
			removed = append(removed, l)
		}
	}
	for _, l := range order(ours) {
		if b[l] == 0 && t[l] == 0 && provenance.ShapeOf(l).Kind != provenance.Heading {
			addedO = append(addedO, l)
		}
	}
	for _, l := range order(theirs) {
		if b[l] == 0 && o[l] == 0 && provenance.ShapeOf(l).Kind != provenance.Heading {
			addedT = append(addedT, l)
		}
	}
	if len(removed) == 0 || len(addedO) == 0 || len(addedT) == 0 {
		return nil
	}
	if len(removed) == 1 && len(addedO) == 1 && len(addedT) == 1 {
		return [][2]string{{addedO[0], addedT[0]}}
	}
	var out [][2]string
	for _, l := range removed {
		i, si := closest(l, addedO)
		j, sj := closest(l, addedT)
		if si < 0.3 || sj < 0.3 {
			continue
		}
		out = append(out, [2]string{addedO[i], addedT[j]})
		addedO = slices.Delete(addedO, i, i+1)
		addedT = slices.Delete(addedT, j, j+1)
		if len(addedO) == 0 || len(addedT) == 0 {
			break
		}
	}
	return out
}

// closest is the index of the line of ls that shares most words with l,
// and how much (shared words over all words of both).
func closest(l string, ls []string) (int, float64) {
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(provenance.Canonical(s)) {
			m[strings.Trim(w, ".,;:!?()`'\"")] = true
		}
		return m
	}
	lw := words(l)
	best, score := 0, -1.0
	for i, x := range ls {
		xw := words(x)
		shared := 0
		for w := range xw {
			if lw[w] {
				shared++
			}
		}
		s := 0.0
		if n := len(lw) + len(xw) - shared; n > 0 {
			s = float64(shared) / float64(n)
		}
		if s > score {
			best, score = i, s
		}
	}
	return best, score
}

// unsettledLines records, for each line file both sides changed, the
// lines that are two versions of one fact.
func (s *Syncer) unsettledLines(ctx context.Context, was, ours, their files) ([]syncstate.Unsettled, error) {
	var out []syncstate.Unsettled
	for rel, o := range ours.m {
		t, ok := their.m[rel]
		b, inBase := was.m[rel]
		if !ok || !inBase || !isUnion(rel) || t.obj == o.obj || b.obj == o.obj || b.obj == t.obj {
			continue
		}
		var texts [3]string
		for i, obj := range []string{b.obj, o.obj, t.obj} {
			data, err := s.gitRaw(ctx, nil, "cat-file", "blob", obj)
			if err != nil {
				return nil, err
			}
			texts[i] = string(data)
		}
		for _, p := range editedOnBoth(texts[0], texts[1], texts[2]) {
			out = append(out, syncstate.Unsettled{
				ID: syncstate.UnsettledID(rel, p[0], p[1]), Path: rel, Line: true, When: s.Env.Time(),
				Versions: [2]syncstate.Version{{From: "this machine (" + s.machine() + ")", Text: p[0]}, {From: "another machine", Text: p[1]}},
			})
		}
	}
	slices.SortFunc(out, func(a, b syncstate.Unsettled) int { return strings.Compare(a.Path+a.ID, b.Path+b.ID) })
	return out, nil
}

// addUnsettled records us with what already waits (once each).
func addUnsettled(e store.Env, us []syncstate.Unsettled) error {
	if len(us) == 0 {
		return nil
	}
	all := syncstate.ReadUnsettled(e)
	for _, u := range us {
		if !slices.ContainsFunc(all, func(x syncstate.Unsettled) bool { return x.ID == u.ID }) {
			all = append(all, u)
		}
	}
	return syncstate.WriteUnsettled(e, all)
}

// preview is the start of a version, for the person to read.
func preview(data []byte) string {
	s := strings.TrimSpace(string(data))
	if r := []rune(s); len(r) > 600 {
		s = string(r[:600]) + "…"
	}
	return s
}

// Unsettled is what waits for the person to choose between two versions,
// without what was settled by hand since (a line no longer in its file,
// a file gone).
func Unsettled(e store.Env) []syncstate.Unsettled {
	var out []syncstate.Unsettled
	for _, u := range syncstate.ReadUnsettled(e) {
		if u.Line {
			data, err := store.ReadFileIn(e.Store, filepath.Join(e.Store, filepath.FromSlash(u.Path)), 16<<20)
			if err != nil || !hasLine(data, u.Versions[0].Text) || !hasLine(data, u.Versions[1].Text) {
				continue
			}
		} else if _, err := os.Lstat(filepath.Join(e.Store, filepath.FromSlash(u.Path))); err != nil {
			continue
		}
		out = append(out, u)
	}
	return out
}

func hasLine(data []byte, text string) bool {
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == text {
			return true
		}
	}
	return false
}

// ErrNoVersion is a name that is none of the versions waiting.
var ErrNoVersion = errors.New("no two versions by that name")

// Settle keeps version keep (1 or 2) of the unsettled fact id and puts the
// other in the archive (archive/sync, with where it came from): the other
// line leaves its file, or the kept file's text takes the file's place.
// It returns where the other went. The next sync carries the choice.
func Settle(e store.Env, id string, keep int) (string, error) {
	all := syncstate.ReadUnsettled(e)
	i := slices.IndexFunc(all, func(u syncstate.Unsettled) bool { return u.ID == id })
	if i < 0 || keep < 1 || keep > 2 {
		return "", fmt.Errorf("%w: %q", ErrNoVersion, id)
	}
	u := all[i]
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return "", err
	}
	defer unlock()
	p := filepath.Join(e.Store, filepath.FromSlash(u.Path))
	if err := store.CheckIn(e.Store, p); err != nil {
		return "", err
	}
	kept, other := u.Versions[keep-1], u.Versions[2-keep]
	when := e.Time().UTC()
	var dest string
	if u.Line {
		data, err := store.ReadFileIn(e.Store, p, 16<<20)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		dest = path.Join(ConflictDir, strings.TrimSuffix(u.Path, path.Ext(u.Path))+".not-kept.md")
		rec := fmt.Sprintf("\n## %s, from %s (%s): the person kept %q\n%s\n", when.Format("2006-01-02 15:04 UTC"), u.Path, other.From, kept.Text, other.Text)
		if err := appendFile(e, dest, "# Versions not kept (ccmem learn review): never injected, kept for the record\n", rec); err != nil {
			return "", err
		}
		var out []string
		dropped := false
		for _, l := range strings.SplitAfter(string(data), "\n") {
			if !dropped && strings.TrimSpace(l) == other.Text {
				dropped = true
				continue
			}
			out = append(out, l)
		}
		if dropped {
			if err := store.WriteFileAtomic(p, []byte(strings.Join(out, ""))); err != nil {
				return "", err
			}
		}
	} else {
		dest = other.At
		if kept.At != u.Path {
			// The archived version comes back; the one in place goes to the
			// archive in its stead.
			from := filepath.Join(e.Store, filepath.FromSlash(kept.At))
			data, err := store.ReadFileIn(e.Store, from, 16<<20)
			if err != nil {
				return "", err
			}
			cur, err := store.ReadFileIn(e.Store, p, 16<<20)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
			ext := path.Ext(u.Path)
			dest = path.Join(ConflictDir, strings.TrimSuffix(u.Path, ext)+"."+when.Format("20060102T150405Z")+"-not-kept"+ext)
			note := fmt.Sprintf("sync: both machines changed %s; the person kept the version from %s, and this one (from %s) went to the archive", u.Path, kept.From, other.From)
			if len(cur) > 0 {
				if err := writeIn(e, dest, withProvenance(cur, note)); err != nil {
					return "", err
				}
			}
			if err := store.WriteFileAtomic(p, withoutProvenance(data)); err != nil {
				return "", err
			}
		}
	}
	all = slices.Delete(all, i, i+1)
	return dest, syncstate.WriteUnsettled(e, all)
}

// withoutProvenance takes away the archived_reason withProvenance added.
func withoutProvenance(data []byte) []byte {
	if !bytes.HasPrefix(data, []byte("---\narchived_reason: ")) {
		return data
	}
	rest := data[len("---\n"):]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		return append([]byte("---\n"), rest[i+1:]...)
	}
	return data
}

// writeIn writes rel under the store, checked, atomically.
func writeIn(e store.Env, rel string, data []byte) error {
	p := filepath.Join(e.Store, filepath.FromSlash(rel))
	if err := store.CheckIn(e.Store, p); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return store.WriteFileAtomic(p, data)
}

// appendFile adds rec to rel (head first when it is new).
func appendFile(e store.Env, rel, head, rec string) error {
	p := filepath.Join(e.Store, filepath.FromSlash(rel))
	old, err := store.ReadFileIn(e.Store, p, 16<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if len(old) == 0 {
		old = []byte(head)
	}
	return writeIn(e, rel, append(old, rec...))
}

// The two versions of a fact are found by the machine that merges them;
// the other machine receives both lines already merged and could not tell
// them from two facts. So the merge commit names each pair in a trailer,
// "Ccmem-Versions: <file> <sha256 of one line> <sha256 of the other>",
// and a machine that integrates the commit records the pair too — only
// when both lines are in that file here. A remote can write trailers: all
// one can do is mark two lines the file holds as two versions to choose
// from (a label, and a question in review), never make a line anyone's.

// versionsTrailer opens a trailer naming two versions of a line.
const versionsTrailer = "Ccmem-Versions: "

// maxVersionTrailers bounds the trailers read from a sync's commits.
const maxVersionTrailers = 200

// versionTrailers is the trailers naming the line pairs of us, after a
// blank line ("" for none).
func versionTrailers(us []syncstate.Unsettled) string {
	var b strings.Builder
	for _, u := range us {
		if !u.Line || strings.ContainsAny(u.Path, " \n") {
			continue
		}
		fmt.Fprintf(&b, "\n%s%s %s %s", versionsTrailer, u.Path, lineHash(u.Versions[0].Text), lineHash(u.Versions[1].Text))
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n" + b.String()
}

func lineHash(l string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(l)))
	return hex.EncodeToString(sum[:])
}

// adoptVersions records the line pairs the commits between base and tip
// name (see versionTrailers) whose two lines are both in their file here.
func (s *Syncer) adoptVersions(ctx context.Context, rep *syncstate.Report, base, tip string) error {
	rng := tip
	if base != "" {
		rng = base + ".." + tip
	}
	out, err := s.gitRaw(ctx, nil, "log", "--format=%B", "-n", "1000", rng)
	if err != nil {
		return nil // nothing to adopt is no failure of the sync
	}
	var adopt []syncstate.Unsettled
	seen := 0
	files := map[string]map[string]string{} // file -> line hash -> line
	for _, l := range strings.Split(string(out), "\n") {
		t, ok := strings.CutPrefix(strings.TrimSpace(l), versionsTrailer)
		if !ok {
			continue
		}
		if seen++; seen > maxVersionTrailers {
			break
		}
		f := strings.Fields(t)
		if len(f) != 3 || !lineFile(f[0]) || carriedPath(f[0]) != "" || f[1] == f[2] {
			continue
		}
		lines, ok := files[f[0]]
		if !ok {
			lines = map[string]string{}
			if data, err := store.ReadSmallFile(filepath.Join(s.Env.Store, filepath.FromSlash(f[0])), maxLineFile); err == nil {
				for _, x := range splitLines(data) {
					if strings.TrimSpace(x) != "" {
						lines[lineHash(x)] = strings.TrimSpace(x)
					}
				}
			}
			files[f[0]] = lines
		}
		a, okA := lines[f[1]]
		b, okB := lines[f[2]]
		if !okA || !okB {
			continue
		}
		adopt = append(adopt, syncstate.Unsettled{ID: syncstate.UnsettledID(f[0], a, b), Path: f[0], Line: true, When: s.Env.Time(),
			Versions: [2]syncstate.Version{{From: "one machine", Text: a}, {From: "another machine", Text: b}}})
	}
	if len(adopt) == 0 {
		return nil
	}
	known := syncstate.ReadUnsettled(s.Env)
	var fresh []syncstate.Unsettled
	for _, u := range adopt {
		if !slices.ContainsFunc(known, func(x syncstate.Unsettled) bool {
			return x.Path == u.Path && (x.Versions[0].Text == u.Versions[0].Text && x.Versions[1].Text == u.Versions[1].Text || x.Versions[0].Text == u.Versions[1].Text && x.Versions[1].Text == u.Versions[0].Text)
		}) {
			fresh = append(fresh, u)
			rep.Unsettled = append(rep.Unsettled, u.Path)
		}
	}
	return addUnsettled(s.Env, fresh)
}
