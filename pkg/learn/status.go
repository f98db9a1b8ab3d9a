package learn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Backlog is how many memory files wait in Claude Code's silos.
type Backlog struct {
	Files int `json:"files"`
	Silos int `json:"silos"`
}

// CountBacklog counts the memory files in every silo
// (<claude dir>/projects/*/memory/*.md, MEMORY.md excepted) from directory
// listings alone: no memory file is opened. Files the last `learn check`
// skipped (and that have not changed since) are not counted: learn would
// leave them alone.
func CountBacklog(ctx context.Context, e store.Env) (Backlog, error) {
	st := ReadStatus(e)
	b, _, _, err := countBacklog(ctx, e, st.skippedSet(), nil)
	return b, err
}

// siloCount is one silo's count, and its memory folder's time when counted.
type siloCount struct {
	mtime int64
	files int
}

// countBacklog counts the silos' memory files, taking a silo's count from
// known when its memory folder's time is the one recorded there (a file
// added, removed or renamed in the folder changes it), listing only the
// others. It returns the counts to record.
func countBacklog(ctx context.Context, e store.Env, skipped map[string]FileStamp, known map[string]siloCount) (b Backlog, counts map[string]siloCount, changed bool, err error) {
	began := time.Now().UnixNano()
	silos, err := store.ListSubdirs(e.SilosDir(), "memory")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return b, nil, len(known) > 0, nil
		}
		return b, nil, false, e.PathError(e.SilosDir(), err)
	}
	counts = make(map[string]siloCount, len(silos))
	changed = len(silos) != len(known)
	for _, s := range silos {
		if err := ctx.Err(); err != nil {
			return b, nil, false, err
		}
		c, ok := known[s.Name]
		if !ok || c.mtime != s.MTime {
			was := c
			c = siloCount{mtime: s.MTime, files: countSiloFiles(filepath.Join(e.SilosDir(), s.Name, "memory"), skipped)}
			if s.MTime > began-int64(racyWindow) {
				// Changed within a tick of a coarse clock: a file added
				// in the same tick would leave the time as it is, so the
				// next count lists this silo again.
				c.mtime = -1
			}
			changed = changed || !ok || c != was
		}
		counts[s.Name] = c
		if c.files > 0 {
			b.Files += c.files
			b.Silos++
		}
	}
	return b, counts, changed, nil
}

func countSiloFiles(dir string, skipped map[string]FileStamp) int {
	f, err := os.Open(dir)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	for {
		ents, err := f.ReadDir(1024)
		for _, de := range ents {
			name := de.Name()
			if !strings.HasSuffix(name, ".md") || name == "MEMORY.md" {
				continue
			}
			if st, ok := skipped[filepath.Join(dir, name)]; ok {
				if fi, err := de.Info(); err == nil && fi.Size() == st.Size && fi.ModTime().UnixNano() == st.ModTime {
					continue
				}
			}
			if de.Type().IsRegular() || de.Type()&fs.ModeSymlink != 0 {
				n++
			}
		}
		if err != nil {
			return n
		}
	}
}

// Status is the cache behind the status line and the nudge.
type Status struct {
	UpdatedAt string  `json:"updated_at"`
	Backlog   Backlog `json:"backlog"`
	Review    int     `json:"review"`
	// Skipped are silo files learn leaves alone (no or broken frontmatter,
	// unknown type): not counted as backlog while they stay unchanged.
	Skipped []FileStamp `json:"skipped,omitempty"`
	// SilosRoot is the silos folder's modification time (ns) when the
	// counts were taken: while it stands, no silo was added or removed.
	SilosRoot int64 `json:"silos_root_mtime_ns,omitempty"`
	// Silos are the counts behind Backlog, one entry per silo with a
	// memory folder, each ended by "/" (which no folder name holds): the
	// folder's modification time (ns; -1 to count it again), its count and
	// the silo's folder name, space-separated. One string without escapes
	// decodes in microseconds where thousands of JSON objects would not.
	Silos string `json:"silos,omitempty"`
}

// siloCounts parses Silos.
func (s Status) siloCounts() map[string]siloCount {
	m := map[string]siloCount{}
	text := s.Silos
	for text != "" {
		var line string
		line, text, _ = strings.Cut(text, "/")
		t, rest, ok1 := strings.Cut(line, " ")
		n, name, ok2 := strings.Cut(rest, " ")
		mtime, err1 := strconv.ParseInt(t, 10, 64)
		files, err2 := strconv.Atoi(n)
		if ok1 && ok2 && err1 == nil && err2 == nil && files >= 0 {
			m[name] = siloCount{mtime, files}
		}
	}
	return m
}

func siloText(m map[string]siloCount) string {
	names := slices.Sorted(maps.Keys(m))
	var b strings.Builder
	for _, n := range names {
		if strings.ContainsFunc(n, func(r rune) bool { return r < ' ' || strings.ContainsRune(`/"\<>&`, r) }) {
			continue // JSON would escape it: not recorded, counted each time
		}
		c := m[n]
		b.WriteString(strconv.FormatInt(c.mtime, 10) + " " + strconv.Itoa(c.files) + " " + n + "/")
	}
	return b.String()
}

// FileStamp identifies a file version without reading it.
type FileStamp struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
}

// ReadStatus reads the status cache; a missing or damaged one is empty.
func ReadStatus(e store.Env) Status {
	var s Status
	data, err := store.ReadSmallFile(e.StatusPath(), 64<<20)
	if err != nil {
		return s
	}
	// The silos' counts, the last field and the bulk of the file, are
	// taken as they are: a JSON decoder would scan them twice.
	rest, silos := cutSilos(data)
	if json.Unmarshal(rest, &s) == nil && silos != "" {
		s.Silos = silos
	}
	return s
}

// cutSilos cuts the "silos" field from status.json as RefreshStatus writes
// it (last, its string without escapes), returning the rest and the
// field's value; anything else is returned whole, for the decoder.
func cutSilos(data []byte) ([]byte, string) {
	const key = `,
  "silos": "`
	i := bytes.LastIndex(data, []byte(key))
	if i < 0 {
		return data, ""
	}
	value := data[i+len(key):]
	end := bytes.IndexByte(value, '"')
	if end < 0 || bytes.IndexByte(value[:end], '\\') >= 0 || strings.TrimSpace(string(value[end+1:])) != "}" {
		return data, ""
	}
	return append(data[:i:i], '}'), string(value[:end])
}

// skippedSet maps the skipped paths to their stamps.
func (s Status) skippedSet() map[string]FileStamp {
	m := make(map[string]FileStamp, len(s.Skipped))
	for _, f := range s.Skipped {
		m[f.Path] = f
	}
	return m
}

// SkippedStamps lists the plan's skipped files as stamps.
func (p Plan) SkippedStamps() []FileStamp {
	var out []FileStamp
	for _, it := range p.Items {
		if it.Action != ActSkip {
			continue
		}
		if fi, err := os.Lstat(it.Path); err == nil {
			out = append(out, FileStamp{Path: it.Path, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()})
		}
	}
	return out
}

// sweepSize is how many silos a status line checks besides its own when
// the silos folder itself is unchanged: a changed silo elsewhere is seen
// within a sweep of them all, at one window a second.
const sweepSize = 256

// RefreshStatusLine is RefreshStatus for the status line, which the client
// runs after every message: when the silos folder is unchanged (no silo
// added or removed) it checks only the silos of focus (the session's own
// folders, where its memory is written) and one window of the others —
// the next window each second — keeping the counts of the rest; a change
// in another silo shows within a sweep (5,000 silos: 20 s). Otherwise it
// recounts as RefreshStatus does.
func RefreshStatusLine(ctx context.Context, e store.Env, focus []string) (Status, error) {
	old := ReadStatus(e)
	fi, err := os.Stat(e.SilosDir())
	if err != nil || old.SilosRoot == 0 || old.Silos == "" || fi.ModTime().UnixNano() != old.SilosRoot ||
		fi.ModTime().UnixNano() > time.Now().UnixNano()-int64(racyWindow) {
		return RefreshStatus(ctx, e, nil)
	}
	// The recorded counts, one "mtime count name" entry each, sorted by
	// name: only the entries checked now are parsed.
	entries := strings.Split(strings.TrimSuffix(old.Silos, "/"), "/")
	nameOf := func(entry string) string {
		_, rest, _ := strings.Cut(entry, " ")
		_, name, _ := strings.Cut(rest, " ")
		return name
	}
	check := map[int]bool{}
	windows := (len(entries) + sweepSize - 1) / sweepSize
	w := int(e.Time().Unix() % int64(windows))
	for i := w * sweepSize; i < min(len(entries), (w+1)*sweepSize); i++ {
		check[i] = true
	}
	for i, entry := range entries {
		if strings.HasPrefix(entry, "-1 ") {
			check[i] = true // counted in a racy tick: count it again
		}
	}
	for _, f := range focus {
		if i, ok := slices.BinarySearchFunc(entries, f, func(entry, name string) int { return strings.Compare(nameOf(entry), name) }); ok {
			check[i] = true
		}
	}
	idx := slices.Sorted(maps.Keys(check))
	names := make([]string, len(idx))
	for j, i := range idx {
		names[j] = nameOf(entries[i])
	}
	stats, err := store.StatSubdirsOf(e.SilosDir(), names, "memory")
	if err != nil || len(stats) != len(names) {
		return RefreshStatus(ctx, e, nil) // a silo lost its memory folder
	}
	began := time.Now().UnixNano()
	skipped := old.skippedSet()
	s, changed := old, false
	for j, st := range stats {
		i := idx[j]
		c, ok := parseSiloEntry(entries[i])
		if ok && c.mtime == st.MTime && c.mtime != -1 {
			continue
		}
		was := c
		c = siloCount{mtime: st.MTime, files: countSiloFiles(filepath.Join(e.SilosDir(), st.Name, "memory"), skipped)}
		if st.MTime > began-int64(racyWindow) {
			c.mtime = -1
		}
		if c == was {
			continue
		}
		changed = true
		// The backlog changes by the difference.
		s.Backlog.Files += c.files - was.files
		switch {
		case was.files == 0 && c.files > 0:
			s.Backlog.Silos++
		case was.files > 0 && c.files == 0:
			s.Backlog.Silos--
		}
		entries[i] = strconv.FormatInt(c.mtime, 10) + " " + strconv.Itoa(c.files) + " " + st.Name
	}
	if !changed {
		return old, nil
	}
	s.Silos = strings.Join(entries, "/") + "/"
	return s, writeStatus(e, s)
}

// parseSiloEntry reads one "mtime count name" entry of Silos.
func parseSiloEntry(entry string) (siloCount, bool) {
	t, rest, ok1 := strings.Cut(entry, " ")
	n, _, ok2 := strings.Cut(rest, " ")
	mtime, err1 := strconv.ParseInt(t, 10, 64)
	files, err2 := strconv.Atoi(n)
	return siloCount{mtime, files}, ok1 && ok2 && err1 == nil && err2 == nil && files >= 0
}

// RefreshStatus recounts the backlog (listing only the silos whose memory
// folder changed since the last count) and the pending review, and saves
// status.json when they changed. skipped replaces the remembered skipped
// files when not nil (every silo is then counted again).
func RefreshStatus(ctx context.Context, e store.Env, skipped []FileStamp) (Status, error) {
	old := ReadStatus(e)
	s := Status{Skipped: old.Skipped}
	known := old.siloCounts()
	if skipped != nil {
		s.Skipped, known = skipped, nil
	}
	var root int64
	if fi, err := os.Stat(e.SilosDir()); err == nil {
		root = fi.ModTime().UnixNano()
	}
	b, counts, changed, err := countBacklog(ctx, e, s.skippedSet(), known)
	if err != nil {
		return old, err
	}
	s.SilosRoot = root
	s.Backlog, s.Silos = b, old.Silos
	if changed || known == nil {
		s.Silos = siloText(counts)
	}
	if n, err := countPending(e); err == nil {
		s.Review = n
	}
	if old.Backlog == s.Backlog && old.Review == s.Review && old.Silos == s.Silos && old.SilosRoot == s.SilosRoot && slices.Equal(old.Skipped, s.Skipped) {
		return old, nil
	}
	if _, err := os.Stat(e.Store); err != nil && skipped == nil {
		return s, nil // no store yet, and nothing worth creating it for
	}
	return s, writeStatus(e, s)
}

// writeStatus saves status.json.
func writeStatus(e store.Env, s Status) error {
	s.UpdatedAt = e.Time().UTC().Format(time.RFC3339)
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return err
	}
	defer unlock()
	store.Tidy(e.Store, "status.json")
	// A cache: atomic, not forced to disk (a lost one is counted again).
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return store.WriteCacheFile(e.StatusPath(), append(data, '\n'))
}

// BacklogLine is the status line's text, in plain words: "3 memories
// Claude Code saved wait to be curated, from 2 projects".
func BacklogLine(b Backlog) string {
	verb := " wait"
	if b.Files == 1 {
		verb = " waits"
	}
	return textfmt.Plural(b.Files, "memory Claude Code saved", "memories Claude Code saved") + verb + " to be curated, from " + textfmt.Plural(b.Silos, "project", "projects")
}
