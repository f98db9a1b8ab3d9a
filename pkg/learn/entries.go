package learn

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/str"
	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/store"
)

// Types are the kinds of canonical entries, in the order they are shown.
var Types = []string{"user", "feedback", "project", "reference"}

// Entry is one canonical entry in $CCMEM_HOME/learned/<type>/.
type Entry struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	SourceCwd   string `json:"source_cwd,omitempty"`
	Path        string `json:"path"`
}

// Global tells whether the entry applies in every project: user and feedback
// entries do; project and reference entries belong to their source project.
func (l Entry) Global() bool { return l.Type == "user" || l.Type == "feedback" }

// AppliesTo tells whether the entry is injected in the project rooted at root.
func (l Entry) AppliesTo(root string) bool {
	return l.Global() || store.InProject(l.SourceCwd, "", root, store.Slug(root))
}

// List reads the frontmatter of every canonical entry, in display order
// (by type, then name), checking each file's size and modification time
// against the cache (learned/.cache.tsv) and parsing only what changed.
// Entries whose files cannot be read or parsed are skipped and reported in
// the returned error (the others are still returned). A session start
// uses Load instead, which trusts the cache while the type folders are
// unchanged.
func List(ctx context.Context, e store.Env) ([]Entry, error) {
	c, err := rebuild(ctx, e)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, c.Len())
	for i := range c.Len() {
		out = append(out, c.Entry(i))
	}
	return out, c.Err
}

// Catalog is the canonical entries in display order, as lines of the
// cache: an entry is parsed only when it is asked for, so a session start
// over 20,000 entries builds only the lines it shows.
type Catalog struct {
	dir   string
	lines []string // cache lines of the readable entries
	// Err reports the entries that could not be read or parsed.
	Err error
}

// Len is the number of readable entries.
func (c Catalog) Len() int { return len(c.lines) }

// Type is entry i's type, without parsing the rest.
func (c Catalog) Type(i int) string {
	t, _, _ := strings.Cut(c.lines[i], "\t")
	return t
}

// Global tells whether entry i applies in every project (see Entry.Global).
func (c Catalog) Global(i int) bool {
	t := c.Type(i)
	return t == "user" || t == "feedback"
}

// AppliesTo is Entry.AppliesTo for entry i, rootSlug being Slug(root).
func (c Catalog) AppliesTo(i int, root, rootSlug string) bool {
	if c.Global(i) {
		return true
	}
	f := cacheFields(c.lines[i])
	cwd, err := strconv.Unquote(f[fCwd])
	return err == nil && store.InProject(cwd, f[fSlug], root, rootSlug)
}

// Entry parses entry i.
func (c Catalog) Entry(i int) Entry {
	return parseCacheLine(c.dir, c.lines[i]).Entry
}

// Fresh tells whether entry i's file is still the one the cache read (its
// size and modification time): an entry edited in place leaves its folder's
// time as it was.
func (c Catalog) Fresh(i int) bool {
	ce := parseCacheLine(c.dir, c.lines[i])
	fi, err := os.Lstat(ce.Entry.Path)
	return err == nil && fi.Size() == ce.Size && fi.ModTime().UnixNano() == ce.MTime
}

// Load is the catalog a session start reads: the cache alone when no type
// folder changed since it was written (ccmem writes entries by rename, so
// each new, replaced or removed entry changes its folder's time), else
// rebuilt as List does. Callers check Fresh for the entries they show and
// call Rebuild when one is not.
func Load(ctx context.Context, e store.Env) (Catalog, error) {
	if c, ok := readCatalog(e); ok {
		return c, nil
	}
	return rebuild(ctx, e)
}

// Rebuild is Load checking every entry's file, as List does.
func Rebuild(ctx context.Context, e store.Env) (Catalog, error) { return rebuild(ctx, e) }

// The cache is a tab-separated file, cheap to read: a version line; a line
// of the type folders' modification times and of when they were taken;
// then one line per entry in display order: type, slug of source_cwd,
// source_cwd (quoted), error (quoted), file, size, mtime, name and
// description.
const learnedCacheVersion = "ccmem-learned-cache 3"

const (
	fType = iota
	fSlug
	fCwd
	fErr
	fFile
	fSize
	fMTime
	fName
	fDesc
	nFields
)

// cacheFields splits a cache line into its fields (nil when it has not
// got them all).
func cacheFields(line string) []string {
	f := strings.SplitN(line, "\t", nFields)
	if len(f) != nFields {
		return nil
	}
	return f
}

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
	var b strings.Builder
	b.WriteString(strconv.FormatInt(taken.UnixNano(), 10))
	for _, s := range stamps {
		b.WriteByte('\t')
		b.WriteString(strconv.FormatInt(s, 10))
	}
	return b.String()
}

// readCatalog reads the cache when the type folders are as it recorded
// them, and not changed too close to when it recorded them.
func readCatalog(e store.Env) (Catalog, bool) {
	c := Catalog{dir: e.LearnedDir()}
	data, err := store.ReadSmallFile(filepath.Join(c.dir, cacheName), 256<<20)
	if err != nil {
		return c, false
	}
	text := string(data)
	version, text, _ := strings.Cut(text, "\n")
	stamps, text, _ := strings.Cut(text, "\n")
	if version != learnedCacheVersion {
		return c, false
	}
	if !stampsVouch(stamps, folderStamps(e)) {
		return c, false
	}
	var errs []error
	for text != "" {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		f := cacheFields(line)
		if f == nil {
			return c, false
		}
		if f[fErr] != `""` {
			msg, _ := strconv.Unquote(f[fErr])
			errs = append(errs, errors.New(msg))
			continue
		}
		c.lines = append(c.lines, line)
	}
	c.Err = errors.Join(errs...)
	return c, true
}

const cacheName = ".cache.tsv"

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

// rebuild lists the type folders, re-parses the entries whose size or
// modification time changed since the cache read them, and rewrites the
// cache when anything changed.
func rebuild(ctx context.Context, e store.Env) (Catalog, error) {
	c := Catalog{dir: e.LearnedDir()}
	taken := time.Now()
	stamps := folderStamps(e)
	old := readCachedEntries(filepath.Join(c.dir, cacheName))
	var fresh []cachedEntry
	var errs []error
	dirty := false
	for _, typ := range Types {
		dir := filepath.Join(c.dir, typ)
		ents, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, e.PathError(dir, err))
			}
			continue
		}
		for _, de := range ents {
			if ctx.Err() != nil {
				return c, ctx.Err()
			}
			if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".md") {
				continue
			}
			path := filepath.Join(dir, de.Name())
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
		if d := typeRank(a.Entry.Type) - typeRank(b.Entry.Type); d != 0 {
			return d
		}
		return strings.Compare(a.Entry.Name, b.Entry.Name)
	})
	if dirty || len(fresh) != len(old.entries) || !stampsVouch(old.stamps, stamps) {
		writeLearnedCache(filepath.Join(c.dir, cacheName), stampLine(taken, stamps), fresh)
	}
	for _, ce := range fresh {
		if ce.Err != "" {
			errs = append(errs, errors.New(ce.Err))
			continue
		}
		c.lines = append(c.lines, cacheLine(c.dir, ce))
	}
	c.Err = errors.Join(errs...)
	return c, nil
}

type cacheFile struct {
	stamps  string
	entries map[string]cachedEntry
}

// readCachedEntries reads every entry of the cache, whatever its stamps.
func readCachedEntries(path string) cacheFile {
	c := cacheFile{entries: map[string]cachedEntry{}}
	data, err := store.ReadSmallFile(path, 256<<20)
	if err != nil {
		return c
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 2 || lines[0] != learnedCacheVersion {
		return c
	}
	c.stamps = lines[1]
	dir := filepath.Dir(path)
	for _, l := range lines[2:] {
		if ce := parseCacheLine(dir, l); ce.Entry.Path != "" {
			c.entries[ce.Entry.Path] = ce
		}
	}
	return c
}

// parseCacheLine parses one entry's line (Path "" when it is damaged).
func parseCacheLine(dir, line string) cachedEntry {
	f := cacheFields(line)
	if f == nil {
		return cachedEntry{}
	}
	size, err1 := strconv.ParseInt(f[fSize], 10, 64)
	mtime, err2 := strconv.ParseInt(f[fMTime], 10, 64)
	cwd, err3 := strconv.Unquote(f[fCwd])
	msg, err4 := strconv.Unquote(f[fErr])
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || !slices.Contains(Types, f[fType]) || strings.ContainsAny(f[fFile], `/\`) {
		return cachedEntry{}
	}
	return cachedEntry{Size: size, MTime: mtime, Err: msg,
		Entry: Entry{Type: f[fType], Name: f[fName], Description: f[fDesc], SourceCwd: cwd, Path: filepath.Join(dir, f[fType], f[fFile])}}
}

func cacheLine(dir string, ce cachedEntry) string {
	slug := ""
	if ce.Entry.SourceCwd != "" {
		slug = store.Slug(filepath.Clean(ce.Entry.SourceCwd))
	}
	return strings.Join([]string{ce.Entry.Type, tabless(slug), strconv.Quote(ce.Entry.SourceCwd), strconv.Quote(ce.Err),
		filepath.Base(ce.Entry.Path), strconv.FormatInt(ce.Size, 10), strconv.FormatInt(ce.MTime, 10),
		tabless(ce.Entry.Name), tabless(ce.Entry.Description)}, "\t")
}

// writeLearnedCache saves the cache when the learned folder exists; a
// failure only costs the next run a re-parse.
func writeLearnedCache(path, stamps string, entries []cachedEntry) {
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return
	}
	var b strings.Builder
	b.WriteString(learnedCacheVersion + "\n" + stamps + "\n")
	for _, ce := range entries {
		if strings.ContainsAny(filepath.Base(ce.Entry.Path), "\t\n") {
			continue
		}
		b.WriteString(cacheLine(filepath.Dir(path), ce))
		b.WriteByte('\n')
	}
	store.Tidy(filepath.Dir(path), filepath.Base(path))
	_ = store.WriteCacheFile(path, []byte(b.String()))
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
		Description: str.OneLine(meta.Description),
		Path:        path,
	}
	if meta.Name != "" {
		le.Name = str.OneLine(meta.Name)
	}
	if s, ok := meta.Fields["source_cwd"].(string); ok {
		le.SourceCwd = s
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
	var out []string
	chars := 0
	for _, l := range strings.Split(str.ValidUTF8(body), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(out) == maxLines {
			return append(out, "…")
		}
		if room := maxChars - chars; str.Chars(l) > room {
			if room >= 40 {
				out = append(out, str.Shorten(l, room))
			}
			return append(out, "…")
		}
		out = append(out, l)
		chars += str.Chars(l)
	}
	return out
}
