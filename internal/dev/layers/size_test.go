package layers

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// sizeCeilings are the most each binary may weigh, built as a release
// builds it (-trimpath -ldflags='-s -w'), on linux/amd64: a few percent
// over what they weigh now, so that a package a change adds to a chain
// shows here as well as in TestEachHookLinksOnlyItsChain.
var sizeCeilings = map[string]int64{
	"stop":               3_650_000,
	"precompact":         3_650_000,
	"subagentstart":      3_320_000,
	"pretooluse":         3_550_000,
	"sessionstart":       4_650_000,
	"userpromptsubmit":   5_150_000,
	"posttoolusefailure": 5_000_000,
	"ccmem":              8_450_000,
	"ccmem-ui":           12_300_000,
}

// TestBinarySizes (issue 49): each binary within its ceiling. Linux on
// amd64 only: a binary's size differs by OS and architecture, and these
// ceilings are this platform's.
func TestBinarySizes(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the ceilings are linux/amd64's (sizes differ by platform)")
	}
	if testing.Short() {
		t.Skip("builds every binary (make test runs it)")
	}
	dir := t.TempDir()
	pkgs := []string{module + "cmd/ccmem", module + "cmd/ccmem-ui"}
	for _, h := range claudecode.Hooks {
		pkgs = append(pkgs, module+"hooks/"+h.Binary)
	}
	args := append([]string{"build", "-trimpath", "-ldflags=-s -w", "-o", dir + string(filepath.Separator)}, pkgs...)
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for name, ceiling := range sizeCeilings {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fi.Size() > ceiling {
			t.Errorf("%s weighs %d bytes, over its ceiling of %d: what did it start linking? (go list -deps)", name, fi.Size(), ceiling)
		}
	}
	for _, h := range claudecode.Hooks {
		if _, ok := sizeCeilings[h.Binary]; !ok {
			t.Errorf("%s has no ceiling here", h.Binary)
		}
	}
}

// roomCeilings bound a package's own lines of Go, tests left out: a
// package past its bound is doing another package's job (issue 49:
// pkg/session did four, 6.0k lines; the importers, the record's format and
// a step's normal forms now live apart).
var roomCeilings = map[string]int{
	"pkg/session": 4000,
}

// TestRoomsStaySmall: each bounded package within its lines.
func TestRoomsStaySmall(t *testing.T) {
	for pkg, most := range roomCeilings {
		files, err := filepath.Glob(filepath.Join("..", "..", "..", filepath.FromSlash(pkg), "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", pkg, err)
		}
		lines := 0
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines += bytes.Count(data, []byte("\n"))
		}
		if lines > most {
			t.Errorf("%s has %d lines of Go (tests aside), more than %d: a job of its own wants a package of its own", pkg, lines, most)
		}
	}
}
