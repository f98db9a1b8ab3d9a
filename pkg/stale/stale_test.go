package stale

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func project(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestGone: paths, make and just targets and npm scripts the working tree
// has are not marked; those it no longer has are; what cannot be told (no
// Makefile, a Makefile that includes others, a URL, an absolute path) is
// never marked.
func TestGone(t *testing.T) {
	root := project(t, map[string]string{
		"web/new.ts":   "x",
		"Makefile":     "build: gen\n\tgo build ./...\ntest lint:\n\tgo test ./...\nVAR := 1\n",
		"justfile":     "deploy env:\n    ./deploy.sh {{env}}\n",
		"package.json": `{"scripts":{"build":"tsc","test:e2e":"playwright test"}}`,
	})
	c := New(root)
	for _, tc := range []struct {
		text string
		gone []string
	}{
		{"the entry point is web/new.ts now", nil},
		{"the old entry point `web/old.ts` was removed", []string{"web/old.ts"}},
		{"run make build, then make lint", nil},
		{"run make deploy-prod first", []string{"make deploy-prod"}},
		{"just deploy staging; just release", []string{"just release"}},
		{"npm run build and npm run test:e2e", nil},
		{"npm run storybook", []string{"npm run storybook"}},
		{"see https://example.com/docs/a.md and /etc/hosts.conf and ~/notes/x.md", nil},
		{"(internal/gone/file.go)", []string{"internal/gone/file.go"}},
		{"../outside/of/root.go", nil},
	} {
		if got := c.Gone(tc.text); !slices.Equal(got, tc.gone) {
			t.Errorf("%q: %v, want %v", tc.text, got, tc.gone)
		}
	}
	if got := c.Mark("- the old entry point web/old.ts"); !strings.Contains(got, "(not in the working tree now: web/old.ts; check before relying on it)") {
		t.Errorf("Mark: %q", got)
	}
	// Nothing to tell by: no Makefile, or one that includes others.
	bare := New(project(t, map[string]string{"x.txt": ""}))
	if got := bare.Gone("make deploy-prod; npm run storybook; just release"); len(got) != 0 {
		t.Errorf("no build files, marked %v", got)
	}
	inc := New(project(t, map[string]string{"Makefile": "include common.mk\nbuild:\n"}))
	if got := inc.Gone("make deploy-prod"); len(got) != 0 {
		t.Errorf("a Makefile that includes others, marked %v", got)
	}
	if got := New("").Gone("web/old.ts"); got != nil {
		t.Errorf("no project: %v", got)
	}
}

// TestBounded: a Checker looks up at most maxChecks names (a hook's
// budget); past that it marks nothing more.
func TestBounded(t *testing.T) {
	c := New(project(t, nil))
	var b strings.Builder
	for i := range 3 * maxChecks {
		b.WriteString(" src/f" + string(rune('a'+i%26)) + strings.Repeat("x", i/26) + "/file.go")
	}
	for i := 0; i < 20; i++ {
		c.Gone(b.String())
	}
	if c.checks > maxChecks {
		t.Errorf("%d lookups", c.checks)
	}
}
