package learn

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccmem/ccmem/pkg/store"
)

// BenchmarkStatusLine measures the status line's count (a directory listing
// per silo, no file opened) on 5 silos and on 500 silos of 20 files.
//
//	go test -run '^$' -bench StatusLine ./pkg/learn
func BenchmarkStatusLine(b *testing.B) {
	for _, size := range []struct{ silos, files int }{{5, 4}, {500, 20}} {
		b.Run(fmt.Sprintf("%dx%d", size.silos, size.files), func(b *testing.B) {
			dir := b.TempDir()
			e := store.Env{Home: dir, Store: filepath.Join(dir, "store"), ClaudeDir: filepath.Join(dir, "claude")}
			for s := 0; s < size.silos; s++ {
				d := filepath.Join(e.SilosDir(), fmt.Sprintf("-home-dev-p%d", s), "memory")
				if err := os.MkdirAll(d, 0o755); err != nil {
					b.Fatal(err)
				}
				for f := 0; f < size.files; f++ {
					if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("m%d.md", f)), []byte("---\nname: x\ntype: user\n---\n"), 0o644); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bl, err := CountBacklog(context.Background(), e)
				if err != nil || bl.Files != size.silos*size.files {
					b.Fatalf("%+v %v", bl, err)
				}
			}
		})
	}
}
