package session

import (
	"testing"

	"github.com/ccmem/ccmem/pkg/friction"
)

// TestParseIndexLineReadsWhatIndexLineWrites round-trips a person's
// session and an automated run, with and without files, and refuses lines
// of other shapes (a hand-edited INDEX.md, a path in the episode name).
func TestParseIndexLineReadsWhatIndexLineWrites(t *testing.T) {
	for _, c := range []*Checkpoint{
		{StartedAt: "2026-11-21T14:03:00Z", Turns: 12, Title: `fix the "cache" · bug`, FilesChanged: []string{"a.go", "b.go", "c.go"}, Friction: friction.Result{Class: "ROUGH"}},
		{StartedAt: "2026-11-22T09:00:00Z", Turns: 1, Goal: "nightly", Automated: true, Friction: friction.Result{Class: "OK"}},
	} {
		line := IndexLine(c, "2026-11-21T140300Z-abc.json")
		ie, ok := ParseIndexLine(line)
		if !ok {
			t.Fatalf("ParseIndexLine(%q) refused", line)
		}
		if ie.Turns != c.Turns || ie.Class != c.Friction.Class || ie.Automated != c.Automated || ie.Episode != "2026-11-21T140300Z-abc.json" {
			t.Errorf("ParseIndexLine(%q) = %+v", line, ie)
		}
		if ie.Started != c.StartedAt[:10]+" "+c.StartedAt[11:16] {
			t.Errorf("started %q from %q", ie.Started, line)
		}
		if c.Title != "" && ie.Title != `fix the 'cache' · bug` {
			t.Errorf("title %q from %q", ie.Title, line)
		}
		if len(c.FilesChanged) > 0 && ie.Files == "" {
			t.Errorf("files lost from %q", line)
		}
	}
	for _, bad := range []string{"", "# INDEX", "- 2026-11-21 · OK — episodes/x.json", "- a · 1 turn · OK · \"t\" — episodes/../../etc/passwd", "- a · 1 turn · OK · \"t\" — episodes/"} {
		if ie, ok := ParseIndexLine(bad); ok {
			t.Errorf("ParseIndexLine(%q) accepted: %+v", bad, ie)
		}
	}
}
