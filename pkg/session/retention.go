package session

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
)

// episodeList is one unsorted pass over a project's episodes/ folder: a
// start lists it once, however many files it holds, and retention and the
// INDEX.md check share the listing.
type episodeList struct {
	names []string // episode files: regular, *.json, not hidden
	temps []string // leftovers of interrupted writes (see store.IsTemp)
}

// isEpisodeName tells an episode file's name from anything else there.
func isEpisodeName(n string) bool { return strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") }

func listEpisodes(e store.Env, key string) (episodeList, error) {
	var l episodeList
	err := store.ScanDirIn(e.ProjectDir(key), e.EpisodesDir(key), func(de fs.DirEntry) {
		switch n := de.Name(); {
		case !de.Type().IsRegular():
		case isEpisodeName(n):
			l.names = append(l.names, n)
		case store.IsTemp(n):
			l.temps = append(l.temps, n)
		}
	})
	return l, err
}

// ApplyRetention moves a project's episodes older than retention_days, or
// beyond its newest max_episodes, to the project's archive/ folder (never
// deleting them) and drops their INDEX.md lines; it also removes leftovers
// of interrupted writes. With dryRun it only reports. It stops when ctx is
// done.
func ApplyRetention(ctx context.Context, e store.Env, key string, cfg config.Config, dryRun bool) (ArchiveReport, error) {
	rep, _, err := applyRetention(ctx, e, key, cfg, dryRun, true)
	return rep, err
}

// Maintain is what a session start does to a project's episodes: retention
// (see ApplyRetention), then HealIndex, over one listing of episodes/. It
// reports whether it rewrote INDEX.md to heal it. With report, the
// returned report names each episode moved; a session start does not ask,
// so moving 100,000 costs no list of their paths.
func Maintain(ctx context.Context, e store.Env, key string, cfg config.Config, report bool) (ArchiveReport, bool, error) {
	rep, l, err := applyRetention(ctx, e, key, cfg, false, report)
	if err != nil || l == nil {
		return rep, false, err
	}
	healed, err := healIndex(ctx, e, key, l.names)
	return rep, healed, err
}

// applyRetention is ApplyRetention; it also returns the listing of
// episodes/ as retention left it (nil when there is none).
func applyRetention(ctx context.Context, e store.Env, key string, cfg config.Config, dryRun, report bool) (ArchiveReport, *episodeList, error) {
	var rep ArchiveReport
	pdir := e.ProjectDir(key)
	if !dryRun {
		for _, d := range []string{pdir, e.CheckpointsDir(key)} {
			rep.Cleaned = append(rep.Cleaned, store.Tidy(d)...)
		}
	}
	l, err := listEpisodes(e, key)
	if errors.Is(err, fs.ErrNotExist) {
		return rep, &episodeList{}, nil
	}
	if err != nil {
		return rep, nil, err
	}
	if !dryRun {
		rep.Cleaned = append(rep.Cleaned, store.TidyListed(e.EpisodesDir(key), l.temps)...)
	}
	move := retire(l.names, e.Time(), cfg, func() map[string]bool { return newestOfAPerson(e, key, l.names, cfg.KeepNewest) })
	if len(move) == 0 {
		return rep, &l, nil
	}
	if dryRun {
		for _, n := range move {
			rep.Moved = append(rep.Moved, filepath.Join(e.EpisodesDir(key), n))
		}
		return rep, &l, nil
	}
	unlock, err := store.Lock(pdir)
	if err != nil {
		return rep, nil, err
	}
	defer unlock()
	archive := e.EpisodeArchiveDir(key)
	if err := store.CheckIn(pdir, archive); err != nil {
		return rep, nil, err
	}
	if err := os.MkdirAll(archive, 0o700); err != nil {
		return rep, nil, err
	}
	mover, err := store.OpenMover(e.EpisodesDir(key), archive)
	if err != nil {
		return rep, nil, err
	}
	defer mover.Close()
	moved := move[:0:0]
	var moveErr error
	for _, n := range move {
		if ctx.Err() != nil {
			break
		}
		if err := mover.Move(n); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // moved meanwhile by another run
			}
			moveErr = err
			break
		}
		moved = append(moved, n)
		if report {
			rep.Moved = append(rep.Moved, filepath.Join(e.EpisodesDir(key), n))
		}
	}
	// INDEX.md loses the lines of what moved, even when a move failed.
	gone := inSorted(moved)
	if err := editIndex(e, key, nil, gone); err != nil {
		return rep, nil, err
	}
	if moveErr != nil {
		return rep, nil, moveErr
	}
	l.names = slices.DeleteFunc(l.names, gone)
	return rep, &l, nil
}

// inSorted is membership in names, which it sorts: a binary search, so a
// set of 100,000 names costs no map.
func inSorted(names []string) func(string) bool {
	slices.Sort(names)
	return func(n string) bool {
		_, ok := slices.BinarySearch(names, n)
		return ok
	}
}

// retire picks the episodes retention moves to the archive, oldest first:
// older than retention_days — but never the newest keep_newest sessions of
// a person, which keep asks for only when age would move one — or beyond
// the newest max_episodes. At or under max_episodes with none too old, it
// costs one pass and no sort.
func retire(names []string, now time.Time, cfg config.Config, keep func() map[string]bool) []string {
	// Names start with a fixed-width UTC stamp, so they compare as times.
	cutoff := now.UTC().AddDate(0, 0, -cfg.RetentionDays).Format(stampLayout)
	tooOld := func(n string) bool {
		if len(n) < len(stampLayout) || n[:len(stampLayout)] >= cutoff {
			return false
		}
		_, err := time.Parse(stampLayout, n[:len(stampLayout)])
		return err == nil
	}
	if len(names) <= cfg.MaxEpisodes && !slices.ContainsFunc(names, tooOld) {
		return nil
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	over := max(0, len(sorted)-cfg.MaxEpisodes) // the oldest beyond the newest max_episodes
	var kept map[string]bool
	if cfg.KeepNewest > 0 && keep != nil && slices.ContainsFunc(sorted[over:], tooOld) {
		kept = keep()
	}
	var move []string
	for i, n := range sorted {
		if i < over || tooOld(n) && !kept[n] {
			move = append(move, n)
		}
	}
	return move
}

// newestOfAPerson names the newest n episodes that are a person's
// sessions, as INDEX.md says (its lines mark automated runs); when
// INDEX.md cannot be read, the newest n episodes.
func newestOfAPerson(e store.Env, key string, names []string, n int) map[string]bool {
	out := map[string]bool{}
	if f, _, err := store.OpenIn(e.ProjectDir(key), e.IndexPath(key)); err == nil {
		defer f.Close()
		present := inSorted(slices.Clone(names))
		if m, err := ReadMenu(io.LimitReader(f, 64<<20), n); err == nil {
			for _, l := range m.Lines {
				if ep := lineEpisode(l); present(ep) {
					out[ep] = true
				}
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	for _, ep := range sorted[max(0, len(sorted)-n):] {
		out[ep] = true
	}
	return out
}
