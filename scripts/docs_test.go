package scripts

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} +(.+)$`)
)

// slug is GitHub's anchor of a heading: lowercase, punctuation dropped,
// spaces as dashes.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDocsLinks: the README is for a newcomer (at most 250 lines); every
// link between the README and docs/ points at a file that is there, and
// at a heading of it when it names one.
func TestDocsLinks(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 250 {
		t.Errorf("README.md has %d lines; a newcomer's README has at most 250 (depth goes in docs/)", n)
	}
	files, _ := filepath.Glob("../docs/*.md")
	files = append(files, "../README.md")
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		if data, err := os.ReadFile(path); err == nil {
			text := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(data), "")
			for _, m := range heading.FindAllStringSubmatch(text, -1) {
				a[slug(strings.ReplaceAll(m[1], "`", ""))] = true
			}
		}
		anchors[path] = a
		return a
	}
	links := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(data), "")
		text = regexp.MustCompile("`[^`\n]*`").ReplaceAllString(text, "") // code, not links
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := f
			if file != "" {
				path = filepath.Join(filepath.Dir(f), file)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link to %s: %v", f, target, err)
				continue
			}
			links++
			if anchor != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[anchor] {
				t.Errorf("%s: link to %s: no heading #%s there", f, target, anchor)
			}
		}
	}
	if links < 10 {
		t.Errorf("only %d links checked", links)
	}
}
