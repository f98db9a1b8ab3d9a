package search

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ccmem/ccmem/internal/str"
	"github.com/ccmem/ccmem/pkg/store"
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
	text := str.ValidUTF8(buf[:n])
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
