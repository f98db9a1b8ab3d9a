package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedactBeforeShorten holds the one order text passes on its way to
// disk or off the machine — normalise, redact, then shorten
// (redact.Shorten) — across the tree: no call redacts (redact.String,
// redact.Shorten, a Counter's String) what textfmt.Shorten already cut,
// which would keep the half of a secret the cut left.
func TestRedactBeforeShorten(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !redacts(call) || len(call.Args) == 0 {
				return true
			}
			ast.Inspect(call.Args[0], func(m ast.Node) bool {
				if in, ok := m.(*ast.CallExpr); ok && isCall(in, "textfmt", "Shorten") {
					t.Errorf("%s: redacts what textfmt.Shorten cut: use redact.Shorten(text, n)", fset.Position(in.Pos()))
				}
				return true
			})
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files checked: the walk missed the tree", checked)
	}
}

// redacts tells a call of the redactor.
func redacts(call *ast.CallExpr) bool {
	if isCall(call, "redact", "String") || isCall(call, "redact", "Shorten") {
		return true
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "String" && strings.Contains(strings.ToLower(exprName(sel.X)), "counter")
}

func isCall(call *ast.CallExpr, pkg, name string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

func exprName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprName(x.X) + "." + x.Sel.Name
	}
	return ""
}
