package session

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
	"github.com/ccmem/ccmem/pkg/triage"
)

// Episode files are named <YYYYMMDDTHHMMSSZ>-<session-id>.json after the
// session's first timestamp, so a re-archived session replaces its own file
// and names sort oldest to newest.
const stampLayout = "20060102T150405Z"

// EpisodeName is the file name of a session's episode.
func EpisodeName(c *Checkpoint, archived time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, c.StartedAt)
	if err != nil {
		t = archived
	}
	return t.UTC().Format(stampLayout) + "-" + c.SessionID + ".json"
}

// EpisodeSession is the session id in an episode file name, or "".
func EpisodeSession(name string) string {
	if len(name) < len(stampLayout)+7 || name[len(stampLayout)] != '-' || !strings.HasSuffix(name, ".json") {
		return ""
	}
	return strings.TrimSuffix(name[len(stampLayout)+1:], ".json")
}

// sessionEpisodes lists the episode files of one session (normally one),
// oldest first: one unsorted listing and a suffix test per name (a glob
// would match every name against a pattern).
func sessionEpisodes(e store.Env, key, sid string) []string {
	var out []string
	suffix := "-" + sid + ".json"
	_ = store.ScanDirIn(e.ProjectDir(key), e.EpisodesDir(key), func(de fs.DirEntry) {
		if n := de.Name(); strings.HasSuffix(n, suffix) && EpisodeSession(n) == sid {
			out = append(out, filepath.Join(e.EpisodesDir(key), n))
		}
	})
	sort.Strings(out)
	return out
}

// findEpisode returns the path of a session's episode, or "".
func findEpisode(e store.Env, key, sid string) string {
	if m := sessionEpisodes(e, key, sid); len(m) > 0 {
		return m[len(m)-1]
	}
	return ""
}

func globEscape(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}

// IndexLine is a session's line in INDEX.md:
// - 2026-11-21 14:03 · 12 turns · OK · "title" · a.go, b.go +2 — episodes/<name>
// An automated run's line says so after the time (see automatedMark).
func IndexLine(c *Checkpoint, name string) string {
	when := "unknown time"
	if t, err := time.Parse(time.RFC3339Nano, c.StartedAt); err == nil {
		when = t.UTC().Format("2006-01-02 15:04")
	}
	turns := textfmt.Plural(c.Turns, "turn", "turns")
	title := c.Title
	if title == "" {
		title = c.Goal
	}
	title = strings.ReplaceAll(textfmt.Shorten(title, titleChars), `"`, "'")
	parts := []string{when, turns, c.Friction.Class, `"` + title + `"`}
	if c.Agent != "" {
		// Another agent's session: "in Codex".
		parts = append([]string{when, agentMark(c.Agent)}, parts[1:]...)
	}
	if c.Automated {
		parts = append([]string{when, automatedMark}, parts[1:]...)
	}
	if files := mainFiles(c.FilesChanged); files != "" {
		parts = append(parts, files)
	}
	return "- " + strings.Join(parts, " · ") + menuLink + name
}

func mainFiles(files []string) string {
	switch {
	case len(files) == 0:
		return ""
	case len(files) <= 2:
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s, %s +%d", files[0], files[1], len(files)-2)
}

// TestOnlyArchiveDelay, when a test sets it, makes archiving each session
// take that much longer, as a slow disk would.
var TestOnlyArchiveDelay time.Duration

// ArchiveReport says what ArchiveOrphans and retention did.
type ArchiveReport struct {
	Archived []string `json:"archived"` // episode paths written
	Dropped  []string `json:"dropped"`  // checkpoints of sessions with no turn
	Moved    []string `json:"moved"`    // episodes moved to archive/
	Cleaned  []string `json:"cleaned"`  // leftovers of interrupted writes
	// Triage is what triage found after the last turn of a session now
	// archived, which no prompt carried: the next start offers it, once.
	Triage []LeftTriage `json:"triage,omitempty"`
}

// LeftTriage is what triage found at the end of a session that no prompt
// followed.
type LeftTriage struct {
	SessionID string       `json:"session_id"`
	Title     string       `json:"title"`
	Hits      []triage.Hit `json:"hits"`
}

// Current is the session that is starting: its id and its claude process.
type Current struct {
	ID      string
	Process proc.Info
}

// overSessions reads the checkpoints of the project's sessions that are
// over (see sessionOver), leaving out the current one.
func overSessions(ctx context.Context, e store.Env, p store.Project, cur Current, cfg config.Config) ([]*Checkpoint, []string, error) {
	dir := e.CheckpointsDir(p.Key)
	ents, err := store.ReadDirIn(e.ProjectDir(p.Key), dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	now := e.Time()
	var over []*Checkpoint
	var paths []string
	for _, de := range ents {
		if ctx.Err() != nil {
			break
		}
		name := de.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") || (cur.ID != "" && strings.TrimSuffix(name, ".json") == cur.ID) {
			continue
		}
		path := filepath.Join(dir, name)
		c, err := readCheckpoint(e.ProjectDir(p.Key), path)
		if err != nil {
			// Checkpoints are not forced to disk: one a power cut left
			// empty or torn is rebuilt from its transcript, if it can be
			// found; else it is left for a person (ccmem gc reports it).
			if c = rebuildCheckpoint(e, p, strings.TrimSuffix(name, ".json"), err); c == nil {
				continue
			}
		}
		if !sessionOver(c, path, now, cfg.OrphanAfter, cur) {
			continue
		}
		over = append(over, c)
		paths = append(paths, path)
	}
	return over, paths, nil
}

// rebuildCheckpoint starts again the record of session sid, whose
// checkpoint could not be read (err), from its transcript: the client
// keeps it as <sid>.jsonl in the silo of the folder the session started
// in, normally the project's own. It returns nil when the checkpoint is
// not merely damaged (missing, refused, too big) or no transcript is found.
func rebuildCheckpoint(e store.Env, p store.Project, sid string, err error) *Checkpoint {
	if !errors.Is(err, errDamaged) || !store.ValidID(sid, 128, false) {
		return nil
	}
	candidates := []string{filepath.Join(e.SilosDir(), p.Key, sid+".jsonl")}
	if more, _ := filepath.Glob(filepath.Join(e.SilosDir(), "*", globEscape(sid)+".jsonl")); len(more) > 0 {
		candidates = append(candidates, more...)
	}
	for _, tr := range candidates {
		if fi, err := os.Stat(tr); err == nil && fi.Mode().IsRegular() {
			c := newCheckpoint(sid, p)
			c.Transcript.Path = tr
			return c
		}
	}
	return nil
}

// toEpisode brings a checkpoint of a session that is over up to date with
// its transcript and finishes it, returning its episode's file name; a
// session without a turn has none (ok false).
func (c *Checkpoint) toEpisode(ctx context.Context, now time.Time) (name string, ok bool) {
	_ = c.catchUp(ctx, c.Transcript.Path)
	if c.Turns == 0 {
		return "", false
	}
	c.finish(true)
	c.ArchivedAt = now.UTC().Format(time.RFC3339)
	return EpisodeName(c, now), true
}

// ArchiveOrphans turns the checkpoints of the project's sessions that are
// over into episodes and INDEX.md lines: every checkpoint but the current
// session's whose claude process is gone or has moved on to the current
// session (after /clear), or, when that cannot be told, whose transcript
// has not changed for orphan_after. It reads what the transcript gained
// since the last capture first. It stops when ctx is done.
func ArchiveOrphans(ctx context.Context, e store.Env, p store.Project, cur Current, cfg config.Config) (ArchiveReport, error) {
	var rep ArchiveReport
	over, paths, err := overSessions(ctx, e, p, cur, cfg)
	if err != nil || len(over) == 0 {
		return rep, err
	}
	now := e.Time()
	unlock, err := store.Lock(e.ProjectDir(p.Key))
	if err != nil {
		return rep, err
	}
	defer unlock()
	var lines []indexEdit
	for i, c := range over {
		if ctx.Err() != nil {
			break
		}
		if TestOnlyArchiveDelay > 0 {
			time.Sleep(TestOnlyArchiveDelay)
		}
		c.configure(&cfg.Capture)
		name, ok := c.toEpisode(ctx, now)
		if ok {
			for _, f := range markRepeated(e, p.Key, c, cfg) {
				if writeCheckpoint(e.ProjectDir(p.Key), f.Path, f.Record, true) == nil {
					lines = append(lines, indexEdit{sid: f.Record.SessionID, line: IndexLine(f.Record, filepath.Base(f.Path))})
				}
			}
		}
		if !ok {
			if os.Remove(paths[i]) == nil {
				rep.Dropped = append(rep.Dropped, paths[i])
			}
			continue
		}
		// What recall gave it, and what it did with that (see use.go).
		if given := append(readGivenEarly(e, p, c.SessionID), c.State.Given...); len(given) > 0 {
			u := UseIn(e, c, given)
			c.Use = &u
			_ = recordUse(e, u) // counts: a failure loses a count, never the episode
		}
		if len(c.State.TriagePending) > 0 {
			// Offered once, by this start: the episode keeps none.
			rep.Triage = append(rep.Triage, LeftTriage{SessionID: c.SessionID, Title: c.Title, Hits: c.State.TriagePending})
			c.State.TriagePending = nil
		}
		epPath := filepath.Join(e.EpisodesDir(p.Key), name)
		if err := writeCheckpoint(e.ProjectDir(p.Key), epPath, c, true); err != nil {
			return rep, err
		}
		if old := findOtherEpisodes(e, p.Key, c.SessionID, name); len(old) > 0 {
			for _, o := range old {
				os.Remove(o)
			}
		}
		lines = append(lines, indexEdit{sid: c.SessionID, line: IndexLine(c, name)})
		rep.Archived = append(rep.Archived, epPath)
		if err := os.Remove(paths[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return rep, err
		}
		os.Remove(givenEarlyPath(e, p.Key, c.SessionID))
	}
	return rep, editIndex(e, p.Key, lines, nil)
}

// NextIndex is the project's INDEX.md as the next session start will leave
// it, the sessions that are over archived and retention applied, computed
// without writing anything; changed is false when that start would leave
// it as it is (data is then nil: read the file).
func NextIndex(ctx context.Context, e store.Env, p store.Project, cfg config.Config) (data []byte, changed bool, err error) {
	over, _, err := overSessions(ctx, e, p, Current{}, cfg)
	if err != nil {
		return nil, false, err
	}
	now := e.Time()
	var add []indexEdit
	names := map[string]bool{}
	for _, c := range over {
		c.configure(&cfg.Capture)
		if name, ok := c.toEpisode(ctx, now); ok {
			for _, f := range markRepeated(e, p.Key, c, cfg) {
				add = append(add, indexEdit{sid: f.Record.SessionID, line: IndexLine(f.Record, filepath.Base(f.Path))})
			}
			add = append(add, indexEdit{sid: c.SessionID, line: IndexLine(c, name)})
			names[name] = true
		}
	}
	if l, err := listEpisodes(e, p.Key); err == nil {
		for _, n := range l.names {
			names[n] = true
		}
	}
	all := slices.Collect(maps.Keys(names))
	retired := retire(all, now, cfg, func() map[string]bool { return newestOfAPerson(e, p.Key, all, cfg.KeepNewest) })
	if len(add) == 0 && len(retired) == 0 {
		return nil, false, nil
	}
	data, err = readIndexWith(e, p.Key, add, inSorted(retired))
	return data, err == nil, err
}

// sessionOver tells whether a checkpoint's session has ended: its claude
// process is gone, or it is the starting session's own process, which
// holds one conversation at a time (so it has moved on, as after /clear);
// where neither can be told, its transcript has not changed for
// orphanAfter.
func sessionOver(c *Checkpoint, path string, now time.Time, orphanAfter time.Duration, cur Current) bool {
	if cur.Process.PID > 0 && c.Process == cur.Process && c.SessionID != cur.ID {
		return true
	}
	if alive, known := c.Process.Alive(); known {
		return !alive
	}
	last := time.Time{}
	for _, p := range []string{c.Transcript.Path, path} {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(last) {
			last = fi.ModTime()
		}
	}
	// A clock skewed into the future never makes a session look over early:
	// a modification time ahead of now counts as now.
	if last.After(now) {
		last = now
	}
	return !last.IsZero() && now.Sub(last) >= orphanAfter
}

func findOtherEpisodes(e store.Env, key, sid, keep string) []string {
	var out []string
	for _, m := range sessionEpisodes(e, key, sid) {
		if filepath.Base(m) != keep {
			out = append(out, m)
		}
	}
	return out
}

type indexEdit struct{ sid, line string }

// editIndex rewrites INDEX.md: drops the lines of sessions in add (they
// are replaced) and of episodes removed says are gone (nil: none), adds
// the new lines, and keeps lines sorted newest first. The caller holds the
// project lock.
func editIndex(e store.Env, key string, add []indexEdit, removed func(string) bool) error {
	if len(add) == 0 && removed == nil {
		return nil
	}
	data, err := readIndexWith(e, key, add, removed)
	if err != nil {
		return err
	}
	return store.WriteFileAtomicIn(e.ProjectDir(key), e.IndexPath(key), data)
}

// readIndexWith is INDEX.md's content with the lines of the sessions in
// add replaced, the lines of the episodes removed says are gone dropped,
// sorted newest first. It reads the file a line at a time and keeps only
// what stays, so dropping 100,000 lines costs no more memory than the
// lines kept. A missing INDEX.md reads as empty.
func readIndexWith(e store.Env, key string, add []indexEdit, removed func(string) bool) ([]byte, error) {
	f, _, err := store.OpenIn(e.ProjectDir(key), e.IndexPath(key))
	if errors.Is(err, fs.ErrNotExist) {
		return indexWith(strings.NewReader(""), add, removed)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return indexWith(io.LimitReader(f, 64<<20), add, removed)
}

// indexWith is readIndexWith for INDEX.md's content r.
func indexWith(r io.Reader, add []indexEdit, removed func(string) bool) ([]byte, error) {
	if removed == nil {
		removed = func(string) bool { return false }
	}
	replaced := map[string]bool{}
	for _, a := range add {
		replaced[a.sid] = true
	}
	type line struct{ text, episode string }
	var lines []line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		l := sc.Bytes()
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		// Only the episode's name is copied to test the line: most lines
		// of a huge INDEX.md are dropped.
		ep := lineEpisodeBytes(l)
		if removed(ep) || replaced[EpisodeSession(ep)] {
			continue
		}
		lines = append(lines, line{string(l), ep})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, a := range add {
		if ep := lineEpisode(a.line); !removed(ep) {
			lines = append(lines, line{a.line, ep})
		}
	}
	if !slices.IsSortedFunc(lines, func(a, b line) int { return strings.Compare(b.episode, a.episode) }) {
		slices.SortStableFunc(lines, func(a, b line) int { return strings.Compare(b.episode, a.episode) })
	}
	var out bytes.Buffer
	for _, l := range lines {
		out.WriteString(l.text)
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

// lineEpisodeBytes is lineEpisode for a line as bytes.
func lineEpisodeBytes(line []byte) string {
	i := bytes.LastIndex(line, []byte("episodes/"))
	if i < 0 {
		return ""
	}
	return string(bytes.TrimSpace(line[i+len("episodes/"):]))
}

// lineEpisode is the episode file name an INDEX.md line points at.
func lineEpisode(line string) string {
	i := strings.LastIndex(line, "episodes/")
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(line[i+len("episodes/"):])
}

// SessionFile is a session record and where it is kept.
type SessionFile struct {
	Path   string
	Record *Checkpoint
	// Ended is set on a checkpoint whose session is over: the next session
	// start in the project archives it.
	Ended bool
}

// ListSessions reads a project's episodes (newest first) and its
// checkpoints, telling the ended ones from the live; unreadable files are
// reported, not fatal.
func ListSessions(e store.Env, key string, cfg config.Config) (episodes, live []SessionFile, problems []string) {
	live, problems = LiveSessions(e, key)
	for i := range live {
		live[i].Ended = sessionOver(live[i].Record, live[i].Path, e.Time(), cfg.OrphanAfter, Current{})
	}
	episodes, more := readSessions(e, key, e.EpisodesDir(key))
	return episodes, live, append(problems, more...)
}

// LiveSessions reads a project's checkpoints: the sessions not archived
// yet, newest first.
func LiveSessions(e store.Env, key string) ([]SessionFile, []string) {
	return readSessions(e, key, e.CheckpointsDir(key))
}

// readSessions reads the records of a folder of the project's, newest
// first; an unreadable one is a problem, not fatal.
func readSessions(e store.Env, key, dir string) (out []SessionFile, problems []string) {
	ents, err := store.ReadDirIn(e.ProjectDir(key), dir)
	if err != nil {
		return nil, nil
	}
	for i := len(ents) - 1; i >= 0; i-- { // ReadDir sorts by name: reverse is newest first
		n := ents[i].Name()
		if !strings.HasSuffix(n, ".json") || strings.HasPrefix(n, ".") {
			continue
		}
		path := filepath.Join(dir, n)
		c, err := readCheckpoint(e.ProjectDir(key), path)
		if err != nil {
			problems = append(problems, e.PathError(path, err).Error())
			continue
		}
		out = append(out, SessionFile{Path: path, Record: c})
	}
	return out, problems
}

// FindSession finds one session of a project by its id, a unique prefix
// of it, or its episode's file name: an episode, an archived one, or a
// checkpoint.
func FindSession(e store.Env, key, id string) (SessionFile, error) {
	id = strings.TrimSuffix(filepath.Base(id), ".json")
	if _, after, ok := strings.Cut(id, "Z-"); ok && len(id) > len(stampLayout) {
		id = after // an episode's file name
	}
	if id == "" {
		return SessionFile{}, errors.New("no session id given")
	}
	var found []string
	for _, dir := range []string{e.EpisodesDir(key), e.EpisodeArchiveDir(key), e.CheckpointsDir(key)} {
		_ = store.ScanDirIn(e.ProjectDir(key), dir, func(de fs.DirEntry) {
			n := de.Name()
			sid := EpisodeSession(n)
			if sid == "" && dir == e.CheckpointsDir(key) && strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
				sid = strings.TrimSuffix(n, ".json")
			}
			if sid != "" && strings.HasPrefix(sid, id) {
				found = append(found, filepath.Join(dir, n))
			}
		})
	}
	switch {
	case len(found) == 0:
		return SessionFile{}, fmt.Errorf("no session %q in this project (ccmem episodes --all lists them)", id)
	case len(found) > 1:
		names := map[string]bool{}
		for _, f := range found {
			names[filepath.Base(f)] = true
		}
		if len(names) > 1 {
			return SessionFile{}, fmt.Errorf("%q names %d sessions; give more of the id", id, len(found))
		}
	}
	c, err := readCheckpoint(e.ProjectDir(key), found[0])
	if err != nil {
		return SessionFile{}, e.PathError(found[0], err)
	}
	return SessionFile{Path: found[0], Record: c}, nil
}

// AllEpisodes reads every finished session of a project, the archived
// ones too, newest first; unreadable files are reported, not fatal.
func AllEpisodes(e store.Env, key string) (episodes []SessionFile, problems []string) {
	episodes, _, problems = RecentEpisodes(e, key, 0)
	return episodes, problems
}

// RecentEpisodes reads the newest n finished sessions of a project (n <= 0:
// all), the archived ones too, newest first, and says how many there are
// in all: the names are listed, only the n kept are read.
func RecentEpisodes(e store.Env, key string, n int) (episodes []SessionFile, total int, problems []string) {
	var paths []string
	for _, dir := range []string{e.EpisodesDir(key), e.EpisodeArchiveDir(key)} {
		_ = store.ScanDirIn(e.ProjectDir(key), dir, func(de fs.DirEntry) {
			if name := de.Name(); strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".") {
				paths = append(paths, filepath.Join(dir, name))
			}
		})
	}
	// Episode names start with their time: newest first by name.
	sort.Slice(paths, func(i, j int) bool { return filepath.Base(paths[i]) > filepath.Base(paths[j]) })
	total = len(paths)
	if n > 0 && len(paths) > n {
		paths = paths[:n]
	}
	for _, path := range paths {
		c, err := readCheckpoint(e.ProjectDir(key), path)
		if err != nil {
			problems = append(problems, e.PathError(path, err).Error())
			continue
		}
		episodes = append(episodes, SessionFile{Path: path, Record: c})
	}
	return episodes, total, problems
}

// repeatedRuns is how many headless runs opening with the same prompt
// make the latest an automated one (a scheduled job, a script in a loop);
// repeatWindow is how many of the project's newest episodes are looked at.
const (
	repeatedRuns = 3
	repeatWindow = 30
)

// markRepeated marks an ending session automated when it is a headless
// run that opens as the project's recent headless runs did: a scheduled
// run (cron, a timer) or a plugin's observer has no other program's
// process above it to tell. The earlier runs it repeats, in the menu
// until now, are marked too: it returns them, for the caller (which holds
// the project's lock) to write with their menu lines.
func markRepeated(e store.Env, key string, c *Checkpoint, cfg config.Config) []SessionFile {
	if c.Automated || cfg.Capture.Automation == "off" {
		return nil
	}
	earlier := repeatsOf(e, key, c)
	if len(earlier) < repeatedRuns-1 {
		return nil
	}
	by := fmt.Sprintf("a headless run with the same opening prompt as %d others", len(earlier))
	c.Automated, c.AutomatedBy = true, by
	var remark []SessionFile
	for _, f := range earlier {
		if !f.Record.Automated {
			f.Record.Automated, f.Record.AutomatedBy = true, by
			remark = append(remark, f)
		}
	}
	return remark
}

// repeatsOf lists the project's newest episodes (repeatWindow) that are
// headless runs opening with the same prompt as c, a headless run itself;
// none for a session a person drove.
func repeatsOf(e store.Env, key string, c *Checkpoint) []SessionFile {
	k := PromptKey(c)
	if !Headless(c) || FromEditor(c) || k == "" {
		return nil
	}
	ents, err := store.ReadDirIn(e.ProjectDir(key), e.EpisodesDir(key))
	if err != nil {
		return nil
	}
	var names []string
	for _, de := range ents {
		if n := de.Name(); strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names))) // newest first: names open with their time
	var out []SessionFile
	for _, name := range names[:min(len(names), repeatWindow)] {
		path := filepath.Join(e.EpisodesDir(key), name)
		ep, err := readCheckpoint(e.ProjectDir(key), path)
		if err == nil && ep.SessionID != c.SessionID && Headless(ep) && PromptKey(ep) == k && !FromEditor(ep) {
			out = append(out, SessionFile{Path: path, Record: ep})
		}
	}
	return out
}
