package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testEnv is an Env rooted in a fresh temporary HOME.
func testEnv(t *testing.T) Env {
	t.Helper()
	home := t.TempDir()
	e, err := EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mkfile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestResolveProject(t *testing.T) {
	e := testEnv(t)
	base := realDir(t)
	repo := filepath.Join(base, "src", "shop")
	mkfile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	mkfile(t, filepath.Join(repo, ".git", "config"), "[remote \"origin\"]\n\turl = git@example.com:acme/shop.git\n")
	mkfile(t, filepath.Join(repo, "internal", "store", "db.go"), "package store\n")
	// A linked worktree: its .git file points into the main repository.
	wt := filepath.Join(base, "shop-feature")
	mkfile(t, filepath.Join(repo, ".git", "worktrees", "shop-feature", "commondir"), "../..\n")
	mkfile(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(repo, ".git", "worktrees", "shop-feature")+"\n")
	mkfile(t, filepath.Join(wt, "cmd", "main.go"), "package main\n")
	// A submodule: a .git file without commondir is its own root.
	sub := filepath.Join(repo, "third_party", "lib")
	mkfile(t, filepath.Join(repo, ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n")
	mkfile(t, filepath.Join(sub, ".git"), "gitdir: ../../.git/modules/lib\n")
	// Plain folders, and a symlink to the repository.
	plain := filepath.Join(base, "notes")
	if err := os.MkdirAll(filepath.Join(plain, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link-to-shop")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, dir, root string
		git             bool
	}{
		{"git root", repo, repo, true},
		{"subdirectory", filepath.Join(repo, "internal", "store"), repo, true},
		{"worktree resolves to main working tree", filepath.Join(wt, "cmd"), repo, true},
		{"submodule is its own root", sub, sub, true},
		{"symlink resolves to the real path", link, repo, true},
		{"non-git directory is its own root", filepath.Join(plain, "deep"), filepath.Join(plain, "deep"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ResolveProject(e, tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if p.Root != tt.root || p.Git != tt.git {
				t.Fatalf("ResolveProject(%s) = root %s git %v; want %s %v", tt.dir, p.Root, p.Git, tt.root, tt.git)
			}
			if p.Key != Slug(tt.root) {
				t.Fatalf("key %q, want the slug %q", p.Key, Slug(tt.root))
			}
		})
	}
	p, _ := ResolveProject(e, filepath.Join(wt, "cmd"))
	if p.Remote != "git@example.com:acme/shop.git" {
		t.Fatalf("worktree remote = %q, want the main repository's origin", p.Remote)
	}

	for _, bad := range []string{"", filepath.Join(base, "missing"), filepath.Join(repo, "internal", "store", "db.go")} {
		if _, err := ResolveProject(e, bad); err == nil {
			t.Errorf("ResolveProject(%q) succeeded; want an error", bad)
		}
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/dev/src/shop", "-home-dev-src-shop"},
		{"/home/dev/my_app.v2", "-home-dev-my-app-v2"},
		{"/home/dev/café", "-home-dev-caf-"},
		{"/home/dev/🚀", "-home-dev---"}, // one astral rune is two UTF-16 units
	}
	for _, tt := range tests {
		if got := Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := "/" + strings.Repeat("abcdefghij/", 25)
	got := Slug(long)
	if !strings.HasPrefix(got, Slug(long)[:200]) || len(got) <= 201 || got[200] != '-' {
		t.Fatalf("long slug %q: want 200 characters, '-', then a hash", got)
	}
	if Slug(long+"x") == got {
		t.Fatal("two long paths with one prefix share a slug")
	}
}

// Slugs are lossy ("/a/b-c" and "/a/b/c" share one); once one project owns
// a key, the other gets a different key, so two directories never share one.
func TestKeysNeverCollide(t *testing.T) {
	e := testEnv(t)
	base := realDir(t)
	a := filepath.Join(base, "b-c")
	b := filepath.Join(base, "b", "c")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pa, _ := ResolveProject(e, a)
	pb, _ := ResolveProject(e, b)
	if pa.Key != pb.Key {
		t.Fatalf("precondition: unclaimed lossy slugs should match, got %q and %q", pa.Key, pb.Key)
	}
	if err := ClaimProject(e, pa); err != nil {
		t.Fatal(err)
	}
	pa2, _ := ResolveProject(e, a)
	pb2, _ := ResolveProject(e, b)
	if pa2.Key != pa.Key {
		t.Fatalf("the owner's key changed: %q -> %q", pa.Key, pa2.Key)
	}
	if pb2.Key == pa2.Key {
		t.Fatalf("%s and %s share key %q", a, b, pa2.Key)
	}
	if !strings.HasPrefix(pb2.Key, Slug(b)+"-") {
		t.Fatalf("second key %q should be the slug plus a hash", pb2.Key)
	}
	if err := ClaimProject(e, pb2); err != nil {
		t.Fatal(err)
	}
	if pb3, _ := ResolveProject(e, b); pb3.Key != pb2.Key {
		t.Fatalf("second project's key is not stable: %q then %q", pb2.Key, pb3.Key)
	}
	fi, err := os.Stat(e.Store)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("store folder mode = %v, %v; want 0700", fi.Mode().Perm(), err)
	}
}
