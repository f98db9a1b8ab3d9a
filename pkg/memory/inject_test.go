package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadHead(t *testing.T) {
	tests := []struct {
		name      string
		content   string
		maxLines  int
		maxChars  int
		wantLines []string
		wantTotal int
	}{
		{"plain", "a\nb\nc\n", 10, 100, []string{"a", "b", "c"}, 3},
		{"no final newline", "a\nb", 10, 100, []string{"a", "b"}, 2},
		{"line cap", "a\nb\nc\nd\n", 2, 100, []string{"a", "b"}, 4},
		{"CRLF", "a\r\nb\r\n", 10, 100, []string{"a", "b"}, 2},
		{"blank edges dropped, inner kept", "\n\n## T\n\n- x\n\n\n", 10, 100, []string{"## T", "", "- x"}, 3},
		{"char limit stops at a line boundary", "aaaa\nbbbb\ncccc\n", 10, 10, []string{"aaaa", "bbbb"}, 3},
		{"overlong line stops taking", "a\n" + strings.Repeat("x", 200000) + "\nb\n", 10, 1000, []string{"a"}, 3},
		{"invalid UTF-8 is replaced", "ok \xff\xfe\n", 10, 100, []string{"ok \uFFFD"}, 1},
		{"astral runes count double", "🚀🚀\nz\n", 10, 5, []string{"🚀🚀"}, 2},
		{"empty", "", 10, 100, nil, 0},
		{"nothing taken, counted in bulk", "\n\n## T\n\n- x\n  \n\n", 0, 100, nil, 3},
		{"bulk count after the cap", "a\nb\n\nc\n\n\n", 1, 100, []string{"a"}, 4},
		{"bulk count, no final newline", "a\nb\nc", 1, 100, []string{"a"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := readHead(strings.NewReader(tt.content), tt.maxLines, tt.maxChars)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%q", h.Lines) != fmt.Sprintf("%q", tt.wantLines) || h.Total != tt.wantTotal {
				t.Fatalf("got %q total %d, want %q total %d", h.Lines, h.Total, tt.wantLines, tt.wantTotal)
			}
		})
	}
}

func TestReadHeadRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadHead(fifo, 10, 100); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("FIFO: err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadHead blocked on a FIFO")
	}
	if _, err := ReadHead(dir, 10, 100); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("directory: err = %v", err)
	}
	if _, err := ReadHead("/dev/zero", 10, 100); err == nil {
		t.Fatal("device: want an error")
	}
}

// composeIn lays out a store and a repository and composes the block.
func composeIn(t *testing.T, files map[string]string) (Env, string, Injection) {
	t.Helper()
	e := testEnv(t)
	repo := filepath.Join(realDir(t), "shop")
	mkfile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	p, err := ResolveProject(e, repo)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		name = strings.NewReplacer("$STORE", e.Store, "$REPO", repo, "$KEY", p.Key, "$CLAUDE", e.ClaudeDir).Replace(name)
		content = strings.ReplaceAll(content, "$REPO", repo)
		mkfile(t, name, content)
	}
	return e, repo, Compose(context.Background(), e, StartRequest{Cwd: repo, Source: "startup"})
}

func TestComposeOrderAndSources(t *testing.T) {
	_, repo, inj := composeIn(t, map[string]string{
		"$STORE/MEMORY.md":                               "- global fact",
		"$STORE/projects/$KEY/briefing.md":               "briefing text",
		"$REPO/.claude/memory/MEMORY.md":                 "- repo fact",
		"$STORE/projects/$KEY/INDEX.md":                  "- 2026-11-20 · episode line",
		"$STORE/learned/user/role.md":                    "---\nname: role\ndescription: Go backend engineer\nmetadata:\n  type: user\n---\nbody\n",
		"$STORE/learned/feedback/no-mocks.md":            "---\nname: no-mocks\ndescription: real Postgres in tests\ntype: feedback\n---\n",
		"$STORE/learned/project/freeze.md":               "---\nname: freeze\ndescription: merge freeze\nsource_cwd: $REPO\n---\n",
		"$STORE/learned/project/other-freeze.md":         "---\nname: other-freeze\ndescription: another project's freeze\nsource_cwd: /elsewhere/api\n---\n",
		"$STORE/learned/reference/grafana.md":            "---\nname: grafana\ndescription: dashboards\nsource_cwd: $REPO/web\n---\n",
		"$STORE/learned/reference/not-markdown.txt":      "ignored",
		"$STORE/learned/user/broken.md":                  "no frontmatter here",
		"$CLAUDE/projects/-x/memory/a.md":                "silo",
		"$CLAUDE/projects/-x/memory/MEMORY.md":           "index, not counted",
		"$CLAUDE/projects/-y/memory/README":              "not markdown",
		"$CLAUDE/projects/-z/memory/b.md":                "silo",
		"$CLAUDE/projects/-z/97c977a4-c5ad-4502.jsonl":   "transcript",
		"$REPO/.claude/memory/config.yaml":               "nudge_threshold: 2\n",
		"$STORE/projects/$KEY/episodes/20261120-x.json":  "{}",
		"$STORE/projects/$KEY/checkpoints/live-one.json": "{}",
	})
	text := inj.Block.Text
	order := []string{"# Memory recalled by ccmem", "- global fact", "# Learned memories", "- user/role — Go backend engineer",
		"- feedback/no-mocks — real Postgres in tests", "- project/freeze — merge freeze", "- reference/grafana — dashboards",
		"briefing text", "- repo fact", "# Recent sessions", "- 2026-11-20 · episode line",
		"2 un-ingested memories across 2 silos — run /learn to curate them"}
	at := 0
	for _, want := range order {
		i := strings.Index(text[at:], want)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", want, text)
		}
		at += i + len(want)
	}
	if strings.Contains(text, "other-freeze") {
		t.Fatalf("another project's learned entry was injected:\n%s", text)
	}
	if !strings.Contains(text, filepath.Join(repo, ".claude", "memory", "MEMORY.md")) {
		t.Fatal("the preamble should name the repository's MEMORY.md")
	}
	if len(inj.Warnings) != 1 || !strings.Contains(inj.Warnings[0], "broken.md: no frontmatter") {
		t.Fatalf("warnings = %q, want the broken learned entry", inj.Warnings)
	}
}

func TestComposeNudgeThreshold(t *testing.T) {
	_, _, inj := composeIn(t, map[string]string{
		"$CLAUDE/projects/-x/memory/a.md": "silo",
		"$CLAUDE/projects/-x/memory/b.md": "silo",
	})
	if strings.Contains(inj.Block.Text, "un-ingested") {
		t.Fatal("nudge below the default threshold of 10")
	}
}

func TestComposeIsByteStable(t *testing.T) {
	e, repo, first := composeIn(t, map[string]string{"$STORE/MEMORY.md": "- a\n- b\n"})
	for i := 0; i < 3; i++ {
		again := Compose(context.Background(), e, StartRequest{Cwd: repo, Source: "startup"})
		if again.Block.Text != first.Block.Text {
			t.Fatal("two compositions of unchanged files differ")
		}
	}
	if err := os.WriteFile(e.GlobalMemory(), []byte("- a\n- c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if changed := Compose(context.Background(), e, StartRequest{Cwd: repo}); changed.Block.Text == first.Block.Text {
		t.Fatal("a changed file did not change the block")
	}
}

func TestComposeWithoutProject(t *testing.T) {
	e := testEnv(t)
	mkfile(t, e.GlobalMemory(), "- global fact\n")
	for _, cwd := range []string{"", "/does/not/exist"} {
		inj := Compose(context.Background(), e, StartRequest{Cwd: cwd})
		if inj.Project != nil || !strings.Contains(inj.Block.Text, "- global fact") || len(inj.Warnings) != 1 {
			t.Fatalf("cwd %q: project %v, warnings %q, block:\n%s", cwd, inj.Project, inj.Warnings, inj.Block.Text)
		}
		if strings.Contains(inj.Block.Text, "about this project") {
			t.Fatal("preamble names a project file without a project")
		}
	}
}

func TestComposeDeadlineSkipsOptionalWork(t *testing.T) {
	e, repo, _ := composeIn(t, map[string]string{})
	for i := 0; i < 12; i++ {
		mkfile(t, filepath.Join(e.SilosDir(), fmt.Sprintf("-p%d", i), "memory", "m.md"), "x")
	}
	inj := Compose(context.Background(), e, StartRequest{Cwd: repo})
	if !strings.Contains(inj.Block.Text, "12 un-ingested memories across 12 silos") {
		t.Fatalf("nudge missing:\n%s", inj.Block.Text)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	inj = Compose(ctx, e, StartRequest{Cwd: repo})
	if strings.Contains(inj.Block.Text, "un-ingested") || inj.Block.Text == "" {
		t.Fatalf("past its deadline the block should come without the nudge:\n%s", inj.Block.Text)
	}
}

// The learned cache never serves a stale entry: a changed, added or
// removed file is seen at once; a damaged cache is ignored.
func TestLearnedCache(t *testing.T) {
	e := testEnv(t)
	entry := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\ntype: user\n---\nbody\n"
	}
	a := filepath.Join(e.LearnedDir(), "user", "a.md")
	mkfile(t, a, entry("a", "first"))
	mkfile(t, filepath.Join(e.LearnedDir(), "user", "b.md"), entry("b", "bee"))
	list := func() string {
		ls, _ := ListLearned(context.Background(), e)
		var out []string
		for _, l := range ls {
			out = append(out, l.Name+"="+l.Description)
		}
		return strings.Join(out, ",")
	}
	if got := list(); got != "a=first,b=bee" {
		t.Fatal(got)
	}
	if _, err := os.Stat(filepath.Join(e.LearnedDir(), ".cache.tsv")); err != nil {
		t.Fatal("no cache written")
	}
	mkfile(t, a, entry("a", "second, longer"))
	os.Remove(filepath.Join(e.LearnedDir(), "user", "b.md"))
	mkfile(t, filepath.Join(e.LearnedDir(), "user", "c.md"), entry("c", "sea\ttab"))
	if got := list(); got != "a=second, longer,c=sea tab" {
		t.Fatal(got)
	}
	mkfile(t, filepath.Join(e.LearnedDir(), ".cache.tsv"), "garbage\x00\n\t\t\n")
	if got := list(); got != "a=second, longer,c=sea tab" {
		t.Fatal(got)
	}
}

// Past a megabyte beyond the shown lines, a big file's remaining lines are
// estimated from its size (and marked "about"), not read.
func TestReadHeadEstimatesBigFiles(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, "- line %d with some words\n", i)
	}
	path := filepath.Join(dir, "MEMORY.md")
	mkfile(t, path, b.String())
	exact := strings.Count(b.String(), "\n")
	h, err := ReadHead(path, 10, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Approx || h.Total < exact*95/100 || h.Total > exact*105/100 {
		t.Fatalf("total %d (approx %v), exact %d", h.Total, h.Approx, exact)
	}
	small := filepath.Join(dir, "small.md")
	mkfile(t, small, strings.Repeat("- x\n", 1000))
	if h, _ := ReadHead(small, 10, 1000); h.Approx || h.Total != 1000 {
		t.Fatalf("small file: %+v", h)
	}
}

// The cached backlog answers only while no silo folder changed.
func TestCachedBacklog(t *testing.T) {
	e := testEnv(t)
	mkfile(t, filepath.Join(e.SilosDir(), "-a", "memory", "one.md"), "x")
	if err := os.MkdirAll(e.Store, 0o700); err != nil {
		t.Fatal(err)
	}
	if b, fresh, _ := CachedBacklog(context.Background(), e); fresh || b.Files != 1 {
		t.Fatalf("no cache yet: %+v fresh=%v", b, fresh)
	}
	if _, err := RefreshStatus(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	if b, fresh, _ := CachedBacklog(context.Background(), e); !fresh || b.Files != 1 {
		t.Fatalf("after refresh: %+v fresh=%v", b, fresh)
	}
	time.Sleep(10 * time.Millisecond)
	mkfile(t, filepath.Join(e.SilosDir(), "-a", "memory", "two.md"), "x")
	if b, fresh, _ := CachedBacklog(context.Background(), e); fresh || b.Files != 2 {
		t.Fatalf("after a new silo file: %+v fresh=%v", b, fresh)
	}
}
