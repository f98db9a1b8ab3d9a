package store_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
	"github.com/ccmem/ccmem/pkg/textfmt"
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
			h, err := store.ReadHeadFrom(strings.NewReader(tt.content), store.Limits{Lines: tt.maxLines, Chars: tt.maxChars})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%q", h.Lines) != fmt.Sprintf("%q", tt.wantLines) || h.Total != tt.wantTotal {
				t.Fatalf("got %q total %d, want %q total %d", h.Lines, h.Total, tt.wantLines, tt.wantTotal)
			}
		})
	}
}

// A directory where a file was expected is refused on every system (FIFOs
// and devices: store_unix_test.go).
// TestReadHeadShortensLongLines: one overlong line (a pasted paragraph, a
// 100,000-character line) is shortened in place with a pointer to where it
// goes on, and the lines after it still come.
func TestReadHeadShortensLongLines(t *testing.T) {
	content := "## Notes\n- short one\n- " + strings.Repeat("é", 100000) + "\n- " + strings.Repeat("w ", 400) + "\n- after the long ones\n"
	cut := func(n int) string { return fmt.Sprintf(" (line %d continues in M.md)", n) }
	h, err := store.ReadHeadFrom(strings.NewReader(content), store.Limits{Lines: 100, Chars: 5000, LineChars: 500, Cut: cut})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Lines) != 5 || h.Total != 5 || h.Shortened != 2 {
		t.Fatalf("got %d lines of %d, %d shortened: want 5 of 5, 2 shortened", len(h.Lines), h.Total, h.Shortened)
	}
	if want := "- " + strings.Repeat("é", 498) + "… (line 3 continues in M.md)"; h.Lines[2] != want {
		t.Fatalf("line 3 = %.80q…, want shortened to 500 chars with its pointer", h.Lines[2])
	}
	if fmt.Sprint(h.LineNos) != "[1 2 3 4 5]" {
		t.Fatalf("line numbers %v", h.LineNos)
	}
	if !strings.HasSuffix(h.Lines[3], "… (line 4 continues in M.md)") || h.Lines[4] != "- after the long ones" {
		t.Fatalf("lines after the long one: %q / %q", h.Lines[3][len(h.Lines[3])-40:], h.Lines[4])
	}
	// Without a line cap, the long line stops the section (the old rule,
	// still right for a caller that wants whole lines only).
	h, _ = store.ReadHeadFrom(strings.NewReader(content), store.Limits{Lines: 100, Chars: 5000})
	if len(h.Lines) != 2 || h.Total != 5 {
		t.Fatalf("without a line cap: %d lines of %d", len(h.Lines), h.Total)
	}
}

func TestReadHeadRefusesDirectories(t *testing.T) {
	if _, err := store.ReadHead(t.TempDir(), store.Limits{Lines: 10, Chars: 100}); !errors.Is(err, store.ErrIsDir) {
		t.Fatalf("directory: err = %v", err)
	}
}

func TestReadHeadEstimatesBigFiles(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, "- line %d with some words\n", i)
	}
	path := filepath.Join(dir, "MEMORY.md")
	storetest.Mkfile(t, path, b.String())
	exact := strings.Count(b.String(), "\n")
	h, err := store.ReadHead(path, store.Limits{Lines: 10, Chars: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !h.Approx || h.Total < exact*95/100 || h.Total > exact*105/100 {
		t.Fatalf("total %d (approx %v), exact %d", h.Total, h.Approx, exact)
	}
	small := filepath.Join(dir, "small.md")
	storetest.Mkfile(t, small, strings.Repeat("- x\n", 1000))
	if h, _ := store.ReadHead(small, store.Limits{Lines: 10, Chars: 1000}); h.Approx || h.Total != 1000 {
		t.Fatalf("small file: %+v", h)
	}
}

func FuzzReadHead(f *testing.F) {
	for _, s := range []string{"## T\n- a\n", "\r\n\r\n", "a\x00b\nc", "\xff\xfe\n🚀🚀🚀\n", strings.Repeat("x", 70000) + "\ny\n", "\n\n\nz"} {
		f.Add(s, 10, 100, 0)
		f.Add(s, 10, 1000, 20)
	}
	if data, err := os.ReadFile("../../scripts/demo/sample.txtar"); err == nil {
		f.Add(string(data), 200, 9500, 80)
	}
	f.Fuzz(func(t *testing.T, content string, maxLines, maxChars, lineChars int) {
		if maxLines < 0 || maxLines > 1000 || maxChars < 0 || maxChars > 20000 || lineChars < 0 || lineChars > 2000 {
			return
		}
		cut := func(n int) string { return fmt.Sprintf(" (line %d continues)", n) }
		h, err := store.ReadHeadFrom(strings.NewReader(content), store.Limits{Lines: maxLines, Chars: maxChars, LineChars: lineChars, Cut: cut})
		if err != nil {
			t.Fatal(err)
		}
		if len(h.LineNos) != len(h.Lines) {
			t.Fatalf("%d line numbers for %d lines", len(h.LineNos), len(h.Lines))
		}
		for i := 1; i < len(h.LineNos); i++ {
			if h.LineNos[i] <= h.LineNos[i-1] {
				t.Fatalf("line numbers not increasing: %v", h.LineNos)
			}
		}
		chars := 0
		for _, l := range h.Lines {
			if !utf8.ValidString(l) || strings.ContainsAny(l, "\n") {
				t.Fatalf("bad line %q", l)
			}
			if lineChars > 0 && textfmt.Chars(l) > lineChars+1+len(cut(1<<30)) {
				t.Fatalf("line of %d chars over the line cap %d: %q", textfmt.Chars(l), lineChars, l)
			}
			chars += textfmt.Chars(l) + 1
		}
		if len(h.Lines) > maxLines || chars > maxChars || h.Total < len(h.Lines) || h.Total != refTotal(content) {
			t.Fatalf("%d lines (%d chars) of %d (want %d); limits %d, %d", len(h.Lines), chars, h.Total, refTotal(content), maxLines, maxChars)
		}
	})
}

func refTotal(content string) int {
	lines := strings.Split(content, "\n")
	first, last := -1, -1
	for i, l := range lines {
		if strings.Trim(l, " \t\r\v\f") != "" {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0
	}
	return last - first + 1
}

// testEnv is an store.Env rooted in a fresh temporary HOME.
func TestResolveProject(t *testing.T) {
	e := storetest.Env(t)
	base := storetest.RealDir(t)
	repo := filepath.Join(base, "src", "shop")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "config"), "[remote \"origin\"]\n\turl = git@example.com:acme/shop.git\n")
	storetest.Mkfile(t, filepath.Join(repo, "internal", "store", "db.go"), "package store\n")
	// A linked worktree: its .git file points into the main repository.
	wt := filepath.Join(base, "shop-feature")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "worktrees", "shop-feature", "commondir"), "../..\n")
	storetest.Mkfile(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(repo, ".git", "worktrees", "shop-feature")+"\n")
	storetest.Mkfile(t, filepath.Join(wt, "cmd", "main.go"), "package main\n")
	// A submodule: a .git file without commondir is its own root.
	sub := filepath.Join(repo, "third_party", "lib")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n")
	storetest.Mkfile(t, filepath.Join(sub, ".git"), "gitdir: ../../.git/modules/lib\n")
	// Plain folders, and a symlink to the repository.
	plain := filepath.Join(base, "notes")
	if err := os.MkdirAll(filepath.Join(plain, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link-to-shop")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, dir, root string
		git             bool
	}{
		{"git root", repo, repo, true},
		{"subdirectory", filepath.Join(repo, "internal", "store"), repo, true},
		{"worktree resolves to main working tree", filepath.Join(wt, "cmd"), repo, true},
		{"submodule is its own root", sub, sub, true},
		{"symlink resolves to the real path", link, repo, true},
		{"non-git directory is its own root", filepath.Join(plain, "deep"), filepath.Join(plain, "deep"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := store.ResolveProject(e, tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if p.Root != tt.root || p.Git != tt.git {
				t.Fatalf("store.ResolveProject(%s) = root %s git %v; want %s %v", tt.dir, p.Root, p.Git, tt.root, tt.git)
			}
			want := store.Slug(tt.root)
			if p.Remote != "" {
				want = "git-example-com-acme-shop-e0c0b1057918bbce" // the same on every machine
			}
			if p.Key != want {
				t.Fatalf("key %q, want %q", p.Key, want)
			}
		})
	}
	p, _ := store.ResolveProject(e, filepath.Join(wt, "cmd"))
	if p.Remote != "git@example.com:acme/shop.git" {
		t.Fatalf("worktree remote = %q, want the main repository's origin", p.Remote)
	}

	for _, bad := range []string{"", filepath.Join(base, "missing"), filepath.Join(repo, "internal", "store", "db.go")} {
		if _, err := store.ResolveProject(e, bad); err == nil {
			t.Errorf("store.ResolveProject(%q) succeeded; want an error", bad)
		}
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/dev/src/shop", "-home-dev-src-shop"},
		{"/home/dev/my_app.v2", "-home-dev-my-app-v2"},
		{"/home/dev/café", "-home-dev-caf-"},
		{"/home/dev/🚀", "-home-dev---"}, // one astral rune is two UTF-16 units
		// Another system's folders (a session recorded there, synced
		// here) are slugged as that system's client slugs them, whatever
		// this OS is (issue 50, finding 8).
		{`C:\Users\ana\src\shop`, "C--Users-ana-src-shop"},
		{`\\server\share\shop`, "--server-share-shop"},
		{"/Users/ana/src/shop", "-Users-ana-src-shop"},
	}
	for _, tt := range tests {
		if got := store.Slug(tt.in); got != tt.want {
			t.Errorf("store.Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := "/" + strings.Repeat("abcdefghij/", 25)
	got := store.Slug(long)
	if !strings.HasPrefix(got, store.Slug(long)[:200]) || len(got) <= 201 || got[200] != '-' {
		t.Fatalf("long slug %q: want 200 characters, '-', then a hash", got)
	}
	if store.Slug(long+"x") == got {
		t.Fatal("two long paths with one prefix share a slug")
	}
}

// Slugs are lossy ("/a/b-c" and "/a/b/c" share one); once one project owns
// a key, the other gets a different key, so two directories never share one.
func TestKeysNeverCollide(t *testing.T) {
	e := storetest.Env(t)
	base := storetest.RealDir(t)
	a := filepath.Join(base, "b-c")
	b := filepath.Join(base, "b", "c")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pa, _ := store.ResolveProject(e, a)
	pb, _ := store.ResolveProject(e, b)
	if pa.Key != pb.Key {
		t.Fatalf("precondition: unclaimed lossy slugs should match, got %q and %q", pa.Key, pb.Key)
	}
	if _, err := store.ClaimProject(e, pa); err != nil {
		t.Fatal(err)
	}
	pa2, _ := store.ResolveProject(e, a)
	pb2, _ := store.ResolveProject(e, b)
	if pa2.Key != pa.Key {
		t.Fatalf("the owner's key changed: %q -> %q", pa.Key, pa2.Key)
	}
	if pb2.Key == pa2.Key {
		t.Fatalf("%s and %s share key %q", a, b, pa2.Key)
	}
	if !strings.HasPrefix(pb2.Key, store.Slug(b)+"-") {
		t.Fatalf("second key %q should be the slug plus a hash", pb2.Key)
	}
	if _, err := store.ClaimProject(e, pb2); err != nil {
		t.Fatal(err)
	}
	if pb3, _ := store.ResolveProject(e, b); pb3.Key != pb2.Key {
		t.Fatalf("second project's key is not stable: %q then %q", pb2.Key, pb3.Key)
	}
	fi, err := os.Stat(e.Store)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("store folder mode = %v, %v; want 0700", fi.Mode().Perm(), err)
	}
}

func TestEnvFrom(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	get := func(k string) string { return env[k] }
	e, err := store.EnvFrom(get)
	if err != nil || e.Store != "/home/u/.claude/ccmem" || e.ClaudeDir != "/home/u/.claude" || e.Disabled {
		t.Fatalf("defaults: %+v %v", e, err)
	}
	env["CCMEM_HOME"] = "~/mem"
	env["CLAUDE_CONFIG_DIR"] = "/etc/claude"
	env["CCMEM_DISABLE"] = "1"
	e, _ = store.EnvFrom(get)
	if e.Store != "/home/u/mem" || e.ClaudeDir != "/etc/claude" || !e.Disabled {
		t.Fatalf("overrides: %+v", e)
	}
	env["CCMEM_DISABLE"] = "0"
	if e, _ = store.EnvFrom(get); e.Disabled {
		t.Fatal("CCMEM_DISABLE=0 disabled ccmem")
	}
	if _, err := store.EnvFrom(func(string) string { return "" }); err == nil {
		t.Fatal("no HOME and no overrides: want an error")
	}
}

// On a case-insensitive file system one folder has several spellings; the
// project keeps the key and root recorded first. (Simulated here with a
// symlink, since Linux file systems are case-sensitive: the recorded
// spelling names the same folder.)
func TestOneProjectAcrossSpellings(t *testing.T) {
	e := storetest.Env(t)
	base := storetest.RealDir(t)
	root := filepath.Join(base, "shop")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(base, "SHOP")
	if err := os.Symlink(root, other); err != nil {
		t.Fatal(err)
	}
	key := store.Slug(root)
	storetest.Mkfile(t, e.ProjectFile(key), `{"root":"`+other+`","key":"`+key+`"}`)
	p, err := store.ResolveProject(e, root)
	if err != nil {
		t.Fatal(err)
	}
	if p.Key != key || p.Root != other {
		t.Fatalf("project %+v, want key %s and the recorded root %s", p, key, other)
	}
	// A different folder whose name differs only in case is another project.
	storetest.Mkfile(t, e.ProjectFile(key), `{"root":"`+filepath.Join(base, "Shop")+`","key":"`+key+`"}`)
	if p, _ := store.ResolveProject(e, root); p.Key == key {
		t.Fatalf("a different folder shares key %s", p.Key)
	}
}

// Two projects whose lossy slugs collide, started for the first time at the
// same moment, never share a folder: the claim is atomic.
func TestFirstClaimsRaceNeverShare(t *testing.T) {
	for trial := 0; trial < 40; trial++ {
		e := storetest.Env(t)
		base := storetest.RealDir(t)
		dirs := []string{filepath.Join(base, "a-b"), filepath.Join(base, "a", "b")}
		for _, d := range dirs {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		got := make([]store.Project, 2)
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, d := range dirs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				p, err := store.ResolveProject(e, d)
				if err == nil {
					p, err = store.ClaimProject(e, p)
				}
				got[i], errs[i] = p, err
			}()
		}
		close(start)
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatal(errs)
		}
		if got[0].Key == got[1].Key {
			t.Fatalf("trial %d: %s and %s share the folder %s", trial, dirs[0], dirs[1], got[0].Key)
		}
		for i, p := range got {
			if again, _ := store.ResolveProject(e, dirs[i]); again.Key != p.Key {
				t.Fatalf("trial %d: %s claimed %s, resolves to %s", trial, dirs[i], p.Key, again.Key)
			}
		}
	}
}

// TestReadHeadLineNumbers: each line taken comes with its line number in
// the file, blank lines and leading blank lines counted.
func TestReadHeadLineNumbers(t *testing.T) {
	h, err := store.ReadHeadFrom(strings.NewReader("\n\n## A\n- a\n\n\n- b\n"), store.Limits{Lines: 10, Chars: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(h.LineNos) != "[3 4 5 6 7]" || len(h.Lines) != 5 {
		t.Fatalf("lines %q at %v", h.Lines, h.LineNos)
	}
}

// TestListFiles: the regular files of a folder with their size and time,
// as os.Lstat gives them; no symlink, folder or dot file; a symlinked
// folder under a root is refused.
func TestListFiles(t *testing.T) {
	dir := t.TempDir()
	for i := range 1200 { // enough to be statted on every core
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.json", i)), []byte(strings.Repeat("x", i)), 0o600)
	}
	os.WriteFile(filepath.Join(dir, ".hidden"), []byte("x"), 0o600)
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	os.Symlink(filepath.Join(dir, "f0001.json"), filepath.Join(dir, "link.json"))
	files, err := store.ListFiles("", dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1200 {
		t.Fatalf("%d files, want 1200", len(files))
	}
	for _, f := range files {
		fi, err := os.Lstat(filepath.Join(dir, f.Name))
		if err != nil || fi.Size() != f.Size || fi.ModTime().UnixNano() != f.MTime {
			t.Fatalf("%s: listed %d bytes at %d, lstat says %v", f.Name, f.Size, f.MTime, fi)
		}
	}
	root := t.TempDir()
	if err := os.Symlink(dir, filepath.Join(root, "linked")); err != nil {
		t.Skip("no symlinks here")
	}
	if _, err := store.ListFiles(root, filepath.Join(root, "linked")); !errors.Is(err, store.ErrSymlink) {
		t.Fatalf("a symlinked folder: %v", err)
	}
}
