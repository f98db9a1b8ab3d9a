package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// designWords are words from ccmem's design documents that users never
// read: the source designs' numbers, their code names, the issue numbers
// work was filed under, and "antigen" for a rule drawn from friction.
var designWords = regexp.MustCompile(`(?i)seed ?0?0[0-4]|\bseeds? [0-9]|antigen|aurora|\bissues? [0-9]+`)

// TestPlainWords holds every command's help, every user document and the
// text a session is given to plain words: the design vocabulary stays in
// docs/development.md, the one developer document.
func TestPlainWords(t *testing.T) {
	for _, path := range allPaths() {
		out, errOut, _ := run(t, append([]string{"help"}, path...)...)
		if m := designWords.FindString(out + errOut); m != "" {
			t.Errorf("ccmem help %s says %q", strings.Join(path, " "), m)
		}
	}
	docs, _ := filepath.Glob("../../../docs/*.md")
	docs = append(docs, "../../../README.md")
	for _, cmd := range []string{"learn", "remember", "ccmem", "friction", "forget"} {
		docs = append(docs, "../../../scripts/commands/"+cmd+".md")
	}
	for _, d := range docs {
		if filepath.Base(d) == "development.md" {
			continue
		}
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(data), "\n") {
			if m := designWords.FindString(l); m != "" {
				t.Errorf("%s:%d says %q: %s", d, i+1, m, l)
			}
		}
	}
	// The block, with every section that can show and a rule from friction
	// waiting, and the friction report and its rule files.
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	if _, err := store.ClaimProject(e, p); err != nil {
		t.Fatal(err)
	}
	storetest.Mkfile(t, e.GlobalMemory(), "## Me\n- terse answers\n")
	storetest.Mkfile(t, filepath.Join(e.SilosDir(), "-x", "memory", "a.md"), "---\nname: a\ndescription: d\ntype: user\n---\nx\n")
	storetest.Mkfile(t, filepath.Join(e.ReviewDir(), "shop-1a2b-verify.md"), "---\nname: shop-1a2b-verify\ndescription: verify first\nmetadata:\n  type: feedback\norigin: friction\nscope: project\nsource_cwd: "+repo+"\n---\nVerify.\n")
	block := memory.Compose(context.Background(), e, memory.StartRequest{Cwd: repo, Source: "startup"}).Block.Text
	if m := designWords.FindString(block); m != "" {
		t.Errorf("the block says %q:\n%s", m, block)
	}
}
