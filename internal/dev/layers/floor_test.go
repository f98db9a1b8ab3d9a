package layers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// floor are the contract packages, each with the JSON tags of the formats
// it owns: no other package's code writes those tags (it asks the owner),
// but for a format's one writer (pkg/checkpoint writes the episode record
// with its own fast codec; a round-trip test holds the two together).
var floor = map[string]struct{ tags, writers []string }{
	"pkg/claudecode": {tags: []string{`json:"hookSpecificOutput`, `json:"additionalContext`, `json:"systemMessage`, `json:"permissionDecision`,
		`json:"hook_event_name`, `json:"current_dir`, `json:"project_dir`}},
	"pkg/codexcli":  {},
	"pkg/geminicli": {},
	"pkg/episode":   {tags: []string{`json:"digest"`, `json:"files_read`, `json:"files_changed`, `json:"started_at`, `json:"goal"`}, writers: []string{"pkg/checkpoint"}},
}

// textHelpers are what a contract package may import of ccmem.
var textHelpers = []string{"pkg/textfmt"}

// TestContractsFloor: the contract packages at the bottom of pkg/ import
// nothing of ccmem but text helpers and each other (so every layer can
// import them), and
// the JSON tags of the formats they own appear in no other package's
// code: a copy of a format is a test failure, not a drift found later.
func TestContractsFloor(t *testing.T) {
	all := pkgs(t)
	for p := range floor {
		for _, imp := range all[p] {
			if _, isFloor := floor[imp]; !slices.Contains(textHelpers, imp) && imp != p && !isFloor {
				t.Errorf("%s imports %s: a contract package imports nothing of ccmem but text helpers", p, imp)
			}
		}
	}
	root := filepath.Join("..", "..", "..")
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == ".cache" || n == "node_modules" || n == "dist" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		pkg := filepath.ToSlash(filepath.Dir(rel))
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for owner, f := range floor {
			if pkg == owner || slices.Contains(f.writers, pkg) {
				continue
			}
			for _, tag := range f.tags {
				if strings.Contains(string(data), tag) {
					t.Errorf("%s writes %s: that format is %s's", rel, tag, owner)
				}
			}
		}
		return nil
	})
}
