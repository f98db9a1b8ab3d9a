package search

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// secretWorld is a store, a user's secret file, and three cloned
// repositories the store knows, each committing a symlink somewhere on
// the way to its memory: .claude/memory to /, .claude to the home folder,
// and a topic file to the secret.
type secretWorld struct {
	e      store.Env
	secret string // the secret file's path
	home   string
	roots  []string
}

const secretText = "-----BEGIN OPENSSH PRIVATE KEY----- the user's key"

func newSecretWorld(t testing.TB) *secretWorld {
	e := storetest.Env(t)
	home := filepath.Dir(filepath.Dir(e.Store)) // $HOME/.claude/ccmem
	w := &secretWorld{e: e, home: home, secret: filepath.Join(home, ".ssh", "id_rsa")}
	storetest.Mkfile(t, w.secret, secretText)
	storetest.Mkfile(t, e.GlobalMemory(), "## Me\n- a fact of my own\n")
	link := func(target, path string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	for i, plant := range []func(root string){
		func(root string) { link("/", filepath.Join(root, ".claude", "memory")) },
		func(root string) { link(home, filepath.Join(root, ".claude")) },
		func(root string) {
			storetest.Mkfile(t, store.RepoMemory(root), "## Team\n- [keys](keys.md) — read me\n")
			link(w.secret, filepath.Join(store.RepoMemoryDir(root), "keys.md"))
			link(filepath.Join(home, ".ssh"), filepath.Join(store.RepoMemoryDir(root), "ssh"))
		},
	} {
		root, p := storetest.Repo(t, e, []string{"rootlink", "dotclaude", "filelink"}[i])
		plant(root)
		if _, err := store.ClaimProject(e, p); err != nil {
			t.Fatal(err)
		}
		w.roots = append(w.roots, root)
	}
	return w
}

// attacks are the paths a hostile repository's instructions could ask
// the model to get, for each planted symlink.
func (w *secretWorld) attacks() []string {
	rel := strings.TrimPrefix(w.secret, "/")
	return []string{
		filepath.Join(w.roots[0], ".claude", "memory", rel),
		filepath.Join(w.roots[1], ".claude", "memory", "..", ".ssh", "id_rsa"),
		filepath.Join(w.roots[1], ".claude", ".ssh", "id_rsa"),
		filepath.Join(w.roots[2], ".claude", "memory", "keys.md"),
		filepath.Join(w.roots[2], ".claude", "memory", "ssh", "id_rsa"),
		w.secret,
	}
}

// TestGetRefusesSymlinkedRepositoryMemory: a repository that commits its
// .claude/memory (or .claude) as a symlink cannot make get read a file of
// the user's; the repository's own files and the store still read.
func TestGetRefusesSymlinkedRepositoryMemory(t *testing.T) {
	w := newSecretWorld(t)
	for _, sc := range w.scopes(t) { // as the MCP server starts in each, other projects on and off
		for _, path := range w.attacks() {
			text, err := Get(w.e, path, sc)
			if err == nil || strings.Contains(text, "PRIVATE KEY") {
				t.Errorf("Get(%s) in %+v = %q, %v; want a refusal", path, sc, text, err)
			}
		}
	}
	if text, err := Get(w.e, w.e.GlobalMemory(), Scope{}); err != nil || !strings.Contains(text, "a fact of my own") {
		t.Errorf("the store's own file: %q, %v", text, err)
	}
	p, _ := store.ResolveProject(w.e, w.roots[2])
	if text, err := Get(w.e, store.RepoMemory(w.roots[2]), ScopeOf(&p, false)); err != nil || !strings.Contains(text, "read me") {
		t.Errorf("the repository's own MEMORY.md: %q, %v", text, err)
	}
	// A file a search of the repository would read, through its
	// symlinked .claude/memory: refused at the link.
	if _, err := Get(w.e, store.RepoMemory(w.roots[0]), Scope{All: true}); !errors.Is(err, store.ErrSymlink) {
		t.Errorf("a path through a symlinked .claude/memory: %v, want ErrSymlink", err)
	}
}

// scopes are the scopes the MCP server may run with in the world: no
// project, and each repository's, with other projects off and on.
func (w *secretWorld) scopes(t testing.TB) []Scope {
	out := []Scope{{}, {All: true}}
	for _, root := range w.roots {
		p, err := store.ResolveProject(w.e, root)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ScopeOf(&p, false), ScopeOf(&p, true))
	}
	return out
}

// FuzzGet: whatever path the model passes, get never returns the secret
// the planted symlinks point at.
func FuzzGet(f *testing.F) {
	w := newSecretWorld(f)
	for _, a := range w.attacks() {
		f.Add(a)
	}
	f.Add(store.RepoMemory(w.roots[2]))
	f.Add(w.e.GlobalMemory())
	scopes := w.scopes(f)
	f.Fuzz(func(t *testing.T, path string) {
		for _, sc := range scopes {
			text, _ := Get(w.e, path, sc)
			if strings.Contains(text, "PRIVATE KEY") {
				t.Fatalf("Get(%q) in %+v read the secret", path, sc)
			}
		}
	})
}
