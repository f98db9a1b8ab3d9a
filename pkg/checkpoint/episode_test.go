package checkpoint

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/episode"
)

// TestRecordReadsAsTheEpisodeView: what the fast writer writes is
// what pkg/episode's read view reads — every field a reader uses, over
// records of every shape (the codec's random ones): one format, two
// programs, held together here.
func TestRecordReadsAsTheEpisodeView(t *testing.T) {
	for seed := range int64(300) {
		c := randomCheckpoint(seed)
		data, err := Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := episode.Decode(data)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, data)
		}
		if ep.SessionID != asRead(c.SessionID) || ep.Goal != asRead(c.Goal) || ep.Title != asRead(c.Title) || ep.Outcome != asRead(c.Outcome) || ep.Turns != c.Turns ||
			ep.StartedAt != asRead(c.StartedAt) || ep.GitBranch != asRead(c.GitBranch) || ep.Automated != c.Automated || ep.Friction.Class != asRead(c.Friction.Class) || ep.Agent != asRead(c.Agent) ||
			!sameStrings(ep.FilesChanged, c.FilesChanged) || !sameStrings(ep.Digest.Commands, c.Digest.Commands) || !sameStrings(ep.Digest.Read, c.Digest.Read) {
			t.Fatalf("seed %d: the view reads %+v\nfrom %s", seed, ep, data)
		}
		if len(ep.Digest.Notes) != len(c.Digest.Notes) {
			t.Fatalf("seed %d: %d notes read, %d written", seed, len(ep.Digest.Notes), len(c.Digest.Notes))
		}
		for i, n := range c.Digest.Notes {
			v := ep.Digest.Notes[i]
			if v.Turn != n.Turn || v.At != asRead(n.At) || v.Kind != asRead(n.Kind) || v.Cmd != asRead(n.Cmd) || v.Text != asRead(n.Text) || !sameStrings(v.After, n.After) {
				t.Fatalf("seed %d: note %d read %+v, written %+v", seed, i, v, n)
			}
		}
	}
}

// sameStrings compares what was read (a) with what was written (b), a
// byte that is not UTF-8 read as U+FFFD, as JSON readers do (the record's
// strings come from JSON transcripts: they hold none).
func sameStrings(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != asRead(b[i]) {
			return false
		}
	}
	return true
}

func asRead(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // utf8.RuneError for a byte that is not UTF-8
		i += n
	}
	return b.String()
}
