package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ccmem/ccmem/internal/storetest"
	"github.com/ccmem/ccmem/pkg/store"
)

// TestNormalizeRemote: every way of writing one clone URL is one project.
func TestNormalizeRemote(t *testing.T) {
	for _, u := range []string{
		"git@github.com:Ana/Shop.git", "ssh://git@github.com:22/ana/shop", "https://token@github.com/ana/shop/",
		"https://github.com/ana/shop.git", "git://github.com/ana/shop", "github.com:ana/shop",
	} {
		if got := store.NormalizeRemote(u); got != "github.com/ana/shop" {
			t.Errorf("NormalizeRemote(%q) = %q", u, got)
		}
	}
	if k := store.RemoteKey("git@github.com:ana/shop.git"); k != "git-github-com-ana-shop" || !store.ValidKey(k) {
		t.Errorf("RemoteKey = %q", k)
	}
	for _, u := range []string{"", "https://github.com", "git@host:"} {
		if got := store.RemoteKey(u); got != "" {
			t.Errorf("RemoteKey(%q) = %q, want none", u, got)
		}
	}
	if a, b := store.RemoteKey("/srv/git/shop.git"), store.RemoteKey("file:///srv/git/shop"); a == "" || a != b {
		t.Errorf("a local remote: %q and %q", a, b)
	}
}

// repoWithRemote makes a git repository whose origin is remote.
func repoWithRemote(t *testing.T, name, remote string) string {
	repo := filepath.Join(storetest.RealDir(t), name)
	storetest.Mkfile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "config"), "[remote \"origin\"]\n\turl = "+remote+"\n")
	return repo
}

// TestSameProjectOnTwoMachines: two clones of one remote in different
// folders of two stores get one key; a second clone on the same machine
// keeps its path key.
func TestSameProjectOnTwoMachines(t *testing.T) {
	a, b := storetest.Env(t), storetest.Env(t)
	ra := repoWithRemote(t, "shop", "git@github.com:ana/shop.git")
	rb := repoWithRemote(t, "work-shop", "https://github.com/ana/shop")
	pa, err := store.ResolveProject(a, ra)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := store.ResolveProject(b, rb)
	if err != nil {
		t.Fatal(err)
	}
	if pa.Key != pb.Key || pa.Key != "git-github-com-ana-shop" {
		t.Fatalf("keys %q and %q", pa.Key, pb.Key)
	}
	if _, err := store.ClaimProject(a, pa); err != nil {
		t.Fatal(err)
	}
	other := repoWithRemote(t, "shop-copy", "git@github.com:ana/shop.git")
	po, err := store.ResolveProject(a, other)
	if err != nil {
		t.Fatal(err)
	}
	if po.Key == pa.Key || po.Key != store.Slug(other) {
		t.Fatalf("a second clone on the same machine got %q (first %q)", po.Key, pa.Key)
	}
}

// TestPathKeyedStoreMigrates: a project folder keyed by path from before
// moves to the remote key at the first claim, every file with it, even
// with many processes claiming at once; reads before the claim see the old
// folder.
func TestPathKeyedStoreMigrates(t *testing.T) {
	e := storetest.Env(t)
	repo := repoWithRemote(t, "shop", "git@github.com:ana/shop.git")
	old := store.Slug(repo)
	// As the old code laid it out.
	storetest.Mkfile(t, e.ProjectFile(old), fmt.Sprintf("{\n  \"root\": %q,\n  \"key\": %q,\n  \"git\": true,\n  \"remote\": \"git@github.com:ana/shop.git\"\n}\n", repo, old))
	for i := range 30 {
		storetest.Mkfile(t, filepath.Join(e.EpisodesDir(old), fmt.Sprintf("20261101T0000%02dZ-s%d.json", i, i)), fmt.Sprintf(`{"session_id":"s%d"}`, i))
	}
	const menu = "- 2026-11-01 00:00 · 1 turn · OK · \"s0\" — episodes/20261101T000000Z-s0.json\n"
	storetest.Mkfile(t, e.IndexPath(old), menu)
	storetest.Mkfile(t, e.BriefingPath(old), "# shop\n")

	p, err := store.ResolveProject(e, repo)
	if err != nil {
		t.Fatal(err)
	}
	if p.Key != old {
		t.Fatalf("before a write, the project reads its old folder: key %q", p.Key)
	}
	var wg sync.WaitGroup
	keys := make([]string, 8)
	errs := make([]error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q, err := store.ResolveProject(e, repo)
			if err == nil {
				q, err = store.ClaimProject(e, q)
			}
			keys[i], errs[i] = q.Key, err
		}()
	}
	wg.Wait()
	for i := range keys {
		if errs[i] != nil || keys[i] != "git-github-com-ana-shop" {
			t.Fatalf("claim %d: key %q, %v", i, keys[i], errs[i])
		}
	}
	if _, err := os.Stat(e.ProjectDir(old)); err == nil {
		t.Errorf("the old folder is still there")
	}
	eps, _ := os.ReadDir(e.EpisodesDir(keys[0]))
	if len(eps) != 30 {
		t.Errorf("%d episodes after the move, want 30", len(eps))
	}
	if b, err := os.ReadFile(e.IndexPath(keys[0])); err != nil || string(b) != menu {
		t.Errorf("the menu changed in the move: %q, %v", b, err)
	}
	if _, err := os.Stat(e.BriefingPath(keys[0])); err != nil {
		t.Errorf("lost in the move: %v", err)
	}
	if root := e.ProjectRoot(keys[0]); root != repo {
		t.Errorf("project.json names %q", root)
	}
}

// TestMigrationMergesSyncedMemory: when another machine's memory of the
// project arrived first (by sync) under the remote key, the old folder is
// merged into it: both machines' episodes, the differing briefing kept
// beside the other.
func TestMigrationMergesSyncedMemory(t *testing.T) {
	e := storetest.Env(t)
	repo := repoWithRemote(t, "shop", "git@github.com:ana/shop.git")
	old, key := store.Slug(repo), "git-github-com-ana-shop"
	storetest.Mkfile(t, e.ProjectFile(old), fmt.Sprintf("{\n  \"root\": %q,\n  \"key\": %q\n}\n", repo, old))
	storetest.Mkfile(t, filepath.Join(e.EpisodesDir(old), "20261101T000000Z-here.json"), `{"session_id":"here"}`)
	storetest.Mkfile(t, e.BriefingPath(old), "# here\n")
	storetest.Mkfile(t, filepath.Join(e.EpisodesDir(key), "20261102T000000Z-there.json"), `{"session_id":"there"}`)
	storetest.Mkfile(t, e.BriefingPath(key), "# there\n")
	p, err := store.ResolveProject(e, repo)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = store.ClaimProject(e, p); err != nil || p.Key != key {
		t.Fatalf("claim: %q, %v", p.Key, err)
	}
	eps, _ := os.ReadDir(e.EpisodesDir(key))
	if len(eps) != 2 {
		t.Errorf("%d episodes, want both machines' 2", len(eps))
	}
	if b, err := os.ReadFile(e.BriefingPath(key) + ".pre-migration"); err != nil || string(b) != "# here\n" {
		t.Errorf("this machine's briefing: %q, %v", b, err)
	}
}
