package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncCarriesMemoryToTheOtherMachine: two machines (HOMEs at
// different paths, the project cloned into different folders, one remote);
// what the first remembers and the session it had reach the real client's
// next session on the second after `ccmem sync init` there.
func TestSyncCarriesMemoryToTheOtherMachine(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is not installed: ccmem sync runs the user's git")
	}
	remote := filepath.Join(t.TempDir(), "memory.git")
	if out, err := exec.Command(git, "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	a, b := newWorld(t, nil), newWorld(t, nil)
	for _, w := range []*world{a, b} {
		w.write(filepath.Join(w.project, ".git", "config"), "[remote \"origin\"]\n\turl = git@github.com:ana/shop.git\n")
		w.extraEnv = append(w.extraEnv, "GIT_CONFIG_NOSYSTEM=1")
	}
	if out, err := a.ccmem("remember", "the staging database is heron-7"); err != nil {
		t.Fatalf("remember on A: %v\n%s", err, out)
	}
	a.claude("-p", "rename the price helper to priceOf")
	a.claude("-p", "thanks") // the first session becomes an episode
	if out, err := a.ccmem("sync", "init", remote); err != nil {
		t.Fatalf("sync init on A: %v\n%s", err, out)
	}
	if out, err := b.ccmem("sync", "init", remote); err != nil || !strings.Contains(out, "joined") {
		t.Fatalf("sync init on B: %v\n%s", err, out)
	}
	n := len(b.api.MessageRequests())
	b.claude("-p", "hello")
	blocks := b.injected(n)
	if len(blocks) == 0 {
		t.Fatal("B's session got no memory block")
	}
	blk := blocks[0]
	for _, want := range []string{"heron-7", "rename the price helper"} {
		if !strings.Contains(blk, want) {
			t.Errorf("B's next session is not told %q:\n%s", want, blk)
		}
	}
}
