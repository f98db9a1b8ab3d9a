// Package docblock holds a fact the docs state to the code that makes it
// true, as cmd/go's TestDocsUpToDate does: a block of a Markdown file,
// between <!-- NAME --> and <!-- /NAME -->, is what a test generates
// from the code, byte for byte; run the test with -update-docs (or the
// package's own -update) to rewrite it.
package docblock

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the docs' generated blocks with what the code says")

// updating tells whether the blocks are to be rewritten: -update-docs, or
// the test binary's own -update.
func updating() bool {
	if *updateDocs {
		return true
	}
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Check fails t unless the block NAME of the file at path holds want
// (rewritten with -update).
func Check(t *testing.T, path, name, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	open, end := "<!-- "+name+" -->\n", "<!-- /"+name+" -->"
	text := string(data)
	i := strings.Index(text, open)
	j := strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no block %s…%s: put one where the fact belongs", path, strings.TrimSpace(open), end)
	}
	got := text[i+len(open) : j]
	want = strings.TrimRight(want, "\n") + "\n"
	if got == want {
		return
	}
	if updating() {
		if err := os.WriteFile(path, []byte(text[:i+len(open)]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the block %s no longer says what the code does:\n--- the docs\n%s--- the code\n%s(run the test with -update-docs to rewrite it)", path, name, got, want)
}
