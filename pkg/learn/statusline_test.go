package learn

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestStatusLineSweeps: with the silos folder unchanged, the status line
// sees a change in the session's own silo at once, and one in another
// silo within a sweep of the windows; a silo added is seen at once.
func TestStatusLineSweeps(t *testing.T) {
	e := storetest.Env(t)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for now.Unix()%3 != 0 {
		now = now.Add(time.Second) // the first window: silos 0 to 255
	}
	e.Now = func() time.Time { return now }
	if err := os.MkdirAll(e.Store, 0o700); err != nil {
		t.Fatal(err)
	}
	const n = 600 // three windows
	mem := func(i int) string { return filepath.Join(e.SilosDir(), fmt.Sprintf("-src-p%03d", i), "memory") }
	old := time.Now().Add(-time.Hour)
	for i := range n {
		storetest.Mkfile(t, filepath.Join(mem(i), "a.md"), "---\nname: a\n---\n")
		os.Chtimes(mem(i), old, old)
	}
	os.Chtimes(e.SilosDir(), old, old)
	if st, err := RefreshStatus(context.Background(), e, nil); err != nil || st.Backlog.Files != n {
		t.Fatalf("first count: %+v %v", st.Backlog, err)
	}
	files := func(focus ...string) int {
		st, err := RefreshStatusLine(context.Background(), e, focus)
		if err != nil {
			t.Fatal(err)
		}
		return st.Backlog.Files
	}
	add := func(i int) {
		storetest.Mkfile(t, filepath.Join(mem(i), fmt.Sprintf("new-%d.md", time.Now().UnixNano())), "x")
		os.Chtimes(mem(i), old.Add(time.Minute), old.Add(time.Minute))
	}
	add(300) // the second window: not checked now, but the session's own
	if got := files(); got != n {
		t.Fatalf("a silo outside the window and the session was counted: %d", got)
	}
	if got := files("-src-p300"); got != n+1 {
		t.Fatalf("the session's own silo changed: %d files, want %d", got, n+1)
	}
	add(599) // in the last window
	seen := false
	for range 3 {
		now = now.Add(time.Second)
		seen = seen || files() == n+2
	}
	if !seen {
		t.Fatal("a change in another silo was not seen within a sweep")
	}
	// A silo added changes the silos folder: everything is counted.
	storetest.Mkfile(t, filepath.Join(e.SilosDir(), "-src-new", "memory", "b.md"), "x")
	if got := files(); got != n+3 {
		t.Fatalf("a new silo: %d files, want %d", got, n+3)
	}
}
