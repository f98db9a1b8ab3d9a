package layers

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// TestEveryHookListIsTheSource: the lists of hooks written outside Go —
// the Makefile's build, the plugin's launcher, the release's builds, its
// packages and its Homebrew formula, the testscripts' commands — name
// exactly the hooks of claudecode.Hooks (the Go code uses that list
// itself; hooks/hooks.json and hooks.json.example are generated from it
// and held by their own tests). A hook added in one place and not the
// others fails here.
func TestEveryHookListIsTheSource(t *testing.T) {
	want := claudecode.Binaries()
	slices.Sort(want)
	root := filepath.Join("..", "..", "..")
	for _, l := range []struct {
		file, where string
		list        *regexp.Regexp // each match's first group is a hook
		region      *regexp.Regexp // where the list is, nil: the whole file
	}{
		{"Makefile", "HOOKS", regexp.MustCompile(`\./hooks/([a-z]+)`), regexp.MustCompile(`(?m)^HOOKS\s*:=.*$`)},
		{"hooks/run", "the hooks it runs", regexp.MustCompile(`\b([a-z]+)\b`), regexp.MustCompile(`(?m)^\s*sessionstart \|.*\) ;;$`)},
		{".goreleaser.yaml", "builds", regexp.MustCompile(`main: \./hooks/([a-z]+)`), nil},
		{".goreleaser.yaml", "packages", regexp.MustCompile(`dst: /usr/lib/ccmem/([a-z]+)\n`), nil},
		{".goreleaser.yaml", "the Homebrew formula", regexp.MustCompile(`"([a-z]+)"`), regexp.MustCompile(`(?m)install Dir\[.*\]$`)},
		{"testscripts/main_test.go", "commands", regexp.MustCompile(`"([a-z]+)": +func\(\) \{ os\.Exit\((?:capture|start|prompt|tool)\.`), nil},
	} {
		data, err := os.ReadFile(filepath.Join(root, l.file))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if l.region != nil {
			text = l.region.FindString(text)
			if text == "" {
				t.Errorf("%s: no %s list found", l.file, l.where)
				continue
			}
		}
		var got []string
		for _, m := range l.list.FindAllStringSubmatch(text, -1) {
			if h := m[1]; h != "mcp" && h != "fetch" && h != "ccmem" && !slices.Contains(got, h) {
				got = append(got, h)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s (%s) lists the hooks %v, claudecode.Hooks %v", l.file, l.where, got, want)
		}
	}
	// The Go code asks the source: no other list of all the hooks.
	all := regexp.MustCompile(`"sessionstart", *"userpromptsubmit"`)
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".cache" || d.Name() == "node_modules" || d.Name() == "dist" || strings.HasPrefix(d.Name(), ".git")) {
			if d != nil && d.IsDir() && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "claudecode.go") {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && all.Match(data) {
			t.Errorf("%s writes the list of hooks again: use claudecode.Binaries()", p)
		}
		return nil
	})
}
