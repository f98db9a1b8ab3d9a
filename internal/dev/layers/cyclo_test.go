package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// maxCyclo is the most cyclomatic complexity a function of the module may
// have unless docs/development.md names it, with why.
const maxCyclo = 30

// cyclo is a function's cyclomatic complexity as gocyclo counts it: one,
// plus one for each if, for, range, non-default case or comm clause, and
// each && or ||.
func cyclo(fn *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fn, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

// complexFuncs are the module's functions (tests aside) over maxCyclo,
// as "pkg/dir.Func" or "pkg/dir.Type.Method", with their complexity.
func complexFuncs(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, path := range goFiles(t) {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		dir, _ := filepath.Rel("../../..", filepath.Dir(path))
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) > 0 {
				typ := fn.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					name = id.Name + "." + name
				}
			}
			if c := cyclo(fn); c > maxCyclo {
				out[filepath.ToSlash(dir)+"."+name] = c
			}
		}
	}
	return out
}

// goFiles are the module's Go files, hidden folders and testdata aside.
func goFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("../../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "../../.." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var namedFunc = regexp.MustCompile("(?m)^- `([^`]+)` \\((\\d+)\\): .+")

// TestComplexityIsNamed (issue 49): no function of the module is over
// cyclomatic complexity 30 unless docs/development.md names it, with its
// complexity and why; a function named there that is no longer over it,
// or with another figure, is said too, so the list stays true.
func TestComplexityIsNamed(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]string{}
	for _, m := range namedFunc.FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = m[2]
	}
	got := complexFuncs(t)
	var missing []string
	for name, c := range got {
		switch n, ok := named[name]; {
		case !ok:
			missing = append(missing, fmt.Sprintf("- `%s` (%d): why", name, c))
		case n != fmt.Sprint(c):
			t.Errorf("docs/development.md says %s is %s; it is %d now", name, n, c)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("over cyclomatic complexity %d and not named in docs/development.md (split it, or name it there with why):\n%s", maxCyclo, strings.Join(missing, "\n"))
	}
	for name := range named {
		if _, ok := got[name]; !ok {
			t.Errorf("docs/development.md names %s as over cyclomatic complexity %d; it no longer is: take it out", name, maxCyclo)
		}
	}
}
