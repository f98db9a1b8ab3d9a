package gitsync

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/syncstate"
)

// ConflictDir is where the older of two versions of a file both machines
// changed is kept, under the file's own path.
const ConflictDir = "archive/sync"

// isUnion tells a line file, merged as a union of lines (.gitattributes).
func isUnion(rel string) bool { return !strings.Contains(rel, "/") && strings.HasSuffix(rel, ".md") }

// integrate merges theirs into HEAD with nothing to merge by hand. What
// the remote holds is read as what sync carries of it (see carried): the
// rest is refused, reported, and never reaches git's merge or the store.
// A remote that deletes most of the store is not followed without the
// person's yes. Then, for each file both sides changed differently (line
// files aside), both versions are kept: the older is written to the
// archive with where it came from, and the newer is what this side
// commits, so the merge that follows has nothing to decide; each step is a
// commit, so a sync killed between them redoes only what is left. Then the
// merge (see mergeInPlace), and the union files' duplicate lines removed.
func (s *Syncer) integrate(ctx context.Context, rep *syncstate.Report, theirs string) error {
	if _, err := s.git(ctx, "merge-base", "--is-ancestor", theirs, "HEAD"); err == nil {
		return nil // nothing new there
	}
	tip, err := s.git(ctx, "rev-parse", "--verify", theirs+"^{commit}")
	if err != nil {
		return err
	}
	base, _ := s.git(ctx, "merge-base", "HEAD", tip)
	if base == "" {
		rep.Joined = true
	}
	ours, err := s.carriedFiles(ctx, "HEAD", nil)
	if err != nil {
		return err
	}
	their, err := s.carriedFiles(ctx, tip, ours.own())
	if err != nil {
		return err
	}
	for _, r := range their.refused {
		r.Commit = short(tip)
		rep.Refused = append(rep.Refused, r)
	}
	if their, err = s.refuseExcess(ctx, rep, tip, ours, their); err != nil {
		return err
	}
	var was files
	if base != "" {
		if was, err = s.carriedFiles(ctx, base, ours.own()); err != nil {
			return err
		}
	}
	// The anchors this machine held stay known here, whatever the remote's
	// repository.json says from now on.
	if err := s.keepAnchors(ctx, tip, was, ours, their, base == ""); err != nil {
		return err
	}
	// What this sync would take away, with what syncs took since the
	// person last confirmed (see losses.go).
	lostNow := append(s.removedBy(ctx, was, ours, their), s.factsLostBy(ctx, was, ours, their)...)
	l := readLosses(s.Env)
	var stop *DeletionError
	if len(lostNow) > 0 && tooManyLost(l.Files, lostNow, liveCount(ours), s.ownFacts(ctx, ours)) {
		subject, _ := s.git(ctx, "log", "-1", "--format=%s", tip)
		stop = &DeletionError{Commit: short(tip), Subject: subject, Of: liveCount(ours), Earlier: len(l.Files), Since: l.Since}
		for _, r := range lostNow {
			if r.How == "lines" {
				stop.Lines += len(r.Lines)
			} else {
				stop.Deleted++
			}
		}
	} else if base != "" {
		if stop, err = s.deletionInHistory(ctx, base, tip, ours.own()); err != nil {
			return err
		}
	}
	earlier := l.Files
	switch {
	case s.Deletions == KeepDeleted:
		for _, r := range lostNow {
			if r.How == "lines" {
				if their.m[r.Path], err = s.keepLines(ctx, their.m[r.Path], r); err != nil {
					return err
				}
			} else {
				their.m[r.Path] = ours.m[r.Path]
			}
			rep.Restored = append(rep.Restored, r.Path)
		}
		their.dirty = their.dirty || len(lostNow) > 0
		lostNow = nil
		l = losses{Since: s.Env.Time()}
	case s.Deletions == AcceptDeletions:
		rep.Deleted = len(lostNow) + len(l.Files)
		lostNow, earlier = nil, nil
		l = losses{Since: s.Env.Time()}
	case stop != nil:
		return stop
	default:
		earlier = nil
	}
	// Two versions of one fact wait for the person to choose: two lines of
	// a line file (the merge keeps both), two versions of a file (see
	// keepBoth).
	unsettled, err := s.unsettledLines(ctx, was, ours, their)
	if err != nil {
		return err
	}
	if both := changedOnBothSides(was, ours, their); len(both) > 0 {
		for _, rel := range both {
			u, err := s.keepBoth(ctx, rel, tip)
			if err != nil {
				return err
			}
			unsettled = append(unsettled, u)
			rep.KeptBoth = append(rep.KeptBoth, rel)
		}
		if err := s.commitLocal(ctx, rep, "ccmem sync: kept both versions of what both machines changed"); err != nil {
			return err
		}
		if ours, err = s.carriedFiles(ctx, "HEAD", nil); err != nil {
			return err
		}
	}
	// What this sync takes away is recorded before it is taken: a sync
	// killed midway leaves nothing gone without a record.
	for _, r := range lostNow {
		r.Sync, r.When = short(tip), s.Env.Time()
		if !slices.ContainsFunc(l.Files, func(x Removed) bool { return x.Path == r.Path && x.Obj == r.Obj }) {
			l.Files = append(l.Files, r)
		}
		if r.How == "lines" {
			rep.RemovedLines += len(r.Lines)
		} else {
			rep.Removed = append(rep.Removed, r.Path)
		}
	}
	if err := writeLosses(s.Env, l); err != nil {
		return err
	}
	if err := addUnsettled(s.Env, unsettled); err != nil {
		return err
	}
	for _, u := range unsettled {
		rep.Unsettled = append(rep.Unsettled, u.Path)
	}
	if err := s.mergeInPlace(ctx, rep, tip, base, was, ours, their, versionTrailers(unsettled)); err != nil {
		return err
	}
	rep.Merged = true
	// Two versions another machine found wait here too (its merge said
	// so); what they mark is only two lines both in the file.
	if err := s.adoptVersions(ctx, rep, base, tip); err != nil {
		return err
	}
	// With --keep-deleted, put back what the syncs before this one took.
	if s.Deletions == KeepDeleted && len(earlier) > 0 {
		unlock, err := store.Lock(s.Env.Store)
		if err != nil {
			return err
		}
		back, err := s.restore(ctx, earlier)
		unlock()
		if err != nil {
			return err
		}
		rep.Restored = append(rep.Restored, back...)
		if err := s.commitLocal(ctx, rep, "ccmem sync: "+s.machine()+" puts back what earlier syncs removed"); err != nil {
			return err
		}
	}
	deduped, err := dedupeUnion(s.Env.Store)
	if err != nil {
		return err
	}
	if len(deduped) > 0 {
		rep.Deduped = append(rep.Deduped, deduped...)
		return s.commitLocal(ctx, rep, "ccmem sync: duplicate lines removed")
	}
	return nil
}

// Deletions is what a sync does when the remote deletes most of the store.
type Deletions int

const (
	// AskFirst refuses the sync, saying so (the default).
	AskFirst Deletions = iota
	// AcceptDeletions applies them: the person said yes.
	AcceptDeletions
	// KeepDeleted keeps the files here and puts them back on the remote.
	KeepDeleted
)

// DeletionError is a remote that deletes most of the store: nothing was
// taken from it, and the person says what to do.
type DeletionError struct {
	Commit, Subject string
	// Deleted is how many memory files the remote's commit takes away
	// (deleted, emptied or moved into the archive), of the Of this machine
	// holds; Earlier how many syncs took away since the person last
	// confirmed (Since; zero: never asked).
	Deleted, Of int
	// Lines is how many lines of MEMORY.md and its topic files it takes
	// out (the files stay).
	Lines   int
	Earlier int
	Since   time.Time
}

func (e *DeletionError) Error() string {
	what := fmt.Sprintf("%d of %d memory files (deleted, emptied or moved to the archive)", e.Deleted, e.Of)
	switch {
	case e.Lines > 0 && e.Deleted == 0:
		what = fmt.Sprintf("%d lines of MEMORY.md and its topic files", e.Lines)
	case e.Lines > 0:
		what += fmt.Sprintf(" and %d lines of MEMORY.md and its topic files", e.Lines)
	}
	msg := fmt.Sprintf("the remote's commit %s %s takes away %s", e.Commit, strconv.Quote(firstChars(e.Subject, 80)), what)
	if e.Earlier > 0 {
		msg += fmt.Sprintf(", after earlier syncs took %d", e.Earlier)
		if !e.Since.IsZero() {
			msg += " since " + e.Since.UTC().Format("2006-01-02")
		}
	}
	return msg + "; nothing was taken from the remote"
}

// firstChars is s cut to n characters.
func firstChars(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}

// file is one file of a commit: its mode, blob and size in bytes.
type file struct {
	mode, obj string
	size      int64
}

// files is what sync carries of one commit's tree, by path. dirty says the
// tree holds more than that (a file sync refused, the remote's own
// .gitignore), so git must not merge the commit itself.
type files struct {
	m       map[string]file
	dirty   bool
	refused []syncstate.Refused
}

// own is ccmem's own files of fs (the .gitignore and .gitattributes).
func (fs files) own() map[string]file {
	own := map[string]file{}
	for rel := range ownFiles {
		if f, ok := fs.m[rel]; ok {
			own[rel] = f
		}
	}
	return own
}

// carriedFiles reads what sync carries of rev's tree. With own set (a
// tree from the remote), ccmem's own files are this machine's, whatever
// the tree holds; with own nil (this machine's HEAD), they are the tree's.
func (s *Syncer) carriedFiles(ctx context.Context, rev string, own map[string]file) (files, error) {
	out, err := s.gitRaw(ctx, nil, "ls-tree", "-r", "-z", "-l", "--full-tree", rev)
	if err != nil {
		return files{}, err
	}
	fs := files{m: map[string]file{}}
	refuse := func(rel, why string) {
		fs.dirty = true
		fs.refused = append(fs.refused, syncstate.Refused{Path: rel, Why: why})
	}
	for _, e := range bytes.Split(out, []byte{0}) {
		// <mode> SP <type> SP <object> SP+ <size> TAB <file>
		meta, name, ok := bytes.Cut(e, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		rel := string(name)
		if len(f) != 4 {
			refuse(rel, "an entry git cannot read")
			continue
		}
		size, _ := strconv.ParseInt(f[3], 10, 64) // "-" for a submodule: refused below
		if ownFiles[rel] && own != nil {
			if o, ok := own[rel]; !ok || o.mode != f[0] || o.obj != f[2] {
				fs.dirty = true // the remote's own version: this machine's stands
			}
			continue
		}
		if _, dup := fs.m[rel]; dup {
			delete(fs.m, rel)
			refuse(rel, "a name the tree holds twice")
			continue
		}
		why := ""
		if !ownFiles[rel] {
			why = carried(rel, f[0])
		}
		if why != "" {
			refuse(rel, why)
			continue
		}
		fs.m[rel] = file{f[0], f[2], size}
	}
	// A file where another file's folder is cannot be written.
	dirs := map[string]bool{}
	for rel := range fs.m {
		for i := strings.IndexByte(rel, '/'); i >= 0; i = next(rel, i) {
			dirs[rel[:i]] = true
		}
	}
	for rel := range fs.m {
		if dirs[rel] {
			delete(fs.m, rel)
			refuse(rel, "a file where a folder is")
		}
	}
	for rel, f := range own {
		fs.m[rel] = f
	}
	slices.SortFunc(fs.refused, func(a, b syncstate.Refused) int { return strings.Compare(a.Path, b.Path) })
	return fs, nil
}

// next is the index of the next "/" in rel after i, or -1.
func next(rel string, i int) int {
	j := strings.IndexByte(rel[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// massive tells a deletion that needs a person's yes: half or more of
// the files there were. (ccmem deletes no memory file by itself:
// forgetting, retiring and retention move files to the archive, which is
// no deletion.)
func massive(deleted, of int) bool {
	return deleted > 0 && 2*deleted >= of
}

// deletionInHistory finds a commit between base and tip that deleted half
// or more of the files its parent had: a remote that deletes the store
// and then lets a machine's honest sync put back what that machine knew
// would otherwise leave the rest deleted, a small deletion as seen from
// here. A file whose contents the commit keeps elsewhere (moved) is no
// deletion; a merge counts what it deleted from its first parent. Trees
// are read as what sync carries of them, so a hostile tree cannot make
// the check fail.
func (s *Syncer) deletionInHistory(ctx context.Context, base, tip string, own map[string]file) (*DeletionError, error) {
	out, err := s.git(ctx, "rev-list", "--parents", base+".."+tip)
	if err != nil {
		return nil, err
	}
	seen := map[string]files{}
	read := func(rev string) (files, error) {
		if fs, ok := seen[rev]; ok {
			return fs, nil
		}
		fs, err := s.carriedFiles(ctx, rev, own)
		seen[rev] = fs
		return fs, err
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue // a root commit deletes nothing
		}
		cur, err := read(f[0])
		if err != nil {
			return nil, err
		}
		parent, err := read(f[1])
		if err != nil {
			return nil, err
		}
		kept := map[string]bool{}
		for rel, x := range cur.m {
			if live(rel) {
				kept[x.obj] = true
			}
		}
		deleted := 0
		for rel, x := range parent.m {
			if _, ok := cur.m[rel]; !ok && live(rel) && !kept[x.obj] {
				deleted++
			}
		}
		if massive(deleted, liveCount(parent)) {
			subject, _ := s.git(ctx, "log", "-1", "--format=%s", f[0])
			return &DeletionError{Commit: short(f[0]), Subject: subject, Deleted: deleted, Of: liveCount(parent)}, nil
		}
	}
	return nil, nil
}

// changedOnBothSides lists the files (line files aside) that ours and
// their both changed since was, to different contents; with no common
// base (a store joining a remote), the files both hold with different
// contents.
func changedOnBothSides(was, ours, their files) []string {
	var out []string
	for rel, o := range ours.m {
		t, ok := their.m[rel]
		if !ok || t.obj == o.obj || isUnion(rel) || ownFiles[rel] || localOnly(rel) {
			continue
		}
		if b, inBase := was.m[rel]; inBase && (b.obj == o.obj || b.obj == t.obj) {
			continue // only one side changed it: the merge takes that side
		}
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

// keepBoth keeps both versions of rel: the newer (by the time of the last
// commit that changed it on each side) at rel, the older in the archive
// with a line saying where it came from, and returns the pair for the
// person to settle. Its name holds the version's blob, so doing it again
// writes nothing new.
func (s *Syncer) keepBoth(ctx context.Context, rel, theirs string) (syncstate.Unsettled, error) {
	ourTime := s.changedAt(ctx, "HEAD", rel)
	theirTime := s.changedAt(ctx, theirs, rel)
	newer, older, olderSide := theirs, "HEAD", "this machine ("+s.machine()+")"
	if ourTime >= theirTime {
		newer, older, olderSide = "HEAD", theirs, "another machine"
	}
	var u syncstate.Unsettled
	oldData, err := s.gitRaw(ctx, nil, "show", older+":"+rel)
	if err != nil {
		return u, err
	}
	newData, err := s.gitRaw(ctx, nil, "show", newer+":"+rel)
	if err != nil {
		return u, err
	}
	blob, _ := s.git(ctx, "rev-parse", older+":"+rel)
	when := time.Unix(min(ourTime, theirTime), 0).UTC()
	ext := path.Ext(rel)
	kept := path.Join(ConflictDir, strings.TrimSuffix(rel, ext)+"."+when.Format("20060102T150405Z")+"-"+short(blob)+ext)
	note := fmt.Sprintf("sync: both machines changed %s; this older version is from %s, %s (the newer is at %s)", rel, olderSide, when.Format(time.RFC3339), rel)
	if err := s.writeFile(kept, withProvenance(oldData, note)); err != nil {
		return u, err
	}
	if newer != "HEAD" {
		if err := s.writeFile(rel, newData); err != nil {
			return u, err
		}
	}
	here := syncstate.Version{From: "this machine (" + s.machine() + ")"}
	there := syncstate.Version{From: "another machine"}
	if newer == "HEAD" {
		here.Text, here.At, there.Text, there.At = preview(newData), rel, preview(oldData), kept
	} else {
		here.Text, here.At, there.Text, there.At = preview(oldData), kept, preview(newData), rel
	}
	u = syncstate.Unsettled{ID: syncstate.UnsettledID(rel, here.Text, there.Text), Path: rel, When: s.Env.Time(), Versions: [2]syncstate.Version{here, there}}
	return u, nil
}

func short(blob string) string { return blob[:min(8, len(blob))] }

// changedAt is the time of the last commit of rev that changed rel.
func (s *Syncer) changedAt(ctx context.Context, rev, rel string) int64 {
	out, _ := s.git(ctx, "log", "-1", "--format=%ct", rev, "--", rel)
	t, _ := strconv.ParseInt(out, 10, 64)
	return t
}

func (s *Syncer) writeFile(rel string, data []byte) error { return writeIn(s.Env, rel, data) }

// withProvenance adds an archived_reason to a file's frontmatter (a
// Markdown entry), or leaves a file without one as it is: its place in
// the archive and its name say where it came from.
func withProvenance(data []byte, note string) []byte {
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return data
	}
	return append([]byte("---\narchived_reason: "+strconv.Quote(note)+"\n"), data[len("---\n"):]...)
}

// dedupeUnion removes repeated lines from the line files a union merge
// may have doubled: the first of equal non-blank lines stays.
func dedupeUnion(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, de := range ents {
		if !de.Type().IsRegular() || !isUnion(de.Name()) {
			continue
		}
		p := filepath.Join(root, de.Name())
		data, err := store.ReadSmallFile(p, 16<<20)
		if err != nil {
			continue
		}
		seen := map[string]bool{}
		var out []string
		lines := strings.SplitAfter(string(data), "\n")
		for _, l := range lines {
			key := strings.TrimRight(l, "\r\n")
			if strings.TrimSpace(key) != "" {
				if seen[key] {
					continue
				}
				seen[key] = true
			}
			out = append(out, l)
		}
		if nd := strings.Join(out, ""); nd != string(data) {
			if err := store.WriteFileAtomic(p, []byte(nd)); err != nil {
				return changed, err
			}
			changed = append(changed, de.Name())
		}
	}
	return changed, nil
}

// mergeInPlace merges theirs into HEAD without git writing the store's
// files: the merge is made in git's object store (merge-tree), whatever
// it could not decide is settled there (a file changed on one side and
// deleted on the other is kept; a hunk both changed takes this side's,
// which integrate made the newer), and only then are the files that
// changed written into the store, each atomically, under the store's lock
// (ccmem's writers take it), and the branch moved last. A file written
// here since the last commit is left as it is, for the next sync. Killed
// at any moment, the store holds whole files, and what was not yet moved
// is taken up by the next sync.
//
// When a tree holds more than sync carries, git merges copies of the
// three commits that hold only what sync carries, so a hostile tree never
// reaches git's merge; the result still has theirs as a parent, so the
// push that follows is a fast-forward for the remote.
func (s *Syncer) mergeInPlace(ctx context.Context, rep *syncstate.Report, theirs, base string, was, ours, their files, trailers string) error {
	left, right := "HEAD", theirs
	if was.dirty || ours.dirty || their.dirty {
		var parent []string
		if base != "" {
			b, err := s.commitFiles(ctx, was, nil)
			if err != nil {
				return err
			}
			parent = []string{"-p", b}
		}
		var err error
		if left, err = s.commitFiles(ctx, ours, parent); err != nil {
			return err
		}
		if right, err = s.commitFiles(ctx, their, parent); err != nil {
			return err
		}
	}
	// Each memory file is its own: no rename detection. With it, git may
	// take a remote's move of a folder's files (sessions into archive/)
	// as the folder's new place and carry there what this machine added
	// to the folder since (in git's own hands: a "file location"
	// conflict); the torture lost a session that way (foundSeeds).
	args := []string{"-c", "merge.renames=false", "-c", "merge.directoryRenames=false", "merge-tree", "--write-tree", "-z"}
	if base == "" {
		args = append(args, "--allow-unrelated-histories")
	}
	out, err := s.gitRaw(ctx, nil, append(args, left, right)...)
	var ge *GitError
	conflicted := err != nil && errors.As(err, &ge) && len(out) > 0
	if err != nil && !conflicted {
		return err
	}
	fields := bytes.Split(out, []byte{0})
	tree := string(fields[0])
	if conflicted {
		if tree, err = s.settle(ctx, tree, fields[1:]); err != nil {
			return err
		}
	}
	head, err := s.git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	var commit string
	if _, err := s.git(ctx, "merge-base", "--is-ancestor", head, theirs); err == nil && !their.dirty {
		commit = theirs // nothing new here: fast-forward
	} else if commit, err = s.git(ctx, append(s.identity(ctx), "commit-tree", tree, "-p", head, "-p", theirs, "-m", "ccmem sync: "+s.machine()+" integrates the other machines"+trailers)...); err != nil {
		return err
	}
	if err := s.apply(ctx, rep, head, commit); err != nil {
		return err
	}
	if _, err := s.git(ctx, "update-ref", "-m", "ccmem sync: merge", "refs/heads/"+Branch, commit, head); err != nil {
		return err
	}
	_, err = s.git(ctx, "reset", "-q") // the index follows the branch; files are not touched
	return err
}

// commitFiles writes fs as a tree and a commit of it (with parent, "-p"
// and a commit, or none), for git to merge in place of a commit whose
// tree holds more than sync carries.
func (s *Syncer) commitFiles(ctx context.Context, fs files, parent []string) (string, error) {
	var info bytes.Buffer
	for rel, f := range fs.m {
		fmt.Fprintf(&info, "%s %s\t%s\x00", f.mode, f.obj, rel)
	}
	tree, err := s.withIndex(ctx, func() (string, error) {
		if _, err := s.gitRaw(ctx, info.Bytes(), "update-index", "-z", "--index-info"); err != nil {
			return "", err
		}
		return s.git(ctx, "write-tree")
	})
	if err != nil {
		return "", err
	}
	args := append(append(s.identity(ctx), "commit-tree", tree), parent...)
	return s.git(ctx, append(args, "-m", "ccmem sync: the files sync carries")...)
}

// withIndex runs f with git using an index of its own, empty at first, so
// the store's index is never touched.
func (s *Syncer) withIndex(ctx context.Context, f func() (string, error)) (string, error) {
	idx := filepath.Join(s.Env.Store, ".git", "ccmem-merge-index")
	os.Remove(idx)
	defer os.Remove(idx)
	env := s.Environ
	s.Environ = append(append([]string{}, env...), "GIT_INDEX_FILE="+idx)
	defer func() { s.Environ = env }()
	return f()
}

// keepAnchors records, in each remote key's anchors this machine has seen
// (store.AddAnchors), the repository.json this machine held (ours, and
// the common base), so that a remote that rewrites it cannot unbind the
// clone; a store joining a remote records every version its history held
// before (the first is the machine's that claimed the key).
func (s *Syncer) keepAnchors(ctx context.Context, tip string, was, ours, their files, joining bool) error {
	blobs := map[string][]string{} // key → blobs of its repository.json
	add := func(rel string, f file, ok bool) {
		parts := strings.Split(rel, "/")
		if ok && len(parts) == 3 && parts[0] == "projects" && parts[2] == "repository.json" && !slices.Contains(blobs[parts[1]], f.obj) {
			blobs[parts[1]] = append(blobs[parts[1]], f.obj)
		}
	}
	for rel, f := range ours.m {
		add(rel, f, true)
	}
	for rel, f := range was.m {
		add(rel, f, true)
	}
	if joining {
		for rel := range their.m {
			if parts := strings.Split(rel, "/"); len(parts) != 3 || parts[0] != "projects" || parts[2] != "repository.json" {
				continue
			}
			out, err := s.git(ctx, "log", "--format=", "--raw", "--no-abbrev", "--no-renames", tip, "--", rel)
			if err != nil {
				return err
			}
			for _, line := range strings.Split(out, "\n") {
				// :<old mode> <new mode> <old> <new> <status>\t<path>
				if f := strings.Fields(line); len(f) >= 5 && strings.Trim(f[3], "0") != "" {
					add(rel, file{obj: f[3]}, true)
				}
			}
		}
	}
	for key, objs := range blobs {
		data, err := s.blobs(ctx, objs)
		if err != nil {
			return err
		}
		var commits []string
		for _, d := range data {
			var a store.Anchor
			if json.Unmarshal(d, &a) == nil && a.Commit != "" {
				commits = append(commits, a.Commit)
			}
		}
		if err := store.AddAnchors(s.Env, key, commits); err != nil && store.ValidKey(key) {
			return err
		}
	}
	return nil
}

// TestOnlyBeforeApply, when set (tests only), runs as a merge starts
// writing the store: a write of this machine's at that moment.
var TestOnlyBeforeApply func()

// change is a file a merge changed: its path and its blob before and
// after ("" for none). merged marks a line file whose new text was merged
// here with a write made meanwhile (new then keys that text, not a blob).
type change struct {
	rel, old, new string
	merged        bool
}

// applyBatch is how many files apply writes under one hold of the
// store's lock: ccmem's writers wait at most that long.
const applyBatch = 256

// apply writes into the store the files commit changed from head: each
// whole (atomically), a batch at a time under the store's lock (ccmem's
// writers take it), their contents read from git a batch at a time and
// this machine's files hashed here — a few git processes for thousands of
// files. A file written here since head (it is not what head holds) is
// left as it is, for the next sync; what sync does not carry, and this
// machine's settings, are neither written nor deleted.
func (s *Syncer) apply(ctx context.Context, rep *syncstate.Report, head, commit string) error {
	if TestOnlyBeforeApply != nil {
		TestOnlyBeforeApply()
	}
	diff, err := s.gitRaw(ctx, nil, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", head, commit)
	if err != nil {
		return err
	}
	format, err := s.git(ctx, "rev-parse", "--show-object-format")
	if err != nil {
		return err
	}
	var changes []change
	items := bytes.Split(bytes.TrimRight(diff, "\x00"), []byte{0})
	for i := 0; i+1 < len(items); i += 2 {
		// :<old mode> <new mode> <old object> <new object> <status>, then the path
		f := strings.Fields(strings.TrimPrefix(string(items[i]), ":"))
		rel := string(items[i+1])
		if len(f) != 5 {
			continue
		}
		if !ownFiles[rel] && carriedPath(rel) != "" || localOnly(rel) {
			continue // never written nor deleted: not a file sync carries, or this machine's setting
		}
		c := change{rel: rel, old: f[2], new: f[3]}
		if strings.Trim(c.old, "0") == "" {
			c.old = ""
		}
		if strings.Trim(c.new, "0") == "" {
			c.new = ""
		}
		changes = append(changes, c)
	}
	for len(changes) > 0 {
		batch := changes[:min(applyBatch, len(changes))]
		changes = changes[len(batch):]
		var want []string
		for _, c := range batch {
			if c.new != "" {
				want = append(want, c.new)
			}
			if c.old != "" && isUnion(c.rel) {
				want = append(want, c.old) // to merge a write made here meanwhile
			}
		}
		blobs, err := s.blobs(ctx, want)
		if err != nil {
			return err
		}
		unlock, err := store.Lock(s.Env.Store)
		if err != nil {
			return err
		}
		// What will be written: not through a symlink, not over a file
		// written here since the last commit (the next sync takes it).
		var write []change
		for _, c := range batch {
			p := filepath.Join(s.Env.Store, filepath.FromSlash(c.rel))
			if err := store.CheckIn(s.Env.Store, p); err != nil {
				if errors.Is(err, store.ErrSymlink) {
					// A folder the person linked elsewhere (into their
					// dotfiles): never written through, said, and the
					// rest goes on.
					rep.Refused = append(rep.Refused, syncstate.Refused{Commit: short(commit), Path: c.rel,
						Why: "not written here: a folder on its way is a symlink on this machine, and sync never writes through one"})
					continue
				}
				unlock()
				return err
			}
			switch {
			case hashFile(p, format) == c.old:
				write = append(write, c)
			case c.new == "":
				// Deleted there, written here since: this machine's stands.
			case isUnion(c.rel):
				// A line file written here since head (a fact remembered
				// while this sync ran): the merge's lines with what was
				// written here meanwhile, so that moving the branch does
				// not leave the file without the other machine's lines for
				// the next commit to take away (issue 47, finding 8).
				now, err := store.ReadSmallFile(p, maxLineFile)
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					unlock()
					return err
				}
				blobs[c.rel] = withLocalEdits(blobs[c.new], blobs[c.old], now)
				blobs["here:"+c.rel] = now
				c.new, c.merged = c.rel, true
				write = append(write, c)
			default:
				// Another file written here since head: this machine's
				// stands, and the other machine's version is kept in the
				// archive, named, for the person to settle.
				kept := path.Join(ConflictDir, strings.TrimSuffix(c.rel, path.Ext(c.rel))+"."+s.Env.Time().UTC().Format("20060102T150405Z")+"-"+short(c.new)+path.Ext(c.rel))
				if err := s.writeFile(kept, withProvenance(blobs[c.new], "sync: written on this machine while a sync merged another machine's version of "+c.rel+"; this is that version")); err != nil {
					unlock()
					return err
				}
				rep.KeptBoth = append(rep.KeptBoth, c.rel)
			}
		}
		// Who wrote it is recorded before it is written: a sync killed
		// between leaves nothing that passes for the person's.
		if err := s.noteOrigins(ctx, write, blobs); err != nil {
			unlock()
			return err
		}
		for _, c := range write {
			p := filepath.Join(s.Env.Store, filepath.FromSlash(c.rel))
			if c.new == "" {
				if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
					unlock()
					return err
				}
				continue
			}
			if err := s.writeFile(c.rel, blobs[c.new]); err != nil {
				unlock()
				return err
			}
		}
		unlock()
	}
	return nil
}

// withLocalEdits is merged, a line file's text after a merge, with the
// edits made here to it since head (the lines written here that head did
// not hold, at the end; the lines taken out here that head held, taken
// out).
func withLocalEdits(merged, head, now []byte) []byte {
	had, has := map[string]bool{}, map[string]bool{}
	for _, l := range splitLines(head) {
		had[l] = true
	}
	for _, l := range splitLines(now) {
		has[l] = true
	}
	var out []string
	in := map[string]bool{}
	for _, l := range splitLines(merged) {
		if had[l] && !has[l] && strings.TrimSpace(l) != "" {
			continue // taken out here
		}
		out = append(out, l)
		in[l] = true
	}
	for _, l := range splitLines(now) {
		if !had[l] && !in[l] {
			out = append(out, l)
			in[l] = true
		}
	}
	if len(out) == 0 {
		return nil
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// noteOrigins records, in this machine's provenance ledger, that what a
// sync writes comes from another machine: the lines a line file gains, and
// the learned entries and review items written. It is memory, shown as
// what it is, and no standing rule until the person here accepts it.
func (s *Syncer) noteOrigins(ctx context.Context, written []change, have map[string][]byte) error {
	by := provenance.Origin{By: provenance.Machine, Via: "sync", At: s.Env.Time()}
	var files, olds []string
	var lineFiles []change
	for _, c := range written {
		switch {
		case isUnion(c.rel):
			lineFiles = append(lineFiles, c)
			if c.old != "" {
				olds = append(olds, c.old)
			}
		case c.new != "" && (strings.HasPrefix(c.rel, "learned/") || strings.HasPrefix(c.rel, "review/")):
			files = append(files, filepath.Join(s.Env.Store, filepath.FromSlash(c.rel)))
		}
	}
	if err := provenance.NoteFile(s.Env, by, files...); err != nil {
		return err
	}
	if len(lineFiles) == 0 {
		return nil
	}
	var want []string
	for _, o := range olds {
		if _, ok := have[o]; !ok {
			want = append(want, o)
		}
	}
	for _, c := range lineFiles {
		if _, ok := have[c.new]; !ok {
			want = append(want, c.new)
		}
	}
	blobs, err := s.blobs(ctx, want)
	if err != nil {
		return err
	}
	maps.Copy(blobs, have)
	for _, c := range lineFiles {
		// Every line that holds words, whatever its shape, that the file
		// did not hold (by its canonical form, as every reader knows it),
		// nor holds here now (a line written here meanwhile is not the
		// other machine's).
		had := map[string]bool{}
		for _, l := range strings.Split(string(blobs[c.old])+"\n"+string(blobs["here:"+c.rel]), "\n") {
			had[provenance.Canonical(l)] = true
		}
		var gained []string
		for _, l := range strings.Split(string(blobs[c.new]), "\n") {
			if k := provenance.Canonical(l); k != "" && !had[k] {
				had[k] = true
				gained = append(gained, l)
			}
		}
		if err := provenance.Note(s.Env, filepath.Join(s.Env.Store, filepath.FromSlash(c.rel)), gained, by); err != nil {
			return err
		}
	}
	return nil
}

// blobs reads the contents of objects from git, in one process.
func (s *Syncer) blobs(ctx context.Context, objs []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(objs) == 0 {
		return out, nil
	}
	data, err := s.gitRaw(ctx, []byte(strings.Join(objs, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	for len(data) > 0 {
		// <object> SP <type> SP <size> LF <contents> LF
		line, rest, ok := bytes.Cut(data, []byte{'\n'})
		f := strings.Fields(string(line))
		if !ok || len(f) != 3 || f[1] != "blob" {
			return nil, fmt.Errorf("git cat-file: unexpected %q", firstChars(string(line), 80))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || n+1 > len(rest) {
			return nil, fmt.Errorf("git cat-file: a blob cut short")
		}
		out[f[0]] = rest[:n]
		data = rest[n+1:]
	}
	return out, nil
}

// hashFile is the git object id of the file at path as a blob ("" when
// there is no regular file there), in the repository's object format.
func hashFile(path, format string) string {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "?" // unreadable: never what a commit holds
	}
	var h hash.Hash = sha1.New()
	if format == "sha256" {
		h = sha256.New()
	}
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// settle resolves what merge-tree left conflicted in tree: each
// conflicted path takes this side's version (stage 2) when it has one,
// else theirs (a file deleted here and changed there is kept). The
// entries after the tree are "<mode> <object> <stage>\t<path>", then an
// empty field and the messages.
func (s *Syncer) settle(ctx context.Context, tree string, entries [][]byte) (string, error) {
	type pick struct {
		mode, obj string
		stage     int
	}
	chosen := map[string]pick{}
	for _, e := range entries {
		if len(e) == 0 {
			break // the messages follow
		}
		meta, path, ok := bytes.Cut(e, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 {
			continue
		}
		st, _ := strconv.Atoi(f[2])
		if st < 2 {
			continue
		}
		cur, seen := chosen[string(path)]
		if !seen || st == 2 || cur.stage != 2 {
			if !seen || st == 2 {
				chosen[string(path)] = pick{f[0], f[1], st}
			}
		}
	}
	return s.withIndex(ctx, func() (string, error) {
		if _, err := s.git(ctx, "read-tree", tree); err != nil {
			return "", err
		}
		var info bytes.Buffer
		for path, p := range chosen {
			fmt.Fprintf(&info, "%s %s\t%s\x00", p.mode, p.obj, path)
		}
		if _, err := s.gitRaw(ctx, info.Bytes(), "update-index", "-z", "--index-info"); err != nil {
			return "", err
		}
		return s.git(ctx, "write-tree")
	})
}
