package learn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/store"
)

// RestoreReport says what Restore put back (or, in a dry run, would).
type RestoreReport struct {
	// Restored are the silo files written back; Indexes the silo
	// MEMORY.md files given their lines back.
	Restored []string `json:"restored"`
	Indexes  []string `json:"indexes"`
	// Skipped are entries left in the store, with why.
	Skipped []string `json:"skipped,omitempty"`
}

// Restore puts the memory learn curated back where Claude Code reads it,
// for a person who stops using ccmem: each learned entry, and each
// correction waiting in review, is written to the silo file it came from
// (its original_path, and every other silo it was found in when learn kept
// one copy of a fact several projects held: each gets the version learn
// kept), with the frontmatter Claude Code wrote and without
// ccmem's provenance, and gets its line back in that silo's MEMORY.md.
// The store keeps its copy. A file already there is left as it is; a path
// that is not a silo's memory file (entries reach the store through sync
// too: original_path is untrusted) is skipped, and so is a symlink on the
// way.
func Restore(e store.Env, dryRun bool) (RestoreReport, error) {
	rep := RestoreReport{Restored: []string{}, Indexes: []string{}}
	var paths []string
	for _, typ := range Types {
		ents, _ := os.ReadDir(filepath.Join(e.LearnedDir(), typ))
		for _, de := range ents {
			if de.Type().IsRegular() && strings.HasSuffix(de.Name(), ".md") && !strings.HasPrefix(de.Name(), ".") {
				paths = append(paths, filepath.Join(e.LearnedDir(), typ, de.Name()))
			}
		}
	}
	if ents, err := os.ReadDir(e.ReviewDir()); err == nil {
		for _, de := range ents {
			if de.Type().IsRegular() && strings.HasSuffix(de.Name(), ".md") && !strings.HasPrefix(de.Name(), ".") {
				paths = append(paths, filepath.Join(e.ReviewDir(), de.Name()))
			}
		}
	}
	lines := map[string][]string{} // silo MEMORY.md → lines to add
	for _, p := range paths {
		data, err := store.ReadSmallFile(p, 1<<20)
		if err != nil {
			continue
		}
		meta, _, err := frontmatter.Read(data)
		if err != nil {
			continue
		}
		origins := []string{}
		if orig, _ := meta.Fields["original_path"].(string); orig != "" {
			origins = append(origins, orig)
		}
		if list, ok := meta.Fields["sources"].([]any); ok {
			for _, x := range list {
				if s, ok := x.(string); ok && s != "" && !slices.Contains(origins, s) {
					origins = append(origins, s)
				}
			}
		}
		front, body, err := frontmatter.Split(data)
		if err != nil {
			continue
		}
		out := append([]byte("---\n"), stripProvenance(front)...)
		out = append(append(out, "---\n"...), body...)
		for _, orig := range origins {
			dest, ok := siloMemoryFile(e, orig)
			if !ok {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: its original path %q is not a memory file of Claude Code's", e.Tilde(p), orig))
				continue
			}
			if _, err := os.Lstat(dest); err == nil {
				continue // Claude Code has one there: it stays
			}
			if !dryRun {
				if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
					return rep, err
				}
				if err := store.WriteFileIn(e.SilosDir(), dest, out); err != nil {
					if errors.Is(err, store.ErrSymlink) || errors.Is(err, store.ErrOutside) {
						rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %v", e.Tilde(dest), err))
						continue
					}
					return rep, err
				}
			}
			rep.Restored = append(rep.Restored, dest)
			name := meta.Name
			if name == "" {
				name = strings.TrimSuffix(filepath.Base(dest), ".md")
			}
			line := "- [" + oneLine(name) + "](" + filepath.Base(dest) + ")"
			if d := oneLine(meta.Description); d != "" {
				line += " — " + d
			}
			index := filepath.Join(filepath.Dir(dest), "MEMORY.md")
			lines[index] = append(lines[index], line)
		}
	}
	for index, add := range lines {
		old, err := store.ReadFileIn(e.SilosDir(), index, 1<<20)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %v", e.Tilde(index), err))
			continue
		}
		var b bytes.Buffer
		b.Write(old)
		if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
			b.WriteByte('\n')
		}
		changed := false
		for _, l := range add {
			file := l[strings.Index(l, "](")+2 : strings.Index(l, ")")]
			if bytes.Contains(old, []byte("("+file+")")) {
				continue
			}
			b.WriteString(l + "\n")
			changed = true
		}
		if !changed {
			continue
		}
		if !dryRun {
			if err := store.WriteFileIn(e.SilosDir(), index, b.Bytes()); err != nil {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %v", e.Tilde(index), err))
				continue
			}
		}
		rep.Indexes = append(rep.Indexes, index)
	}
	return rep, nil
}

// siloMemoryFile is the silo memory file an entry's original_path names:
// Claude Code's projects/<slug>/memory/<name>.md, plainly named, and no
// other path.
func siloMemoryFile(e store.Env, orig string) (string, bool) {
	if !filepath.IsAbs(orig) {
		return "", false
	}
	p := filepath.Clean(orig)
	rel, err := filepath.Rel(e.SilosDir(), p)
	if err != nil {
		return "", false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) != 3 || parts[1] != "memory" || parts[0] == ".." || strings.HasPrefix(parts[0], ".") ||
		!strings.HasSuffix(parts[2], ".md") || parts[2] == "MEMORY.md" || strings.HasPrefix(parts[2], ".") {
		return "", false
	}
	return p, true
}

// oneLine is s on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
