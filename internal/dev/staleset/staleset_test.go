package staleset

import (
	"slices"
	"testing"
)

// TestNames: the wide patterns find what a reader takes for the
// repository's names (paths, folders, files with an extension, targets)
// and leave out links, home paths and globs.
func TestNames(t *testing.T) {
	got := names("Run `make build` or npm run dev; pnpm lint. The router is resources/scripts/main.js, stores in `src/stores/`,\n" +
		"config in `project.yml`. See https://example.com/a/b.md and ~/.claude/settings.json and `src/**/*.ts`.")
	for _, want := range []string{"make build", "npm run dev", "pnpm run lint", "resources/scripts/main.js", "src/stores/", "project.yml"} {
		if !slices.Contains(got, want) {
			t.Errorf("%q not found in %q", want, got)
		}
	}
	for _, not := range []string{"https://example.com/a/b.md", "example.com/a/b.md", "~/.claude/settings.json", "src/**/*.ts"} {
		if slices.Contains(got, not) {
			t.Errorf("%q taken for a name: %q", not, got)
		}
	}
}

// TestHolds: a name is looked for from the root and from the memory
// file's folder, a folder with or without its slash; a target only where
// its build file is.
func TestHolds(t *testing.T) {
	tr := &tree{files: map[string]bool{"web/src/app.ts": true, "web/src/": true, "web/": true}, make: map[string]bool{"build": true}, npm: map[string]bool{}, just: map[string]bool{},
		has: map[string]bool{"make": true}}
	for _, c := range []struct {
		name, dir  string
		has, known bool
	}{
		{"web/src/app.ts", "", true, true},
		{"src/app.ts", "web", true, true},
		{"src/app.ts", "", false, true},
		{"web/src", "", true, true},
		{"web/src/", "", true, true},
		{"make build", "", true, true},
		{"make deploy", "", false, true},
		{"npm run dev", "", false, false},
	} {
		if has, known := tr.holds(c.name, c.dir); has != c.has || known != c.known {
			t.Errorf("holds(%q, %q) = %v, %v; want %v, %v", c.name, c.dir, has, known, c.has, c.known)
		}
	}
}
