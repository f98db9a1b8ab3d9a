package memory

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ccmem/ccmem/pkg/frontmatter"
)

// LearnedTypes are the kinds of canonical entries, in the order they are shown.
var LearnedTypes = []string{"user", "feedback", "project", "reference"}

// LearnedEntry is one canonical entry in $CCMEM_HOME/learned/<type>/.
type LearnedEntry struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	SourceCwd   string `json:"source_cwd,omitempty"`
	Path        string `json:"path"`
}

// Global tells whether the entry applies in every project: user and feedback
// entries do; project and reference entries belong to their source project.
func (l LearnedEntry) Global() bool { return l.Type == "user" || l.Type == "feedback" }

// AppliesTo tells whether the entry is injected in the project rooted at root.
func (l LearnedEntry) AppliesTo(root string) bool {
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
		Slug(src) == Slug(root)
}

// ListLearned reads the frontmatter of every canonical entry, in display
// order. Entries whose files cannot be read or parsed are skipped and
// reported in the returned error (the others are still returned).
func ListLearned(ctx context.Context, e Env) ([]LearnedEntry, error) {
	var out []LearnedEntry
	var errs []error
	for _, typ := range LearnedTypes {
		dir := filepath.Join(e.LearnedDir(), typ)
		ents, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, pathError(e, dir, err))
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
			data, err := ReadSmallFile(path, 1<<20)
			if err != nil {
				errs = append(errs, pathError(e, path, err))
				continue
			}
			meta, _, err := frontmatter.Read(data)
			if err != nil {
				errs = append(errs, pathError(e, path, err))
				continue
			}
			le := LearnedEntry{
				Type:        typ,
				Name:        strings.TrimSuffix(de.Name(), ".md"),
				Description: oneLineText(meta.Description),
				Path:        path,
			}
			if meta.Name != "" {
				le.Name = oneLineText(meta.Name)
			}
			if s, ok := meta.Fields["source_cwd"].(string); ok {
				le.SourceCwd = s
			}
			out = append(out, le)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Type != out[j].Type {
			return typeRank(out[i].Type) < typeRank(out[j].Type)
		}
		return out[i].Name < out[j].Name
	})
	return out, errors.Join(errs...)
}

func typeRank(t string) int {
	for i, x := range LearnedTypes {
		if x == t {
			return i
		}
	}
	return len(LearnedTypes)
}

// oneLineText folds whitespace (newlines included) to single spaces.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
