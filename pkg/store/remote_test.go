package store_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
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
	if k := store.RemoteKey("git@github.com:ana/shop.git"); k != "git-github-com-ana-shop-6e3ccdf9ef21171c" || !store.ValidKey(k) {
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
	if pa.Key != pb.Key || pa.Key != "git-github-com-ana-shop-6e3ccdf9ef21171c" {
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
		if errs[i] != nil || keys[i] != "git-github-com-ana-shop-6e3ccdf9ef21171c" {
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
	old, key := store.Slug(repo), "git-github-com-ana-shop-6e3ccdf9ef21171c"
	storetest.Mkfile(t, e.ProjectFile(old), fmt.Sprintf("{\n  \"root\": %q,\n  \"key\": %q\n}\n", repo, old))
	storetest.Mkfile(t, filepath.Join(e.EpisodesDir(old), "20261101T000000Z-here.json"), `{"session_id":"here"}`)
	storetest.Mkfile(t, e.BriefingPath(old), "# here\n")
	storetest.Mkfile(t, filepath.Join(e.EpisodesDir(key), "20261102T000000Z-there.json"), `{"session_id":"there"}`)
	storetest.Mkfile(t, e.BriefingPath(key), "# there\n")
	// The other machine's memory says which repository it is, and this
	// clone holds that commit.
	commit := strings.Repeat("ab", 20)
	storetest.Mkfile(t, e.AnchorPath(key), `{"remote":"github.com/ana/shop","commit":"`+commit+`"}`)
	storetest.Mkfile(t, filepath.Join(repo, ".git", "objects", commit[:2], commit[2:]), "x")
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

// gitRepo makes a real repository with one commit, packed, whose remote
// origin is remote and whose origin/HEAD is that commit (as a clone has
// it); it returns the folder and the commit.
func gitRepo(t *testing.T, name, remote string) (dir, commit string) {
	t.Helper()
	g, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is not installed: these tests make real repositories")
	}
	dir = filepath.Join(storetest.RealDir(t), name)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(g, append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	os.MkdirAll(dir, 0o755)
	run("init", "-q", "-b", "main")
	storetest.Mkfile(t, filepath.Join(dir, "README"), name+"\n")
	run("add", "README")
	run("commit", "-q", "-m", "first")
	commit = run("rev-parse", "HEAD")
	run("remote", "add", "origin", remote)
	run("update-ref", "refs/remotes/origin/main", commit)
	run("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	run("gc", "-q") // into a pack, as a clone has it
	if _, err := os.Stat(filepath.Join(dir, ".git", "objects", commit[:2], commit[2:])); err == nil {
		t.Fatal("the commit is still loose after gc")
	}
	return dir, commit
}

// TestRemoteKeysDoNotCollide: two remotes whose slugs agree get keys of
// their own, so a clone of one is never given the other's memory.
func TestRemoteKeysDoNotCollide(t *testing.T) {
	pairs := [][2]string{
		{"git@github.com:acme/payments-api.git", "https://github.com/acme-payments/api.git"},
		{"git@github.com:a/b.c", "git@github.com:a/b-c"},
		{"https://gitlab.example.com/x/y", "https://gitlab-example.com/x/y"},
		{"git@github.com:ana/shop", "git@github.com:ana/shop_"},
	}
	for _, p := range pairs {
		a, b := store.RemoteKey(p[0]), store.RemoteKey(p[1])
		if a == b || !store.ValidKey(a) || !store.ValidKey(b) {
			t.Errorf("%s and %s: keys %q and %q", p[0], p[1], a, b)
		}
	}
	// And on disk: the first project's memory is not the second's.
	e := storetest.Env(t)
	ra, _ := gitRepo(t, "payments-api", pairs[0][0])
	rb, _ := gitRepo(t, "api", pairs[0][1])
	pa, err := store.ResolveProject(e, ra)
	if err != nil {
		t.Fatal(err)
	}
	if pa, err = store.ClaimProject(e, pa); err != nil {
		t.Fatal(err)
	}
	storetest.Mkfile(t, e.BriefingPath(pa.Key), "# payments-api: private\n")
	pb, err := store.ResolveProject(e, rb)
	if err != nil {
		t.Fatal(err)
	}
	if pb.Key == pa.Key {
		t.Fatalf("the second remote got the first's key %q", pa.Key)
	}
	if pb, err = store.ClaimProject(e, pb); err != nil || pb.Key != store.RemoteKey(pairs[0][1]) {
		t.Fatalf("the second remote's own key: %q %v", pb.Key, err)
	}
}

// TestCopiedFolderGetsNoMemory: memory of a remote, synced from another
// machine, goes to a clone of that repository and not to a folder that
// only names the remote in .git/config (a copied or crafted folder), nor
// to one whose objects/info/alternates borrows a real clone's objects.
// The first machine that claims a key writes which repository it is.
func TestCopiedFolderGetsNoMemory(t *testing.T) {
	const remote = "git@github.com:ana/private.git"
	// Machine one: a clone claims the key and anchors it.
	one := storetest.Env(t)
	clone, commit := gitRepo(t, "private", remote)
	p, err := store.ResolveProject(one, clone)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = store.ClaimProject(one, p); err != nil || p.Key != store.RemoteKey(remote) {
		t.Fatalf("the clone's claim: %q %v", p.Key, err)
	}
	anchor, err := os.ReadFile(one.AnchorPath(p.Key))
	if err != nil || !strings.Contains(string(anchor), commit) {
		t.Fatalf("no anchor with the clone's commit %s: %q %v", commit, anchor, err)
	}

	// Machine two: the key's memory arrived by sync.
	two := storetest.Env(t)
	key := store.RemoteKey(remote)
	storetest.Mkfile(t, two.BriefingPath(key), "# private: the deploy runbook\n")
	storetest.Mkfile(t, two.AnchorPath(key), string(anchor))
	crafted := repoWithRemote(t, "crafted", remote)
	borrowing := repoWithRemote(t, "borrowing", remote)
	storetest.Mkfile(t, filepath.Join(borrowing, ".git", "objects", "info", "alternates"), filepath.Join(clone, ".git", "objects")+"\n")
	unrelated, _ := gitRepo(t, "unrelated", remote) // a different history
	for _, dir := range []string{crafted, borrowing, unrelated} {
		q, err := store.ResolveProject(two, dir)
		if err != nil {
			t.Fatal(err)
		}
		if q.Key == key {
			t.Errorf("%s, which lacks the commit, got the key %q", dir, key)
		}
		if q, err = store.ClaimProject(two, q); err != nil || q.Key == key {
			t.Errorf("%s claimed %q: %v", dir, q.Key, err)
		}
	}
	// A real clone on machine two gets it.
	q, err := store.ResolveProject(two, clone)
	if err != nil || q.Key != key {
		t.Fatalf("the real clone: %q %v", q.Key, err)
	}
	if q, err = store.ClaimProject(two, q); err != nil || q.Key != key {
		t.Fatalf("the real clone's claim: %q %v", q.Key, err)
	}
}

// TestOlderRemoteKeyMigrates: a folder under the remote's key from before
// keys held a hash moves to the new key at the first claim.
func TestOlderRemoteKeyMigrates(t *testing.T) {
	e := storetest.Env(t)
	repo, _ := gitRepo(t, "shop", "git@github.com:ana/shop.git")
	old := "git-github-com-ana-shop"
	storetest.Mkfile(t, e.ProjectFile(old), fmt.Sprintf("{\n  \"root\": %q,\n  \"key\": %q,\n  \"git\": true\n}\n", repo, old))
	storetest.Mkfile(t, filepath.Join(e.EpisodesDir(old), "20261101T000000Z-here.json"), `{"session_id":"here"}`)
	p, err := store.ResolveProject(e, repo)
	if err != nil {
		t.Fatal(err)
	}
	if p.Key != old {
		t.Fatalf("before the claim, reads use the old folder: %q", p.Key)
	}
	if p, err = store.ClaimProject(e, p); err != nil || p.Key != store.RemoteKey("git@github.com:ana/shop.git") {
		t.Fatalf("claim: %q %v", p.Key, err)
	}
	if eps, _ := os.ReadDir(e.EpisodesDir(p.Key)); len(eps) != 1 {
		t.Errorf("the episode did not move: %v", eps)
	}
	if _, err := os.Stat(e.ProjectDir(old)); err == nil {
		t.Error("the old folder is still there")
	}
	if _, err := os.Stat(e.AnchorPath(p.Key)); err != nil {
		t.Errorf("the moved folder has no anchor: %v", err)
	}
}

// TestCopyFirstLeavesTheCloneItsMemory: a folder that only names a remote
// in .git/config (a copied config, no history), opened first on a machine
// where the remote's key is free, takes the key; when the key's memory
// arrives by sync, the real clone opened later takes the key over from
// it and gets that memory, and the copy is keyed by its path.
func TestCopyFirstLeavesTheCloneItsMemory(t *testing.T) {
	const remote = "git@github.com:ana/private.git"
	key := store.RemoteKey(remote)
	e := storetest.Env(t)
	copied := repoWithRemote(t, "copied", remote)
	q, err := store.ResolveProject(e, copied)
	if err != nil {
		t.Fatal(err)
	}
	if q, err = store.ClaimProject(e, q); err != nil || q.Key != key {
		t.Fatalf("the copy, first, on a free key: %q %v", q.Key, err)
	}
	// Memory arrives by sync, with the anchor of the real repository.
	clone, commit := gitRepo(t, "private", remote)
	storetest.Mkfile(t, e.BriefingPath(key), "# private: the deploy runbook\n")
	storetest.Mkfile(t, e.AnchorPath(key), fmt.Sprintf(`{"remote":"github.com/ana/private","commit":%q}`, commit))
	p, err := store.ResolveProject(e, clone)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = store.ClaimProject(e, p); err != nil || p.Key != key {
		t.Fatalf("the real clone did not get its memory: key %q %v", p.Key, err)
	}
	if q, err = store.ResolveProject(e, copied); err != nil || q.Key == key {
		t.Fatalf("the copied folder kept the key: %q %v", q.Key, err)
	}
}

// TestRemoteAnchorCannotUnbindTheClone: a repository.json the remote
// rewrote to name a commit no clone has does not keep the real clone from
// its memory, where the machine knew the repository's anchor before (the
// anchors a sync saw are kept here: AddAnchors).
func TestRemoteAnchorCannotUnbindTheClone(t *testing.T) {
	const remote = "git@github.com:ana/private.git"
	key := store.RemoteKey(remote)
	e := storetest.Env(t)
	clone, commit := gitRepo(t, "private", remote)
	storetest.Mkfile(t, e.BriefingPath(key), "# private: the deploy runbook\n")
	if err := store.AddAnchors(e, key, []string{commit}); err != nil {
		t.Fatal(err)
	}
	storetest.Mkfile(t, e.AnchorPath(key), `{"remote":"github.com/ana/private","commit":"0123456789abcdef0123456789abcdef01234567"}`)
	p, err := store.ResolveProject(e, clone)
	if err != nil || p.Key != key {
		t.Fatalf("a forged repository.json unbound the real clone: %q %v", p.Key, err)
	}
}
