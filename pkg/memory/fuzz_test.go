package memory

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadHead (MEMORY.md parsing): any file yields at most maxLines valid
// UTF-8 lines within maxChars, none with a line end, and a total that counts
// at least the lines taken.
func FuzzReadHead(f *testing.F) {
	for _, s := range []string{"## T\n- a\n", "\r\n\r\n", "a\x00b\nc", "\xff\xfe\n🚀🚀🚀\n", strings.Repeat("x", 70000) + "\ny\n", "\n\n\nz"} {
		f.Add(s, 10, 100)
	}
	if data, err := os.ReadFile("../../scripts/demo/sample.txtar"); err == nil {
		f.Add(string(data), 200, 9500)
	}
	f.Fuzz(func(t *testing.T, content string, maxLines, maxChars int) {
		if maxLines < 0 || maxLines > 1000 || maxChars < 0 || maxChars > 20000 {
			return
		}
		h, err := readHead(strings.NewReader(content), maxLines, maxChars)
		if err != nil {
			t.Fatal(err)
		}
		chars := 0
		for _, l := range h.Lines {
			if !utf8.ValidString(l) || strings.ContainsAny(l, "\n") {
				t.Fatalf("bad line %q", l)
			}
			chars += Chars(l) + 1
		}
		if len(h.Lines) > maxLines || chars > maxChars || h.Total < len(h.Lines) || h.Total != refTotal(content) {
			t.Fatalf("%d lines (%d chars) of %d (want %d); limits %d, %d", len(h.Lines), chars, h.Total, refTotal(content), maxLines, maxChars)
		}
	})
}

// FuzzEditIndex (INDEX.md parsing): whatever INDEX.md holds, adding a
// session's line leaves exactly one line for it, no blank lines, and the
// lines sorted newest first.
func FuzzEditIndex(f *testing.F) {
	f.Add("- a — episodes/20261120T100000Z-s1.json\n- b — episodes/20261119T100000Z-s2.json\n", "s1")
	f.Add("garbage\n\n\n— episodes/\n", "x")
	f.Add("", "s")
	f.Fuzz(func(t *testing.T, index, sid string) {
		if !safeName(sid, 128, false) || strings.Contains(sid, "..") {
			return
		}
		e := Env{Store: t.TempDir()}
		path := filepath.Join(e.ProjectDir("k"), "INDEX.md")
		if err := WriteFileAtomic(path, []byte(index)); err != nil {
			t.Fatal(err)
		}
		line := "- new — episodes/20261121T000000Z-" + sid + ".json"
		if err := editIndex(e, "k", []indexEdit{{sid: sid, line: line}}, nil); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		n := 0
		for _, l := range lines {
			if strings.TrimSpace(l) == "" {
				t.Fatalf("blank line in %q", data)
			}
			if l == line {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("the session's line appears %d times in %q", n, data)
		}
		if !sort.SliceIsSorted(lines, func(i, j int) bool { return lineEpisode(lines[i]) > lineEpisode(lines[j]) }) {
			t.Fatalf("not sorted newest first: %q", data)
		}
	})
}

// refTotal counts lines from the first non-blank one to the last, plainly.
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
