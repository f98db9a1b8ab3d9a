package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncCarriesMemoryToTheOtherMachine: two machines (HOMEs at
// different paths, the project cloned into different folders from one
// remote, one memory remote); what the first remembers and the session it
// had reach the real client's next session on the second after `ccmem
// sync init` there. The second machine's clone is given the project's
// memory because it holds the commit the first machine's memory names.
func TestSyncCarriesMemoryToTheOtherMachine(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is not installed: ccmem sync runs the user's git")
	}
	remote := filepath.Join(t.TempDir(), "memory.git")
	if out, err := exec.Command(git, "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	// The project's own remote, with a commit, cloned on both machines.
	origin := filepath.Join(t.TempDir(), "shop.git")
	seed := filepath.Join(t.TempDir(), "seed")
	gitIn := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitIn(t.TempDir(), "init", "-q", "--bare", "-b", "main", origin)
	gitIn(t.TempDir(), "init", "-q", "-b", "main", seed)
	if err := os.WriteFile(filepath.Join(seed, "README"), []byte("shop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(seed, "add", "README")
	gitIn(seed, "commit", "-q", "-m", "first")
	gitIn(seed, "push", "-q", origin, "main")
	a, b := newWorld(t, nil), newWorld(t, nil)
	for _, w := range []*world{a, b} {
		os.RemoveAll(filepath.Join(w.project, ".git"))
		gitIn(w.project, "init", "-q", "-b", "main")
		gitIn(w.project, "remote", "add", "origin", origin)
		gitIn(w.project, "fetch", "-q", "origin")
		gitIn(w.project, "remote", "set-head", "origin", "main")
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
