package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestImportOpencodeStorage: an opencode session in its JSON storage (a
// session file naming its folder, message files, part files: text, a
// shell call that failed, one of a type ccmem does not know, one torn)
// becomes an episode of that folder's project, marked as opencode's,
// found by search; a subagent's session (it has a parent) is not one of
// the person's sessions; an import after the session went on brings the
// episode up to date.
func TestImportOpencodeStorage(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	st := filepath.Join(e.OpencodeDir, "storage")
	put := func(rel string, v any) {
		data, _ := json.Marshal(v)
		storetest.Mkfile(t, filepath.Join(st, rel), string(data))
	}
	put("session/4f1e2d/ses_7Hq2.json", map[string]any{"id": "ses_7Hq2", "directory": repo, "title": "cache invalidation", "time": map[string]any{"created": 1763715600000}})
	put("session/4f1e2d/ses_sub1.json", map[string]any{"id": "ses_sub1", "directory": repo, "parentID": "ses_7Hq2"})
	put("message/ses_7Hq2/msg_001.json", map[string]any{"id": "msg_001", "role": "user", "time": map[string]any{"created": 1763715601000}})
	put("part/msg_001/prt_001.json", map[string]any{"id": "prt_001", "type": "text", "text": "the product cache goes stale after a price change (lantern-moth); fix the invalidation"})
	put("message/ses_7Hq2/msg_002.json", map[string]any{"id": "msg_002", "role": "assistant", "modelID": "some-model", "time": map[string]any{"created": 1763715605000}})
	put("part/msg_002/prt_001.json", map[string]any{"id": "prt_001", "type": "text", "text": "Running the cache tests."})
	put("part/msg_002/prt_002.json", map[string]any{"id": "prt_002", "type": "tool", "tool": "bash", "callID": "c1",
		"state": map[string]any{"status": "error", "input": map[string]any{"command": "go test ./internal/cache/"}, "error": "FAIL: TestPriceInvalidation"}})
	put("part/msg_002/prt_003.json", map[string]any{"id": "prt_003", "type": "step-finish-of-the-future", "payload": "UNKNOWN-PART"})
	storetest.Mkfile(t, filepath.Join(st, "part/msg_002/prt_004.json"), `{"id":"prt_004","type":"te`)
	storetest.Mkfile(t, filepath.Join(e.OpencodeDir, "opencode.db"), "SQLite format 3\x00")
	rep, err := session.Import(context.Background(), e, session.ImportOptions{})
	if err != nil || rep.Imported != 1 || len(rep.Failed) > 0 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "does not read yet") {
		t.Fatalf("the SQLite store is not said: %v", rep.Notes)
	}
	read := func() (string, episode.Record) {
		t.Helper()
		ents, _ := os.ReadDir(e.EpisodesDir(p.Key))
		if len(ents) != 1 {
			t.Fatalf("episodes: %v", ents)
		}
		data, _ := os.ReadFile(filepath.Join(e.EpisodesDir(p.Key), ents[0].Name()))
		ep, err := episode.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		return string(data), ep
	}
	data, ep := read()
	if ep.Agent != "opencode" || ep.Turns != 1 || !strings.Contains(data, "go test ./internal/cache/") || !strings.Contains(data, "FAIL: TestPriceInvalidation") || strings.Contains(data, "UNKNOWN-PART") {
		t.Fatalf("the episode (%+v):\n%s", ep, data)
	}
	index, _ := os.ReadFile(e.IndexPath(p.Key))
	if !strings.Contains(string(index), "· in opencode ·") {
		t.Fatalf("the menu:\n%s", index)
	}
	if hits, err := search.Search(context.Background(), e, "lantern-moth cache", search.Options{Scope: search.ScopeOf(&p, false), Limit: 3}); err != nil || len(hits) == 0 {
		t.Fatalf("search: %v %v", hits, err)
	}
	// The session goes on: a later import brings its episode up to date.
	put("message/ses_7Hq2/msg_003.json", map[string]any{"id": "msg_003", "role": "user", "time": map[string]any{"created": 1763715700000}})
	put("part/msg_003/prt_001.json", map[string]any{"id": "prt_001", "type": "text", "text": "now also purge the CDN (gull-anchor)"})
	if rep, err := session.Import(context.Background(), e, session.ImportOptions{}); err != nil || rep.Refreshed != 1 {
		t.Fatalf("a later import: %+v %v", rep, err)
	}
	if data, ep := read(); ep.Turns != 2 || !strings.Contains(data, "gull-anchor") {
		t.Fatalf("the episode after the session went on (%d turns):\n%s", ep.Turns, data)
	}
}
