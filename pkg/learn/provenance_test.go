package learn

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestProvenanceOfASiloWithoutTranscripts (broken 1): a silo with no
// transcript to name its folder is placed by trying the slug's candidate
// paths on disk: /…/src/my-app, not /…/src/my/app.
func TestProvenanceOfASiloWithoutTranscripts(t *testing.T) {
	e := storetest.Env(t)
	base := storetest.RealDir(t)
	app := filepath.Join(base, "src", "my-app")
	other := filepath.Join(base, "src", "web_site.v2")
	for _, d := range []string{app, filepath.Join(base, "src", "my"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range []string{app, other} {
		silo := filepath.Join(e.SilosDir(), store.Slug(p), "memory")
		storetest.Mkfile(t, filepath.Join(silo, "build.md"), "---\nname: build-"+string(rune('a'+i))+"\ndescription: builds with make\nmetadata:\n  type: project\n---\nbody\n")
		storetest.Mkfile(t, filepath.Join(silo, "MEMORY.md"), "- [Build](build.md) — builds with make\n")
	}
	if _, _, err := Apply(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{app, other} {
		data, err := os.ReadFile(filepath.Join(e.LearnedDir(), "project", "build-"+string(rune('a'+i))+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "source_cwd: \""+want+"\"") {
			t.Errorf("provenance is not %s:\n%s", want, data)
		}
	}
}

func TestPathOfSlug(t *testing.T) {
	e := storetest.Env(t)
	base := storetest.RealDir(t)
	hidden := filepath.Join(base, ".config", "nvim")
	if err := os.MkdirAll(hidden, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, ok := store.PathOfSlug(e, store.Slug(hidden)); !ok || p != hidden {
		t.Errorf("a hidden folder: %q %v", p, ok)
	}
	// A project the store knows, though its folder is gone.
	gone := filepath.Join(base, "old", "x-y")
	p := store.ProjectAt(e, gone)
	if _, err := store.ClaimProject(e, p); err != nil {
		t.Fatal(err)
	}
	if got, ok := store.PathOfSlug(e, store.Slug(gone)); !ok || got != gone {
		t.Errorf("a project the store knows: %q %v", got, ok)
	}
	if got, ok := store.PathOfSlug(e, "-nowhere-at-all"); ok || got != "/nowhere/at/all" {
		t.Errorf("an unknown slug: %q %v", got, ok)
	}
}
