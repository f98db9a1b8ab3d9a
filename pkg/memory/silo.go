package memory

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Backlog is how many memory files wait in Claude Code's silos.
type Backlog struct {
	Files int `json:"files"`
	Silos int `json:"silos"`
}

// CountBacklog counts the memory files in every silo
// (<claude dir>/projects/*/memory/*.md, MEMORY.md excepted) from directory
// listings alone: no memory file is opened, so it stays cheap with many
// silos. Files the last `learn check` skipped (and that have not changed
// since) are not counted: learn would leave them alone.
func CountBacklog(ctx context.Context, e Env) (Backlog, error) {
	return countBacklog(ctx, e, ReadStatus(e).skippedSet())
}

func countBacklog(ctx context.Context, e Env, skipped map[string]FileStamp) (Backlog, error) {
	var b Backlog
	projects, err := os.ReadDir(e.SilosDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return b, nil
		}
		return b, pathError(e, e.SilosDir(), err)
	}
	for _, p := range projects {
		if err := ctx.Err(); err != nil {
			return b, err
		}
		if !p.IsDir() {
			continue
		}
		n := countSiloFiles(filepath.Join(e.SilosDir(), p.Name(), "memory"), skipped)
		if n > 0 {
			b.Files += n
			b.Silos++
		}
	}
	return b, nil
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
