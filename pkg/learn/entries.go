package learn

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Types are the kinds of canonical entries, in the order they are shown.
var Types = []string{"user", "feedback", "project", "reference"}

// Entry is one canonical entry in $CCMEM_HOME/learned/<type>/.
type Entry struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	SourceCwd   string `json:"source_cwd,omitempty"`
	// Scope is ScopeProject for an entry that applies only in the project
	// it came from whatever its type (a rule drawn from that project's
	// friction), else "".
	Scope string `json:"scope,omitempty"`
	Path  string `json:"path"`
	// Body is, for a user or feedback entry, what a session start shows
	// under its line (BodyLines with ShownBodyLines and ShownBodyChars),
	// kept in the cache so that a start does not open each entry.
	Body []string `json:"-"`
	// Digest is what gives it authority (see provenance.Digest): the person's
	// acceptance holds for this text only.
	Digest string `json:"-"`
}

// ShownBodyLines and ShownBodyChars bound the body a session start shows
// under a user or feedback entry's line, when the section has room.
const (
	ShownBodyLines = 8
	ShownBodyChars = 600
)

// ScopeProject is the scope of an entry that applies only in the project
// it came from (its source_cwd): a rule learned from one project's
// friction reaches that project's sessions, until a person widens it.
const ScopeProject = "project"

// Global tells whether the entry applies in every project: user and feedback
// entries do, unless scoped to their project; project and reference
// entries belong to their source project.
func (l Entry) Global() bool {
	return (l.Type == "user" || l.Type == "feedback") && l.Scope != ScopeProject
}

// ScopeOf reads an entry's scope from its frontmatter: ScopeProject and
// the folder it came from, or "" (every project, for user and feedback).
// It is the one reading of a scope, for the guard's rules too.
func ScopeOf(m frontmatter.Meta) (scope, sourceCwd string) {
	cwd, _ := m.Fields["source_cwd"].(string)
	if s, _ := m.Fields["scope"].(string); s == ScopeProject {
		return ScopeProject, cwd
	}
	return "", cwd
}

// AppliesTo tells whether the entry is injected in the project here.
func (l Entry) AppliesTo(here store.Here) bool {
	return l.Global() || here.Holds(l.SourceCwd, "")
}

// List reads the frontmatter of every canonical entry, in display order
// (by type, then name), checking each file's size and modification time
// against the cache (learned/.cache.tsv) and parsing only what changed.
// Entries whose files cannot be read or parsed are skipped and reported in
// the returned error (the others are still returned). A session start
// uses Show instead, which reads only what it shows.
func List(ctx context.Context, e store.Env) ([]Entry, error) {
	all, err := rebuild(ctx, e)
	if err != nil {
		return nil, err
	}
	var out []Entry
	var errs []error
	for _, ce := range all {
		if ce.Err != "" {
			errs = append(errs, errors.New(ce.Err))
			continue
		}
		out = append(out, ce.Entry)
	}
	return out, errors.Join(errs...)
}

// View is what a session start shows of the learned entries in the
// project rooted at Root: the first entries of each kind in display order,
// and how many there are in all.
type View struct {
	// Global are the first user and feedback entries, which apply
	// everywhere; Project the first project and reference entries that
	// apply in the project.
	Global, Project           []Entry
	GlobalTotal, ProjectTotal int
	// Err reports the entries that could not be read or parsed.
	Err error
}

// Show is the view of at most limit entries of each kind that a session
// start in the project rooted at root shows. While no type folder changed
// since the cache was written (ccmem writes entries by rename, so each new,
// replaced or removed entry changes its folder's time) it reads only the
// cache's table of contents and the lines it shows, however many entries
// there are; it checks each entry it shows against its file's size and
// time (an entry edited in place leaves its folder's time as it was).
// Otherwise it rebuilds the cache as List does.
func Show(ctx context.Context, e store.Env, here store.Here, limit int) (View, error) {
	if v, ok := showCached(e, here, limit); ok {
		return v, nil
	}
	all, err := rebuild(ctx, e)
	if err != nil {
		return View{}, err
	}
	var v View
	var errs []error
	for _, ce := range all {
		switch {
		case ce.Err != "":
			errs = append(errs, errors.New(ce.Err))
		case ce.Entry.Global():
			v.GlobalTotal++
			if len(v.Global) < limit {
				v.Global = append(v.Global, ce.Entry)
			}
		case here.Holds(ce.Entry.SourceCwd, ""):
			v.ProjectTotal++
			if len(v.Project) < limit {
				v.Project = append(v.Project, ce.Entry)
			}
		}
	}
	v.Err = errors.Join(errs...)
	return v, nil
}

// The cache, learned/.cache.tsv, is a table of contents and then lines of
// tab-separated fields, one entry a line:
//
//	ccmem-learned-cache 4
//	<when the stamps were taken> <each type folder's time, ns; -1: missing>
//	<global entries> <their bytes> <groups> <broken entries>
//	<source_cwd, quoted> <slug> <entries> <offset> <bytes>   one per group
//	…the global entries (user, feedback) in display order
//	…the project and reference entries, grouped by source_cwd, each group
//	 in display order
//	…the entries that could not be read, with their error
//
// Offsets count from the first entry line. An entry's fields: type, file,
// size, mtime, name, description, source_cwd, error, for a user or
// feedback entry its shown body's lines joined by newlines (the last three
// quoted), its scope and its digest.
const learnedCacheVersion = "ccmem-learned-cache 7"

const (
	fType = iota
	fFile
	fSize
	fMTime
	fName
	fDesc
	fCwd
	fErr
	fBody
	fScope
	fDigest
	nFields
)

// A folder changed less than this before its time was taken may change
// again within the same tick of a coarse file system clock unseen: such a
// stamp does not vouch for the cache.
const racyWindow = 2 * time.Second

type cachedEntry struct {
	Size  int64
	MTime int64
	Entry Entry
	Err   string
}

// cacheGroup is one source_cwd's project and reference entries.
type cacheGroup struct {
	cwd, slug     string
	count         int
	offset, bytes int64
}

// folderStamps are the type folders' modification times (-1: missing).
func folderStamps(e store.Env) []int64 {
	out := make([]int64, len(Types))
	for i, typ := range Types {
		out[i] = -1
		if fi, err := os.Stat(filepath.Join(e.LearnedDir(), typ)); err == nil {
			out[i] = fi.ModTime().UnixNano()
		}
	}
	return out
}

func stampLine(taken time.Time, stamps []int64) string {
	f := []string{strconv.FormatInt(taken.UnixNano(), 10)}
	for _, s := range stamps {
		f = append(f, strconv.FormatInt(s, 10))
	}
	return strings.Join(f, "\t")
}

// stampsVouch tells whether the cache's stamp line still vouches for it:
// every type folder's time as recorded, none recorded too close to when
// it was taken.
func stampsVouch(line string, now []int64) bool {
	f := strings.Split(line, "\t")
	if len(f) != len(now)+1 {
		return false
	}
	taken, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return false
	}
	for i, s := range now {
		if f[i+1] != strconv.FormatInt(s, 10) || s > taken-int64(racyWindow) {
			return false
		}
	}
	return true
}

const cacheName = ".cache.tsv"

// cacheHead is the cache's table of contents.
type cacheHead struct {
	stamps         string
	global, broken int
	globalBytes    int64
	groups         []cacheGroup
	body           int64 // offset of the first entry line in the file
}

// readHead reads the cache's table of contents from r.
func readHead(r *bufio.Reader) (cacheHead, bool) {
	var h cacheHead
	var read int64
	line := func() (string, bool) {
		l, err := r.ReadString('\n')
		read += int64(len(l))
		return strings.TrimSuffix(l, "\n"), err == nil
	}
	version, ok1 := line()
	stamps, ok2 := line()
	counts, ok3 := line()
	var groups int
	if !ok1 || !ok2 || !ok3 || version != learnedCacheVersion {
		return h, false
	}
	if n, err := fmt.Sscanf(counts, "%d %d %d %d", &h.global, &h.globalBytes, &groups, &h.broken); n != 4 || err != nil || groups < 0 || groups > 1<<20 {
		return h, false
	}
	h.stamps = stamps
	for range groups {
		l, ok := line()
		f := strings.Split(l, "\t")
		if !ok || len(f) != 5 {
			return h, false
		}
		g := cacheGroup{slug: f[1]}
		var err error
		if g.cwd, err = strconv.Unquote(f[0]); err != nil {
			return h, false
		}
		c, err1 := strconv.Atoi(f[2])
		o, err2 := strconv.ParseInt(f[3], 10, 64)
		n, err3 := strconv.ParseInt(f[4], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || c < 0 || o < 0 || n < 0 {
			return h, false
		}
		g.count, g.offset, g.bytes = c, o, n
		h.groups = append(h.groups, g)
	}
	h.body = read
	return h, true
}

// readLines reads at most n entry lines from r, parsed.
func readLines(r io.Reader, dir string, n int) ([]cachedEntry, bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var out []cachedEntry
	for len(out) < n && sc.Scan() {
		ce := parseCacheLine(dir, sc.Text())
		if ce.Entry.Path == "" {
			return nil, false
		}
		out = append(out, ce)
	}
	return out, len(out) == n
}

// showCached is Show from the cache alone, when its stamps vouch for it
// and every entry it shows is the file the cache read.
func showCached(e store.Env, here store.Here, limit int) (View, bool) {
	var v View
	dir := e.LearnedDir()
	f, _, err := store.OpenRegular(filepath.Join(dir, cacheName))
	if err != nil {
		return v, false
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 16<<10)
	h, ok := readHead(r)
	if !ok || !stampsVouch(h.stamps, folderStamps(e)) {
		return v, false
	}
	section := func(off, n int64) io.Reader { return io.NewSectionReader(f, h.body+off, n) }
	// The global entries follow the table of contents.
	global, ok := readLines(r, dir, min(limit, h.global))
	if !ok {
		return v, false
	}
	v.GlobalTotal = h.global
	for _, ce := range global {
		v.Global = append(v.Global, ce.Entry)
	}
	// The project's: the first of each group that applies, merged.
	var project []cachedEntry
	for _, g := range h.groups {
		if !here.Holds(g.cwd, g.slug) {
			continue
		}
		v.ProjectTotal += g.count
		ces, ok := readLines(section(g.offset, g.bytes), dir, min(limit, g.count))
		if !ok {
			return v, false
		}
		project = append(project, ces...)
	}
	slices.SortStableFunc(project, displayOrder)
	for _, ce := range project[:min(limit, len(project))] {
		v.Project = append(v.Project, ce.Entry)
	}
	if h.broken > 0 {
		end := h.globalBytes
		for _, g := range h.groups {
			end = max(end, g.offset+g.bytes)
		}
		broken, ok := readLines(section(end, 1<<40), dir, h.broken)
		if !ok {
			return v, false
		}
		var errs []error
		for _, ce := range broken {
			errs = append(errs, errors.New(ce.Err))
		}
		v.Err = errors.Join(errs...)
	}
	// What is shown must be the file the cache read.
	for _, le := range slices.Concat(global, project[:min(limit, len(project))]) {
		fi, err := os.Lstat(le.Entry.Path)
		if err != nil || fi.Size() != le.Size || fi.ModTime().UnixNano() != le.MTime {
			return v, false
		}
	}
	return v, true
}

func displayOrder(a, b cachedEntry) int {
	if d := typeRank(a.Entry.Type) - typeRank(b.Entry.Type); d != 0 {
		return d
	}
	return strings.Compare(a.Entry.Name, b.Entry.Name)
}

// rebuild lists the type folders, re-parses the entries whose size or
// modification time changed since the cache read them, and rewrites the
// cache when anything changed. It returns every entry in display order,
// the broken ones last.
func rebuild(ctx context.Context, e store.Env) ([]cachedEntry, error) {
	dir := e.LearnedDir()
	taken := time.Now()
	stamps := folderStamps(e)
	old := readCachedEntries(filepath.Join(dir, cacheName))
	var fresh []cachedEntry
	var errs []error
	dirty := false
	for _, typ := range Types {
		tdir := filepath.Join(dir, typ)
		ents, err := os.ReadDir(tdir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, e.PathError(tdir, err))
			}
			continue
		}
		for _, de := range ents {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".md") {
				continue
			}
			path := filepath.Join(tdir, de.Name())
			fi, err := de.Info()
			if err != nil {
				continue
			}
			ce, ok := old.entries[path]
			if !ok || ce.Size != fi.Size() || ce.MTime != fi.ModTime().UnixNano() {
				ce = parseLearned(e, typ, path, de.Name())
				ce.Size, ce.MTime = fi.Size(), fi.ModTime().UnixNano()
				dirty = true
			}
			fresh = append(fresh, ce)
		}
	}
	slices.SortStableFunc(fresh, func(a, b cachedEntry) int {
		if (a.Err != "") != (b.Err != "") {
			if a.Err != "" {
				return 1
			}
			return -1
		}
		return displayOrder(a, b)
	})
	if dirty || len(fresh) != len(old.entries) || !stampsVouch(old.stamps, stamps) {
		writeLearnedCache(filepath.Join(dir, cacheName), stampLine(taken, stamps), fresh)
	}
	for _, err := range errs {
		fresh = append(fresh, cachedEntry{Err: err.Error()})
	}
	return fresh, nil
}

type cacheFile struct {
	stamps  string
	entries map[string]cachedEntry
}

// readCachedEntries reads every entry of the cache, whatever its stamps.
func readCachedEntries(path string) cacheFile {
	c := cacheFile{entries: map[string]cachedEntry{}}
	f, _, err := store.OpenRegular(path)
	if err != nil {
		return c
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	h, ok := readHead(r)
	if !ok {
		return c
	}
	c.stamps = h.stamps
	all, _ := readLines(r, filepath.Dir(path), math.MaxInt)
	for _, ce := range all {
		c.entries[ce.Entry.Path] = ce
	}
	return c
}

// parseCacheLine parses one entry's line (Path "" when it is damaged).
func parseCacheLine(dir, line string) cachedEntry {
	f := strings.SplitN(line, "\t", nFields)
	if len(f) != nFields {
		return cachedEntry{}
	}
	size, err1 := strconv.ParseInt(f[fSize], 10, 64)
	mtime, err2 := strconv.ParseInt(f[fMTime], 10, 64)
	cwd, err3 := strconv.Unquote(f[fCwd])
	msg, err4 := strconv.Unquote(f[fErr])
	body, err5 := strconv.Unquote(f[fBody])
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || !slices.Contains(Types, f[fType]) || f[fFile] == "" || strings.ContainsAny(f[fFile], `/\`) {
		return cachedEntry{}
	}
	ce := cachedEntry{Size: size, MTime: mtime, Err: msg,
		Entry: Entry{Type: f[fType], Name: f[fName], Description: f[fDesc], SourceCwd: cwd, Scope: f[fScope], Digest: f[fDigest], Path: filepath.Join(dir, f[fType], f[fFile])}}
	if body != "" {
		ce.Entry.Body = strings.Split(body, "\n")
	}
	return ce
}

func cacheLine(ce cachedEntry) string {
	return strings.Join([]string{ce.Entry.Type, filepath.Base(ce.Entry.Path), strconv.FormatInt(ce.Size, 10), strconv.FormatInt(ce.MTime, 10),
		tabless(ce.Entry.Name), tabless(ce.Entry.Description), strconv.Quote(ce.Entry.SourceCwd), strconv.Quote(ce.Err),
		strconv.Quote(strings.Join(ce.Entry.Body, "\n")), tabless(ce.Entry.Scope), tabless(ce.Entry.Digest)}, "\t") + "\n"
}

// writeLearnedCache saves the cache when the learned folder exists; a
// failure only costs the next run a re-parse. entries are in display
// order, the broken ones last.
func writeLearnedCache(path, stamps string, entries []cachedEntry) {
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return
	}
	var global, broken strings.Builder
	groups := map[string]*strings.Builder{}
	counts := map[string]int{}
	nGlobal, nBroken := 0, 0
	for _, ce := range entries {
		if strings.ContainsAny(filepath.Base(ce.Entry.Path), "\t\n") || ce.Entry.Path == "" {
			continue
		}
		switch {
		case ce.Err != "":
			broken.WriteString(cacheLine(ce))
			nBroken++
		case ce.Entry.Global():
			global.WriteString(cacheLine(ce))
			nGlobal++
		default:
			b := groups[ce.Entry.SourceCwd]
			if b == nil {
				b = &strings.Builder{}
				groups[ce.Entry.SourceCwd] = b
			}
			b.WriteString(cacheLine(ce))
			counts[ce.Entry.SourceCwd]++
		}
	}
	cwds := slices.Sorted(maps.Keys(groups))
	var out strings.Builder
	fmt.Fprintf(&out, "%s\n%s\n%d %d %d %d\n", learnedCacheVersion, stamps, nGlobal, global.Len(), len(cwds), nBroken)
	offset := int64(global.Len())
	for _, cwd := range cwds {
		slug := ""
		if cwd != "" {
			slug = store.Slug(filepath.Clean(cwd))
		}
		n := int64(groups[cwd].Len())
		fmt.Fprintf(&out, "%s\t%s\t%d\t%d\t%d\n", strconv.Quote(cwd), tabless(slug), counts[cwd], offset, n)
		offset += n
	}
	out.WriteString(global.String())
	for _, cwd := range cwds {
		out.WriteString(groups[cwd].String())
	}
	out.WriteString(broken.String())
	store.Tidy(filepath.Dir(path), filepath.Base(path))
	_ = store.WriteCacheFile(path, []byte(out.String()))
}

func tabless(s string) string { return strings.NewReplacer("\t", " ", "\n", " ").Replace(s) }

// parseLearned reads one canonical entry's frontmatter.
func parseLearned(e store.Env, typ, path, file string) cachedEntry {
	data, err := store.ReadSmallFile(path, 1<<20)
	if err != nil {
		return cachedEntry{Err: e.PathError(path, err).Error(), Entry: Entry{Type: typ, Name: strings.TrimSuffix(file, ".md"), Path: path}}
	}
	meta, _, err := frontmatter.Read(data)
	if err != nil {
		return cachedEntry{Err: e.PathError(path, err).Error(), Entry: Entry{Type: typ, Name: strings.TrimSuffix(file, ".md"), Path: path}}
	}
	le := Entry{
		Type:        typ,
		Name:        strings.TrimSuffix(file, ".md"),
		Description: textfmt.OneLine(meta.Description),
		Path:        path,
	}
	if meta.Name != "" {
		le.Name = textfmt.OneLine(meta.Name)
	}
	le.Scope, le.SourceCwd = ScopeOf(meta)
	le.Digest = provenance.Digest(data)
	if le.Global() {
		if _, body, err := frontmatter.Split(data); err == nil {
			le.Body = bodyOf(body, ShownBodyLines, ShownBodyChars)
		}
	}
	return cachedEntry{Entry: le}
}

func typeRank(t string) int {
	if i := slices.Index(Types, t); i >= 0 {
		return i
	}
	return len(Types)
}

// BodyLines are the first non-blank lines of an entry's body (after its
// frontmatter): at most maxLines lines adding up to at most maxChars
// characters, a last "…" line when there is more. An entry that cannot be
// read has none.
func BodyLines(path string, maxLines, maxChars int) []string {
	data, err := store.ReadSmallFile(path, 1<<20)
	if err != nil {
		return nil
	}
	// The body only: no need to parse the frontmatter's YAML.
	_, body, err := frontmatter.Split(data)
	if err != nil {
		return nil
	}
	return bodyOf(body, maxLines, maxChars)
}

// bodyOf is BodyLines of a body already read.
func bodyOf(body []byte, maxLines, maxChars int) []string {
	var out []string
	chars := 0
	for _, l := range strings.Split(textfmt.ValidUTF8(body), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(out) == maxLines {
			return append(out, "…")
		}
		if room := maxChars - chars; textfmt.Chars(l) > room {
			if room >= 40 {
				out = append(out, textfmt.Shorten(l, room))
			}
			return append(out, "…")
		}
		out = append(out, l)
		chars += textfmt.Chars(l)
	}
	return out
}
