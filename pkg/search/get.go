package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// ErrNotMemory is a path outside the places memory lives.
var ErrNotMemory = errors.New("not a memory file: only files in ccmem's store or in a repository's .claude/memory/ can be read")

// maxGet bounds what Get returns of a file.
const maxGet = 256 << 10

// Get reads a memory file a hit named: a file in the store, or in the
// memory folder of a repository the store knows (or the current one,
// root), never following a symlink. A file over 256 KB is cut, saying so.
func Get(e store.Env, path, root string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s: the path must be absolute, as search gives it", path)
	}
	f, fi, err := store.OpenMemory(e, filepath.Clean(path), knownRoots(e, root))
	if errors.Is(err, store.ErrOutside) {
		return "", fmt.Errorf("%s: %w", path, ErrNotMemory)
	}
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

// GetTurns reads the passage a hit named in a session's record — what
// was said in turn, and in the turns either side of it (around) — with
// the session's title and date, as Get finds and opens the file. A file
// that is not a session's record is an error saying to read it whole.
func GetTurns(e store.Env, path, root string, turn, around int) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s: the path must be absolute, as search gives it", path)
	}
	f, fi, err := store.OpenMemory(e, filepath.Clean(path), knownRoots(e, root))
	if errors.Is(err, store.ErrOutside) {
		return "", fmt.Errorf("%s: %w", path, ErrNotMemory)
	}
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
	var ep episode
	if json.Unmarshal(data, &ep) != nil || ep.SessionID == "" {
		return "", fmt.Errorf("%s: not a session's record; read it without a turn", path)
	}
	title := ep.Title
	if title == "" {
		title = ep.Goal
	}
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
