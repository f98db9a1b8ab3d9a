package gitsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/syncstate"
)

// ConflictDir is where the older of two versions of a file both machines
// changed is kept, under the file's own path.
const ConflictDir = "archive/sync"

// isUnion tells a line file, merged as a union of lines (.gitattributes).
func isUnion(rel string) bool { return !strings.Contains(rel, "/") && strings.HasSuffix(rel, ".md") }

// integrate merges theirs into HEAD with nothing to merge by hand. First,
// for each file both sides changed differently (line files aside), both
// versions are kept: the older is written to the archive with where it
// came from, and the newer is what this side commits, so the merge that
// follows has nothing to decide; each step is a commit, so a sync killed
// between them redoes only what is left. Then the merge (see
// mergeInPlace), and the union files' duplicate lines removed.
func (s *Syncer) integrate(ctx context.Context, rep *syncstate.Report, theirs string) error {
	if _, err := s.git(ctx, "merge-base", "--is-ancestor", theirs, "HEAD"); err == nil {
		return nil // nothing new there
	}
	base, _ := s.git(ctx, "merge-base", "HEAD", theirs)
	if base == "" {
		rep.Joined = true
	}
	both, err := s.changedOnBothSides(ctx, base, theirs)
	if err != nil {
		return err
	}
	if len(both) > 0 {
		for _, rel := range both {
			if err := s.keepBoth(ctx, rel, theirs); err != nil {
				return err
			}
			rep.KeptBoth = append(rep.KeptBoth, rel)
		}
		if err := s.commitLocal(ctx, rep, "ccmem sync: kept both versions of what both machines changed"); err != nil {
			return err
		}
	}
	if err := s.mergeInPlace(ctx, theirs, base == ""); err != nil {
		return err
	}
	rep.Merged = true
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

// changedOnBothSides lists the files (line files aside) that HEAD and
// theirs both changed since base, to different contents; with no common
// base (a store joining a remote), the files both hold with different
// contents.
func (s *Syncer) changedOnBothSides(ctx context.Context, base, theirs string) ([]string, error) {
	ours, err := s.blobs(ctx, "HEAD")
	if err != nil {
		return nil, err
	}
	their, err := s.blobs(ctx, theirs)
	if err != nil {
		return nil, err
	}
	var was map[string]string
	if base != "" {
		if was, err = s.blobs(ctx, base); err != nil {
			return nil, err
		}
	}
	var out []string
	for rel, o := range ours {
		t, ok := their[rel]
		if !ok || t == o || isUnion(rel) || rel == ".gitignore" || rel == ".gitattributes" {
			continue
		}
		if b, inBase := was[rel]; inBase && (b == o || b == t) {
			continue // only one side changed it: the merge takes that side
		}
		out = append(out, rel)
	}
	slices.Sort(out)
	return out, nil
}

// blobs maps every file of a commit to its blob.
func (s *Syncer) blobs(ctx context.Context, rev string) (map[string]string, error) {
	out, err := s.gitRaw(ctx, nil, "ls-tree", "-r", "-z", rev)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, e := range bytes.Split(out, []byte{0}) {
		// <mode> SP <type> SP <object> TAB <file>
		meta, name, ok := bytes.Cut(e, []byte{'\t'})
		if !ok {
			continue
		}
		f := bytes.Fields(meta)
		if len(f) == 3 && string(f[1]) == "blob" {
			m[string(name)] = string(f[2])
		}
	}
	return m, nil
}

// keepBoth keeps both versions of rel: the newer (by the time of the last
// commit that changed it on each side) at rel, the older in the archive
// with a line saying where it came from. Its name holds the version's
// blob, so doing it again writes nothing new.
func (s *Syncer) keepBoth(ctx context.Context, rel, theirs string) error {
	ourTime := s.changedAt(ctx, "HEAD", rel)
	theirTime := s.changedAt(ctx, theirs, rel)
	newer, older, olderSide := theirs, "HEAD", "this machine ("+s.machine()+")"
	if ourTime >= theirTime {
		newer, older, olderSide = "HEAD", theirs, "another machine"
	}
	oldData, err := s.gitRaw(ctx, nil, "show", older+":"+rel)
	if err != nil {
		return err
	}
	blob, _ := s.git(ctx, "rev-parse", older+":"+rel)
	when := time.Unix(min(ourTime, theirTime), 0).UTC()
	ext := path.Ext(rel)
	kept := path.Join(ConflictDir, strings.TrimSuffix(rel, ext)+"."+when.Format("20060102T150405Z")+"-"+short(blob)+ext)
	note := fmt.Sprintf("sync: both machines changed %s; this older version is from %s, %s (the newer is at %s)", rel, olderSide, when.Format(time.RFC3339), rel)
	if err := s.writeFile(kept, withProvenance(oldData, note)); err != nil {
		return err
	}
	if newer != "HEAD" {
		data, err := s.gitRaw(ctx, nil, "show", newer+":"+rel)
		if err != nil {
			return err
		}
		return s.writeFile(rel, data)
	}
	return nil
}

func short(blob string) string { return blob[:min(8, len(blob))] }

// changedAt is the time of the last commit of rev that changed rel.
func (s *Syncer) changedAt(ctx context.Context, rev, rel string) int64 {
	out, _ := s.git(ctx, "log", "-1", "--format=%ct", rev, "--", rel)
	t, _ := strconv.ParseInt(out, 10, 64)
	return t
}

func (s *Syncer) writeFile(rel string, data []byte) error {
	p := filepath.Join(s.Env.Store, filepath.FromSlash(rel))
	if err := store.CheckIn(s.Env.Store, p); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return store.WriteFileAtomic(p, data)
}

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
func (s *Syncer) mergeInPlace(ctx context.Context, theirs string, unrelated bool) error {
	args := []string{"merge-tree", "--write-tree", "-z"}
	if unrelated {
		args = append(args, "--allow-unrelated-histories")
	}
	out, err := s.gitRaw(ctx, nil, append(args, "HEAD", theirs)...)
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
	if _, err := s.git(ctx, "merge-base", "--is-ancestor", head, theirs); err == nil {
		commit, err = s.git(ctx, "rev-parse", theirs) // nothing new here: fast-forward
		if err != nil {
			return err
		}
	} else if commit, err = s.git(ctx, append(s.identity(ctx), "commit-tree", tree, "-p", head, "-p", theirs, "-m", "ccmem sync: "+s.machine()+" integrates the other machines")...); err != nil {
		return err
	}
	unlock, err := store.Lock(s.Env.Store)
	if err != nil {
		return err
	}
	defer unlock()
	diff, err := s.gitRaw(ctx, nil, "diff", "--no-renames", "--name-status", "-z", head, commit)
	if err != nil {
		return err
	}
	items := bytes.Split(bytes.TrimRight(diff, "\x00"), []byte{0})
	for i := 0; i+1 < len(items); i += 2 {
		status, rel := string(items[i]), string(items[i+1])
		p := filepath.Join(s.Env.Store, filepath.FromSlash(rel))
		if err := store.CheckIn(s.Env.Store, p); err != nil {
			return err
		}
		if !s.unchangedSince(ctx, head, rel, p) {
			continue // written here since the last commit: the next sync takes it
		}
		if status == "D" {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		data, err := s.gitRaw(ctx, nil, "cat-file", "blob", commit+":"+rel)
		if err != nil {
			return err
		}
		if err := s.writeFile(rel, data); err != nil {
			return err
		}
	}
	if _, err := s.git(ctx, "update-ref", "-m", "ccmem sync: merge", "refs/heads/"+Branch, commit, head); err != nil {
		return err
	}
	_, err = s.git(ctx, "reset", "-q") // the index follows the branch; files are not touched
	return err
}

// unchangedSince tells whether the store's file rel (at p) is what commit
// holds (or absent from both).
func (s *Syncer) unchangedSince(ctx context.Context, commit, rel, p string) bool {
	want, err := s.git(ctx, "rev-parse", "-q", "--verify", commit+":"+rel)
	data, rerr := os.ReadFile(p)
	if err != nil || want == "" {
		return errors.Is(rerr, fs.ErrNotExist)
	}
	if rerr != nil {
		return false
	}
	got, err := s.gitRaw(ctx, data, "hash-object", "--stdin")
	return err == nil && strings.TrimSpace(string(got)) == want
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
	idx := filepath.Join(s.Env.Store, ".git", "ccmem-merge-index")
	defer os.Remove(idx)
	env := s.Environ
	s.Environ = append(append([]string{}, env...), "GIT_INDEX_FILE="+idx)
	defer func() { s.Environ = env }()
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
}
