package session

import (
	"path/filepath"
	"testing"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestUseOfWhatRecallGave (issue 48): from a session's own record, a
// recalled passage counts as used when the session read the session it
// came from, or carried what the passage named into a later answer,
// command or changed file that the person had not typed; otherwise it was
// ignored.
func TestUseOfWhatRecallGave(t *testing.T) {
	old := "/home/u/.claude/ccmem/projects/-src-shop/episodes/20261001T090000Z-s1.json"
	passage := "The staging postgres listens on port 6432 behind pgbouncer; run `make db-up` first. Config in deploy/staging.env."
	read := func(ref string) string {
		if ref == old+"#2" {
			return passage
		}
		return ""
	}
	given := []checkpoint.Given{{Ref: old + "#2", Kind: GivenPassage, Turn: 1}}
	cases := []struct {
		name string
		c    Checkpoint
		used bool
	}{
		{"read the session", Checkpoint{Record: checkpoint.Record{Digest: checkpoint.Digest{Read: []string{old}}}}, true},
		{"read through MCP get, by name", Checkpoint{Record: checkpoint.Record{Digest: checkpoint.Digest{Read: []string{old}}}}, true},
		{"ran the command it named", Checkpoint{Record: checkpoint.Record{Digest: checkpoint.Digest{Commands: []string{"make db-up && go test ./..."}}}}, true},
		{"answered with what it named", Checkpoint{Record: checkpoint.Record{Digest: checkpoint.Digest{Notes: []checkpoint.Note{{Turn: 1, Kind: NotePrompt, Text: "the tests cannot reach the database"}, {Turn: 2, Kind: NoteAnswer, Text: "Pointed the tests at port 6432 (pgbouncer)."}}}}}, true},
		{"changed the file it named", Checkpoint{Record: checkpoint.Record{FilesChanged: []string{"deploy/staging.env"}}}, true},
		{"ignored", Checkpoint{Record: checkpoint.Record{Digest: checkpoint.Digest{Notes: []checkpoint.Note{{Turn: 2, Kind: NoteAnswer, Text: "Fixed the typo in the README."}}, Commands: []string{"go test ./..."}}}}, false},
		{"the person had typed it", Checkpoint{Record: checkpoint.Record{Digest: checkpoint.Digest{Notes: []checkpoint.Note{{Turn: 1, Kind: NotePrompt, Text: "is the db on 6432?"}, {Turn: 2, Kind: NoteAnswer, Text: "Yes, 6432."}}}}}, false},
		{"before it was given", Checkpoint{Record: checkpoint.Record{Digest: checkpoint.Digest{Notes: []checkpoint.Note{{Turn: 0, Kind: NoteAnswer, Text: "port 6432 it is"}}}}}, false},
	}
	for _, c := range cases {
		u := useOf(&c.c, given, read)
		if got := u.Used[GivenPassage] == 1; got != c.used || u.Given[GivenPassage] != 1 {
			t.Errorf("%s: used %v (%+v), want %v", c.name, got, u, c.used)
		}
	}
}

// TestUseIsCountedAndTunes: each session's use adds to this machine's
// counts; pointer lines seldom used make recall name fewer weak matches,
// within the bound, and never past it.
func TestUseIsCountedAndTunes(t *testing.T) {
	e := storetest.Env(t)
	for i := range 60 {
		if err := recordUse(e, checkpoint.Use{Given: map[string]int{GivenPointer: 1, GivenPassage: 1}, Used: map[string]int{GivenPassage: i % 2}}); err != nil {
			t.Fatal(err)
		}
	}
	s := ReadUse(e)
	if s.Sessions != 60 || s.Given[GivenPointer] != 60 || s.Used[GivenPassage] != 30 || s.Rate(GivenPassage) != 0.5 || s.Rate(GivenPointer) != 0 {
		t.Fatalf("counts: %+v", s)
	}
	if s.PointerShift != MaxPointerShift {
		t.Errorf("pointer lines never used: shift %v, want the bound %v", s.PointerShift, MaxPointerShift)
	}
	for range 200 {
		recordUse(e, checkpoint.Use{Given: map[string]int{GivenPointer: 1}, Used: map[string]int{GivenPointer: 1}})
	}
	if s := ReadUse(e); s.PointerShift != MinPointerShift {
		t.Errorf("pointer lines used: shift %v, want the bound %v", s.PointerShift, MinPointerShift)
	}
	if _, err := filepath.Abs(e.Store); err != nil {
		t.Fatal(err)
	}
}
