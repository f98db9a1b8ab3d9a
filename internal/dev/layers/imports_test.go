package layers

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportGroups: every file keeps ccmem's own imports in a group of
// their own, after the standard library's and the others' (as `goimports
// -local github.com/ccmem/ccmem` writes them): a reader sees from the
// imports which layers a file leans on.
func TestImportGroups(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	fset := token.NewFileSet()
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
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return nil
		}
		// Imports on consecutive lines form a group; a group with one of
		// ccmem's must hold only ccmem's, and come last.
		var groups [][]string
		last := -2
		for _, imp := range f.Imports {
			line := fset.Position(imp.Pos()).Line
			if line != last+1 || len(groups) == 0 {
				groups = append(groups, nil)
			}
			groups[len(groups)-1] = append(groups[len(groups)-1], strings.Trim(imp.Path.Value, `"`))
			last = line
		}
		for i, g := range groups {
			own := 0
			for _, p := range g {
				if strings.HasPrefix(p, module) {
					own++
				}
			}
			if own > 0 && (own != len(g) || i != len(groups)-1) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s: ccmem's imports are not a group of their own, last (goimports -local github.com/ccmem/ccmem)", rel)
				break
			}
		}
		return nil
	})
}
