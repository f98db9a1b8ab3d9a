package session

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ccmem/ccmem/pkg/store"
)

// INDEX.md is derived data: the menu of the project's episodes. A kill
// between writing episodes and rewriting it, a full disk, a folder or a
// symlink in its place, leave it disagreeing with episodes/; HealIndex makes
// it agree again, so no session drops out of the menu for good and no line
// points at an episode that moved to the archive.

// HealIndex rewrites INDEX.md when it does not list exactly the episodes in
// episodes/: lines whose episode is gone are dropped, an episode without a
// line gets one (from its record), and an unreadable INDEX.md is rebuilt
// whole. It takes the project lock only when something is to change, and
// reports whether it changed INDEX.md.
func HealIndex(ctx context.Context, e store.Env, key string) (bool, error) {
	l, err := listEpisodes(e, key)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, nil // no listing, nothing to heal from
	}
	return healIndex(ctx, e, key, l.names)
}

// healIndex is HealIndex with episodes/ already listed; it lists again
// only when it has something to change, under the lock.
func healIndex(ctx context.Context, e store.Env, key string, names []string) (bool, error) {
	if consistent, _ := indexAgrees(e, key, names); consistent {
		return false, nil
	}
	unlock, err := store.Lock(e.ProjectDir(key))
	if err != nil {
		return false, err
	}
	defer unlock()
	l, err := listEpisodes(e, key)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	consistent, st := indexAgrees(e, key, l.names)
	if consistent {
		return false, nil
	}
	pdir, path := e.ProjectDir(key), e.IndexPath(key)
	if st.unusable {
		// Not a file of ccmem's (a symlink, a FIFO): it goes, and the menu
		// is written anew. A folder there stays, and so does the problem.
		if fi, err := os.Lstat(path); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
			_ = os.Remove(path)
		}
	}
	var lines []string
	kept := map[string]bool{}
	for _, l := range st.lines {
		if name := lineEpisode(l); st.episodes[name] && !kept[name] {
			kept[name] = true
			lines = append(lines, l)
		}
	}
	for name := range st.episodes {
		if ctx.Err() != nil {
			break
		}
		if kept[name] {
			continue
		}
		c, err := readCheckpoint(pdir, filepath.Join(e.EpisodesDir(key), name))
		if err != nil {
			continue // a damaged episode has no line (ccmem episodes reports it)
		}
		lines = append(lines, IndexLine(c, name))
	}
	sort.SliceStable(lines, func(i, j int) bool { return lineEpisode(lines[i]) > lineEpisode(lines[j]) })
	out := strings.Join(lines, "\n")
	if out != "" {
		out += "\n"
	}
	return true, store.WriteFileAtomicIn(pdir, path, []byte(out))
}

// indexState is INDEX.md against episodes/.
type indexState struct {
	lines    []string        // INDEX.md's lines
	listed   map[string]bool // episodes INDEX.md names
	episodes map[string]bool // episode files present
	unusable bool            // INDEX.md could not be read
}

// indexAgrees tells whether INDEX.md names each of the episodes (the
// files in episodes/) once and nothing else.
func indexAgrees(e store.Env, key string, episodes []string) (bool, indexState) {
	st := indexState{listed: map[string]bool{}, episodes: make(map[string]bool, len(episodes))}
	pdir := e.ProjectDir(key)
	for _, n := range episodes {
		st.episodes[n] = true
	}
	data, err := store.ReadFileIn(pdir, e.IndexPath(key), 64<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		st.unusable = true
		return false, st
	}
	dup := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		name := lineEpisode(l)
		if st.listed[name] {
			dup = true
		}
		st.listed[name] = true
		st.lines = append(st.lines, l)
	}
	if dup || len(st.listed) != len(st.episodes) {
		return false, st
	}
	for name := range st.episodes {
		if !st.listed[name] {
			return false, st
		}
	}
	return !slices.ContainsFunc(st.lines, func(l string) bool { return lineEpisode(l) == "" }), st
}
