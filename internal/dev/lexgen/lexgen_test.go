package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestTablesAreCurrent holds pkg/lexicon's committed tables to what lexgen
// makes of the public data they come from (Debian's scowl and
// unicode-data, jieba's dictionary from the Go module proxy): a table
// edited by hand, or data that moved, fails here. make test-tools installs
// the Debian packages.
func TestTablesAreCurrent(t *testing.T) {
	tables, err := generate()
	if errors.Is(err, errMissing) {
		t.Fatalf("%v: the tables cannot be checked without their sources (make test-tools installs them)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "..", "pkg", "lexicon")
	for name, want := range tables {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("pkg/lexicon/%s is not what lexgen makes (%d bytes, want %d): run go run ./internal/dev/lexgen", name, len(got), len(want))
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if _, ok := tables[e.Name()]; !ok && filepath.Ext(e.Name()) != ".go" {
			t.Errorf("pkg/lexicon/%s is no table lexgen makes", e.Name())
		}
	}
}
