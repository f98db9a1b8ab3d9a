package frontmatter

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead: any file splits into frontmatter and body that come from it, or
// reports why not; parsing never panics.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/silos/projects/*/memory/*.md")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{"---\n---\n", "---", "---\n", "\uFEFF---\nname: x\n...\nbody", "---\r\nname: a\r\n---\r\n", "---\nname: &a [*a]\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		front, body, err := Split(data)
		if errors.Is(err, ErrNone) || err != nil {
			if !bytes.Equal(body, data) {
				t.Fatal("on error the whole file must be the body")
			}
			return
		}
		if !bytes.Contains(data, front) || !bytes.HasSuffix(data, body) || len(front)+len(body) > len(data) {
			t.Fatalf("front %q and body %q are not parts of %q", front, body, data)
		}
		_, _ = Parse(front)
	})
}
