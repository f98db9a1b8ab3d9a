package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// markerCalls are the strings functions that, given a Markdown marker,
// take a memory line apart by hand.
var markerCalls = []string{"TrimPrefix", "CutPrefix", "HasPrefix", "TrimLeft", "TrimSuffix", "Cut"}

// markers are the Markdown that frames a memory line: list bullets,
// heading marks, quotes.
var markers = []string{"- ", "* ", "+ ", "#", "# ", "## ", "### ", "> ", "-", "*", "+"}

// notMemoryLines are the files that take apart text of another format
// with the same characters, and why they are not memory lines.
var notMemoryLines = map[string]string{
	"pkg/yamlite/yamlite.go":             "YAML sequences and comments in frontmatter",
	"pkg/learn/learn.go":                 "YAML list items in a frontmatter block (stripProvenance)",
	"pkg/session/menu.go":                "ccmem's own episode menu line (INDEX.md), not memory",
	"pkg/transcript/steps.go":            "a shell command's flags",
	"pkg/textfmt/words.go":               "wrapping text for a terminal: its own bullets",
	"pkg/inject/fence.go":                "neutralising forged headers in injected text (security, not reading memory)",
	"pkg/store/names.go":                 "a slug's leading dash",
	"pkg/stale/stale.go":                 "a make flag's leading dash",
	"pkg/gitsync/gitsync.go":             "git's arguments",
	"internal/entry/command/command.go":  "command-line flags",
	"internal/entry/cli/learn.go":        "command-line flags and a diff's +/- lines",
	"internal/entry/ui/pages.go":         "emphasis marks in the ui's own rendering",
	"internal/service/settings/patch.go": "JSON indentation",
	"internal/dev/devcorpus/labels.go":   "comments of a labels file",
	"internal/dev/lexgen/main.go":        "a word list's format",
}

// TestOneCanonicalLine: a memory line is taken apart in one place,
// provenance.ShapeOf and provenance.Canonical, for every reader and writer
// (the guard, the block, search, the ui, sync, MCP): two packages that
// strip a bullet each their own way once read the model's note as the
// person's (issue 47, finding 1). A call that strips a Markdown marker by
// hand anywhere else fails here, unless its file reads another format
// (notMemoryLines, with why).
func TestOneCanonicalLine(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	fset := token.NewFileSet()
	var found []string
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if n := d.Name(); path != root && (n == ".cache" || n == "node_modules" || n == "dist" || n == "testdata" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasPrefix(rel, "pkg/provenance/") || notMemoryLines[rel] != "" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !slices.Contains(markerCalls, sel.Sel.Name) {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "strings" {
				return true
			}
			lit, ok := call.Args[1].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(markers, s) {
				found = append(found, fset.Position(call.Pos()).String()+": strings."+sel.Sel.Name+"(…, "+lit.Value+")")
			}
			return true
		})
		return nil
	})
	for _, f := range found {
		t.Errorf("%s takes a Markdown line apart by hand; use provenance.ShapeOf or provenance.Canonical (or, for another format, name the file in notMemoryLines with why)", strings.TrimPrefix(f, root+string(filepath.Separator)))
	}
	for rel := range notMemoryLines {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Errorf("notMemoryLines names %s, which is gone", rel)
		}
	}
}
