package records

import (
	"fmt"
	"sort"
	"strings"
)

// LinkedBy lists the active records that link to category/id (the
// deletion guard): ones whose title or content names it as CATEGORY/ID,
// by its id, or by its title. Retiring or archiving it leaves them
// pointing at memory no longer injected; the caller warns, naming them.
func (s *Store) LinkedBy(category, id string) []string {
	target := Read(s.Root, Path(s.Root, category, id))
	title := ""
	if target.Record != nil {
		title = strings.ToLower(strings.TrimSpace(target.Record.Title))
	}
	ref := category + "/" + id
	var out []string
	for _, rf := range List(s.Root) {
		r := rf.Record
		if r == nil || rf.Err != nil || r.RecordStatus != StatusActive || r.Category == category && r.ID == id {
			continue
		}
		var parts []string
		collectText(r.Content, &parts)
		text := strings.ToLower(r.Title + "\n" + strings.Join(parts, "\n"))
		if strings.Contains(text, ref) || len(id) >= 6 && containsWord(text, id) || len(title) >= 12 && strings.Contains(text, title) {
			out = append(out, fmt.Sprintf("%s/%s (%s)", r.Category, r.ID, r.Title))
		}
	}
	return out
}

// collectText gathers the strings of a record's content.
func collectText(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			collectText(e, out)
		}
	case map[string]any:
		for _, e := range x {
			collectText(e, out)
		}
	}
}

// containsWord tells whether text holds w not inside a longer slug.
func containsWord(text, w string) bool {
	isSlug := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '_' }
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isSlug(text[j-1])) && (end == len(text) || !isSlug(text[end])) {
			return true
		}
		i = j + 1
	}
}

// ContentText is the text of a record's content, its strings one a line.
func (r *Record) ContentText() string {
	var parts []string
	collectText(r.Content, &parts)
	sort.Strings(parts) // a map's order: the same record, the same text
	return strings.Join(parts, "\n")
}
