package records

import (
	"os"
	"path/filepath"
	"strings"
)

// newEntries returns the changes of in that old does not already hold.
func newEntries(old, in []RecordChange) []RecordChange {
	seen := map[string]bool{}
	for _, c := range old {
		seen[c.Date+"\x00"+c.Summary] = true
	}
	var out []RecordChange
	for _, c := range in {
		if strings.TrimSpace(c.Summary) == "" || seen[c.Date+"\x00"+c.Summary] {
			continue
		}
		out = append(out, c)
	}
	return out
}

func appendChanges(old []RecordChange, add ...RecordChange) []RecordChange {
	out := append(append([]RecordChange(nil), old...), add...)
	if len(out) > maxChanges {
		out = out[len(out)-maxChanges:]
	}
	return out
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// maxNewTags is the most tags one update adds: a record's tags are its
// history of what it is about, and one update cannot replace them all.
const maxNewTags = 4

// mergeTags keeps every old tag and adds the first maxNewTags new ones;
// past the cap the oldest tags make room for them.
func mergeTags(old, in []string) []string {
	old = dedupe(old)
	had := map[string]bool{}
	for _, t := range old {
		had[t] = true
	}
	var add []string
	for _, t := range dedupe(in) {
		if !had[t] && len(add) < maxNewTags {
			add = append(add, t)
		}
	}
	out := append(old, add...)
	if len(out) > maxTags {
		out = out[len(out)-maxTags:]
	}
	return out
}

// mergeFiles keeps every old path that still exists or is still named, and
// adds the new ones.
func mergeFiles(root string, old, in []string) []string {
	named := map[string]bool{}
	for _, f := range in {
		named[f] = true
	}
	var keep []string
	for _, f := range old {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		if _, err := os.Stat(p); err == nil || named[f] {
			keep = append(keep, f)
		}
	}
	out := dedupe(append(keep, in...))
	if out == nil {
		out = []string{}
	}
	return out
}
