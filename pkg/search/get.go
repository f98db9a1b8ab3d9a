package search

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// ErrNotMemory is a path outside the places memory lives.
var ErrNotMemory = errors.New("not a memory file: only files in ccmem's store or in a repository's .claude/memory/ can be read")

// ErrOtherProject is a memory file of a project other than the scope's.
var ErrOtherProject = errors.New("not this project's memory: another project's memory is read only where the person turned on mcp.other_projects in ~/.claude/ccmem/config.yaml")

// maxGet bounds what Get returns of a file.
const maxGet = 256 << 10

// Get reads a memory file a hit named, of the scope: a file a search of
// the scope indexes (see covered), opened without following a symlink. A
// file over 256 KB is cut, saying so.
func Get(e store.Env, path string, sc Scope) (string, error) {
	f, fi, err := openCovered(e, path, sc)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, min(fi.Size(), maxGet))
	n, _ := io.ReadFull(f, buf)
	text := textfmt.ValidUTF8(buf[:n])
	if fi.Size() > maxGet {
		text += fmt.Sprintf("\n… (cut: the file has %d bytes; read it with your file tools for the rest)", fi.Size())
	}
	return text, nil
}

// openCovered opens path when it is a memory file of the scope: in the
// store or in the memory folder of the scope's repository (of every
// repository the store knows, for a scope of every project), and one a
// search of the scope indexes.
func openCovered(e store.Env, path string, sc Scope) (*os.File, os.FileInfo, error) {
	if !filepath.IsAbs(path) {
		return nil, nil, fmt.Errorf("%s: the path must be absolute, as search gives it", path)
	}
	path = filepath.Clean(path)
	roots := []string{sc.Root}
	if sc.All {
		roots = knownRoots(e, sc.Root)
	}
	if !store.Within(e.Store, path) && !slices.ContainsFunc(roots, func(r string) bool { return r != "" && store.Within(store.RepoMemoryDir(r), path) }) {
		if !sc.All && slices.ContainsFunc(knownRoots(e, ""), func(r string) bool { return store.Within(store.RepoMemoryDir(r), path) }) {
			return nil, nil, fmt.Errorf("%s: %w", path, ErrOtherProject)
		}
		return nil, nil, fmt.Errorf("%s: %w", path, ErrNotMemory)
	}
	if !covered(e, sc, path) {
		if !sc.All && covered(e, Scope{All: true}, path) {
			return nil, nil, fmt.Errorf("%s: %w", path, ErrOtherProject)
		}
		return nil, nil, fmt.Errorf("%s: %w", path, ErrNotMemory)
	}
	f, fi, err := store.OpenMemory(e, path, roots)
	if errors.Is(err, store.ErrOutside) {
		return nil, nil, fmt.Errorf("%s: %w", path, ErrNotMemory)
	}
	return f, fi, err
}

// knownRoots are the project roots the store knows, and root.
func knownRoots(e store.Env, root string) []string {
	var out []string
	if root != "" {
		out = append(out, root)
	}
	ents, _ := os.ReadDir(e.ProjectsDir())
	for _, de := range ents {
		if de.IsDir() {
			if r := e.ProjectRoot(de.Name()); r != "" && r != root {
				out = append(out, r)
			}
		}
	}
	return out
}

// covered tells whether path is a memory file of the scope: one a search
// of the scope indexes (see layout) — a learned project or reference entry
// only when it belongs to the scope's project, as search ranks them.
func covered(e store.Env, sc Scope, path string) bool {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for _, u := range layout(e, sc) {
		if u.file != "" {
			if u.file == path {
				return true
			}
			continue
		}
		if u.dir != dir || !u.match(base) || bucketOf(base, u.buckets) != u.bucket {
			continue
		}
		if u.kind == KindLearned && !sc.All {
			data, err := u.read(path, maxEntry)
			if err != nil {
				return false
			}
			if d, ok := learnedDoc(u.typ, path, data); !ok || d.Scope != "" && !inScope(d.Scope, sc) {
				return false
			}
		}
		return true
	}
	return false
}

// GetTurns reads the passage a hit named in a session's record — what
// was said in turn, and in the turns either side of it (around) — with
// the session's title and date, of a file Get would read. A file
// that is not a session's record is an error saying to read it whole.
func GetTurns(e store.Env, path string, sc Scope, turn, around int) (string, error) {
	f, fi, err := openCovered(e, path, sc)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi.Size() > maxEpisodeGet {
		return "", fmt.Errorf("%s: %d bytes is too large for a session's record", path, fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxEpisodeGet))
	if err != nil {
		return "", err
	}
	ep, err := episode.Decode(data)
	if err != nil || ep.SessionID == "" {
		return "", fmt.Errorf("%s: not a session's record; read it without a turn", path)
	}
	title := ep.Name()
	var b strings.Builder
	fmt.Fprintf(&b, "Session %q", textfmt.Line(textfmt.Shorten(title, titleLen)))
	if t, err := time.Parse(time.RFC3339Nano, ep.StartedAt); err == nil {
		b.WriteString(", started " + t.UTC().Format("2006-01-02 15:04"))
	}
	fmt.Fprintf(&b, ", %s; turns %d to %d of what it kept:\n", textfmt.Plural(ep.Turns, "turn", "turns"), max(turn-around, 1), turn+around)
	shown := 0
	for _, n := range ep.Digest.Notes {
		// What was said before the first prompt (turn 0) goes with turn 1.
		if max(n.Turn, 1) < turn-around || n.Turn > turn+around || strings.TrimSpace(n.Text) == "" {
			continue
		}
		mark := " "
		if max(n.Turn, 1) == turn {
			mark = ">"
		}
		what := n.Kind
		if n.Cmd != "" {
			what += " `" + textfmt.Line(n.Cmd) + "`"
		}
		if n.Turn == 0 {
			fmt.Fprintf(&b, "%s before the first prompt, %s: %s\n", mark, what, textfmt.Line(n.Text))
		} else {
			fmt.Fprintf(&b, "%s turn %d, %s: %s\n", mark, n.Turn, what, textfmt.Line(n.Text))
		}
		shown++
	}
	if shown == 0 {
		fmt.Fprintf(&b, "  (nothing kept from those turns; read the file whole)\n")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// maxEpisodeGet bounds a session's record GetTurns reads: a digest is
// capped far below it.
const maxEpisodeGet = 4 << 20
