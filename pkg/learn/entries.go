package learn

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

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
	if l.Global() {
		return true
	}
	if root == "" || l.SourceCwd == "" {
		return false
	}
	src := filepath.Clean(l.SourceCwd)
	// A source_cwd derived from a silo's slug is only approximate (slugs are
	// lossy), so an equal slug counts as the same project too.
	return src == root || strings.HasPrefix(src, root+string(filepath.Separator)) ||
		store.Slug(src) == store.Slug(root)
}

// List reads the frontmatter of every canonical entry, in display
// order. Entries whose files cannot be read or parsed are skipped and
// reported in the returned error (the others are still returned). What it
// parsed is cached in learned/.cache.tsv, keyed by each file's size and
// modification time, so a session start with thousands of entries costs a
// directory listing and a stat per entry.
func List(ctx context.Context, e store.Env) ([]Entry, error) {
	var out []Entry
	var errs []error
	cachePath := filepath.Join(e.LearnedDir(), ".cache.tsv")
	cache := readLearnedCache(cachePath)
	fresh := learnedCache{Entries: map[string]cachedEntry{}}
	dirty := false
	for _, typ := range Types {
		dir := filepath.Join(e.LearnedDir(), typ)
		ents, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, e.PathError(dir, err))
			}
			continue
		}
		for _, de := range ents {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".md") {
				continue
			}
			path := filepath.Join(dir, de.Name())
			fi, err := de.Info()
			if err != nil {
				continue
			}
			stamp := cachedEntry{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
			ce, ok := cache.Entries[path]
			if !ok || ce.Size != stamp.Size || ce.MTime != stamp.MTime {
				ce = parseLearned(e, typ, path, de.Name())
				ce.Size, ce.MTime = stamp.Size, stamp.MTime
				dirty = true
			}
			fresh.Entries[path] = ce
			if ce.Err != "" {
				errs = append(errs, errors.New(ce.Err))
				continue
			}
			out = append(out, ce.Entry)
		}
	}
	if dirty || len(fresh.Entries) != len(cache.Entries) {
		writeLearnedCache(cachePath, fresh)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Type != out[j].Type {
			return typeRank(out[i].Type) < typeRank(out[j].Type)
		}
		return out[i].Name < out[j].Name
	})
	return out, errors.Join(errs...)
}

// The cache is a tab-separated file, one entry a line, cheap to read:
// version line, then type, file, size, mtime, name, description,
// source_cwd and error, the last two quoted.
const learnedCacheVersion = "ccmem-learned-cache 2"

type learnedCache struct {
	Entries map[string]cachedEntry
}

type cachedEntry struct {
	Size  int64
	MTime int64
	Entry Entry
	Err   string
}

func readLearnedCache(path string) learnedCache {
	c := learnedCache{Entries: map[string]cachedEntry{}}
	data, err := store.ReadSmallFile(path, 64<<20)
	if err != nil {
		return c
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) == 0 || lines[0] != learnedCacheVersion {
		return c
	}
	dir := filepath.Dir(path)
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 8 {
			continue
		}
		size, err1 := strconv.ParseInt(f[2], 10, 64)
		mtime, err2 := strconv.ParseInt(f[3], 10, 64)
		cwd, err3 := strconv.Unquote(f[6])
		msg, err4 := strconv.Unquote(f[7])
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			continue
		}
		p := filepath.Join(dir, f[0], f[1])
		c.Entries[p] = cachedEntry{Size: size, MTime: mtime, Err: msg,
			Entry: Entry{Type: f[0], Name: f[4], Description: f[5], SourceCwd: cwd, Path: p}}
	}
	return c
}

// writeLearnedCache saves the cache when the learned folder exists; a
// failure only costs the next run a re-parse.
func writeLearnedCache(path string, c learnedCache) {
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return
	}
	keys := make([]string, 0, len(c.Entries))
	for k := range c.Entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(learnedCacheVersion + "\n")
	for _, k := range keys {
		ce := c.Entries[k]
		rel, err := filepath.Rel(filepath.Dir(path), k)
		typ, file := filepath.Split(rel)
		if err != nil || strings.ContainsAny(rel, "\t\n") {
			continue
		}
		fmt.Fprintf(&b, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", strings.TrimSuffix(typ, "/"), file, ce.Size, ce.MTime,
			tabless(ce.Entry.Name), tabless(ce.Entry.Description), strconv.Quote(ce.Entry.SourceCwd), strconv.Quote(ce.Err))
	}
	store.Tidy(filepath.Dir(path), filepath.Base(path))
	_ = store.WriteFileAtomic(path, []byte(b.String()))
}

func tabless(s string) string { return strings.NewReplacer("\t", " ", "\n", " ").Replace(s) }

// parseLearned reads one canonical entry's frontmatter.
func parseLearned(e store.Env, typ, path, file string) cachedEntry {
	data, err := store.ReadSmallFile(path, 1<<20)
	if err != nil {
		return cachedEntry{Err: e.PathError(path, err).Error()}
	}
	meta, _, err := frontmatter.Read(data)
	if err != nil {
		return cachedEntry{Err: e.PathError(path, err).Error()}
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
