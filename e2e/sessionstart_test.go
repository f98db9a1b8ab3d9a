package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"
)

// showBlock is the block `ccmem show` says sessionstart injects in the project.
func (w *world) showBlock() string {
	w.t.Helper()
	out, err := w.ccmem("show", "--json", "--cwd", w.project)
	if err != nil {
		w.t.Fatalf("ccmem show: %v\n%s", err, out)
	}
	var r struct {
		Block struct {
			Text string `json:"text"`
		} `json:"block"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		w.t.Fatalf("ccmem show --json: %v\n%s", err, out)
	}
	return r.Block.Text
}

// onlyInjection returns the one SessionStart context of the requests from
// index from on, failing unless there is exactly one distinct value.
func (w *world) onlyInjection(from int) string {
	w.t.Helper()
	got := w.injected(from)
	if len(got) == 0 {
		w.t.Fatalf("no request carried %q; requests: %d", injectedPrefix, len(w.api.MessageRequests()))
	}
	for _, g := range got[1:] {
		if g != got[0] {
			w.t.Fatalf("requests of one session carried different injected blocks")
		}
	}
	return got[0]
}

// TestInjectionReachesModelInline: a headless session's API request carries
// the global and the repository MEMORY.md inline, and a second session with
// unchanged files gets a byte-identical block.
func TestInjectionReachesModelInline(t *testing.T) {
	w := newWorld(t, nil)
	// The first session becomes an episode when the second starts; leave
	// the episode menu out so the files behind the block stay unchanged.
	w.write(filepath.Join(w.home, ".claude", "ccmem", "config.yaml"), "caps:\n  episodes: 0\n")
	w.write(filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md"),
		"## Preferences\n- global-marker-4f1c: answer tersely, with Go examples\n")
	w.write(filepath.Join(w.project, ".claude", "memory", "MEMORY.md"),
		"## Build\n- repo-marker-9d2e: `make db-up` before integration tests\n")

	if out := w.claude("-p", "hello"); !strings.Contains(out, "ok") {
		t.Fatalf("claude -p printed %q, want the scripted reply", out)
	}
	first := w.onlyInjection(0)
	for _, want := range []string{"global-marker-4f1c: answer tersely", "repo-marker-9d2e: `make db-up`"} {
		if !strings.Contains(first, want) {
			t.Errorf("injected block lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, "persisted-output") {
		t.Fatalf("block was spilled to a file instead of arriving inline:\n%s", first)
	}
	if want := w.showBlock(); first != want {
		t.Errorf("the client received a block that differs from `ccmem show`:\nclient: %q\nshow:   %q", first, want)
	}

	n := len(w.api.MessageRequests())
	w.claude("-p", "hello again")
	second := w.onlyInjection(n)
	if second != first {
		t.Fatalf("second session got a different block:\nfirst:  %q\nsecond: %q", first, second)
	}
}

// TestHugeMemoryStaysInline: a 5 MB global MEMORY.md with a 100,000-character
// line and multibyte text still arrives inline, within budget_chars, and
// carries the cut marker.
func TestHugeMemoryStaysInline(t *testing.T) {
	w := newWorld(t, nil)
	var b strings.Builder
	b.WriteString("## Notes\n")
	for i := 0; b.Len() < 12000; i++ {
		fmt.Fprintf(&b, "- %03d 日本語のメモ, naïve café — emoji 🚀🧪 keep going\n", i)
	}
	b.WriteString("- " + strings.Repeat("x", 100000) + "\n")
	for i := 0; b.Len() < 5<<20; i++ {
		fmt.Fprintf(&b, "- filler line %d with ümlauts and 漢字\n", i)
	}
	global := filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md")
	w.write(global, b.String())
	w.write(filepath.Join(w.project, ".claude", "memory", "MEMORY.md"), "## Build\n- make test\n")

	want := w.showBlock() // what the next session start will inject
	w.claude("-p", "hello")
	got := w.onlyInjection(0)
	if strings.Contains(got, "persisted-output") {
		t.Fatalf("block was spilled to a file instead of arriving inline")
	}
	if got != want {
		t.Fatalf("the client received a block that differs from `ccmem show`:\nclient: %q\nshow:   %q", got, want)
	}
	if n := len(utf16.Encode([]rune(got))); n > 9500 {
		t.Fatalf("injected block is %d characters, over budget_chars 9500", n)
	}
	marker := regexp.MustCompile(`(?m)^… (about )?\d+ more lines in ` + regexp.QuoteMeta(global) + `$`)
	if !marker.MatchString(got) {
		t.Fatalf("no cut marker for %s in the block:\n%s", global, got)
	}
	if !strings.Contains(got, "- 000 日本語のメモ, naïve café — emoji 🚀🧪 keep going") {
		t.Fatalf("multibyte text did not arrive intact:\n%s", got)
	}
	if strings.Contains(got, strings.Repeat("x", 501)) {
		t.Fatalf("more than line_chars of the 100,000-character line was injected")
	}
}

// TestEveryScopeKeepsItsShare: a 17 KB global memory and a 12-line project
// memory; every project line and the global memory's first lines reach the
// model's request, inline, in at most 10,000 characters.
func TestEveryScopeKeepsItsShare(t *testing.T) {
	w := newWorld(t, nil)
	var g strings.Builder
	g.WriteString("## About me\n")
	for i := 0; g.Len() < 17<<10; i++ {
		fmt.Fprintf(&g, "- global fact %03d: a preference stated long ago, with enough words to take room\n", i)
	}
	w.write(filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md"), g.String())
	var p strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&p, "- project line %02d of 12: how this repository builds, tests and ships\n", i)
	}
	w.write(filepath.Join(w.project, ".claude", "memory", "MEMORY.md"), p.String())

	w.claude("-p", "hello")
	got := w.onlyInjection(0)
	if strings.Contains(got, "persisted-output") {
		t.Fatal("the block was spilled to a file instead of arriving inline")
	}
	if n := len(utf16.Encode([]rune(got))); n > 10000 {
		t.Fatalf("the block is %d characters, over the inline limit", n)
	}
	for i := 1; i <= 12; i++ {
		if line := fmt.Sprintf("- project line %02d of 12:", i); !strings.Contains(got, line) {
			t.Fatalf("project line %d did not reach the model:\n%s", i, got)
		}
	}
	for i := 0; i < 20; i++ {
		if line := fmt.Sprintf("- global fact %03d:", i); !strings.Contains(got, line) {
			t.Fatalf("global line %d did not reach the model", i)
		}
	}
}
