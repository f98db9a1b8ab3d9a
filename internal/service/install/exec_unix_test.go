//go:build !windows

package install

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// Replacing an installed binary that is open (running) swaps the name to
// the new file; the old one stays readable through its open handle.
func TestReplaceExecutableWhileOpen(t *testing.T) {
	dir := t.TempDir()
	to := filepath.Join(dir, "stop")
	if err := os.WriteFile(to, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	running, err := os.Open(to)
	if err != nil {
		t.Fatal(err)
	}
	defer running.Close()
	tmp := filepath.Join(dir, ".stop.tmp-1")
	if err := os.WriteFile(tmp, []byte("new"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := replaceExecutable(tmp, to); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(to); string(got) != "new" {
		t.Fatalf("installed %q", got)
	}
	old := make([]byte, 3)
	if _, err := running.ReadAt(old, 0); err != nil || string(old) != "old" {
		t.Fatalf("the running copy reads %q, %v", old, err)
	}
	if fi, _ := os.Stat(to); !Executable(fi) {
		t.Fatal("not executable")
	}
	if claudecode.Exe("stop") != "stop" {
		t.Fatal(`Exe adds ".exe" off Windows`)
	}
}
