package session

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestParseIndexLineReadsWhatIndexLineWrites round-trips a person's
// session and an automated run, with and without files, and refuses lines
// of other shapes (a hand-edited INDEX.md, a path in the episode name).
func TestParseIndexLineReadsWhatIndexLineWrites(t *testing.T) {
	for _, c := range []*Checkpoint{
		{Record: checkpoint.Record{StartedAt: "2026-11-21T14:03:00Z", Turns: 12, Title: `fix the "cache" · bug`, FilesChanged: []string{"a.go", "b.go", "c.go"}, Friction: friction.Result{Class: "ROUGH"}}},
		{Record: checkpoint.Record{StartedAt: "2026-11-22T09:00:00Z", Turns: 1, Goal: "nightly", Automated: true, Friction: friction.Result{Class: "OK"}}},
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

// TestRecentEpisodesReadsOnlyTheNewest: the newest n of the episodes and
// the archive together, newest first, and the count of all.
func TestRecentEpisodesReadsOnlyTheNewest(t *testing.T) {
	e := storetest.Env(t)
	key := "-k"
	for i, dir := range []string{e.EpisodesDir(key), e.EpisodeArchiveDir(key), e.EpisodesDir(key)} {
		c := &Checkpoint{Record: checkpoint.Record{SessionID: fmt.Sprintf("s%d", i), StartedAt: fmt.Sprintf("2026-11-2%dT10:00:00Z", i), Turns: i + 1}}
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		storetest.Mkfile(t, filepath.Join(dir, EpisodeName(c, time.Time{})), string(data))
	}
	storetest.Mkfile(t, filepath.Join(e.EpisodeArchiveDir(key), "not-an-episode.txt"), "x")
	eps, total, problems := RecentEpisodes(e, key, 2)
	if total != 3 || len(eps) != 2 || len(problems) > 0 {
		t.Fatalf("RecentEpisodes(2) = %d read of %d, problems %v", len(eps), total, problems)
	}
	if eps[0].Record.SessionID != "s2" || eps[1].Record.SessionID != "s1" {
		t.Fatalf("not newest first: %s, %s", eps[0].Record.SessionID, eps[1].Record.SessionID)
	}
	all, problems := AllEpisodes(e, key)
	if len(all) != 3 || len(problems) > 0 {
		t.Fatalf("AllEpisodes = %d, %v", len(all), problems)
	}
}
