package importer_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/importer"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/store"
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
	rep, err := importer.Import(context.Background(), e, importer.ImportOptions{})
	if err != nil || rep.Imported != 1 || len(rep.Failed) > 0 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "could not be read") {
		t.Fatalf("the store that is no database is not said: %v", rep.Notes)
	}
	read := func() (string, episode.Record) {
		t.Helper()
		return onlyEpisode(t, e, p.Key)
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
	if rep, err := importer.Import(context.Background(), e, importer.ImportOptions{}); err != nil || rep.Refreshed != 1 {
		t.Fatalf("a later import: %+v %v", rep, err)
	}
	if data, ep := read(); ep.Turns != 2 || !strings.Contains(data, "gull-anchor") {
		t.Fatalf("the episode after the session went on (%d turns):\n%s", ep.Turns, data)
	}
}

// TestImportOpencodeFirstLayout: opencode's first layout (before 1.0, one
// storage per project: project/<p>/storage/session/info, .../message/<s>,
// .../part/<s>/<m>), whose session file names no folder (its assistant
// messages do, path.cwd), is read: the session becomes an episode of that
// folder's project; one opencode copied into its later storage is read
// there only; one naming no folder anywhere is counted as left out.
func TestImportOpencodeFirstLayout(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	put := func(rel string, v any) {
		data, _ := json.Marshal(v)
		storetest.Mkfile(t, filepath.Join(e.OpencodeDir, rel), string(data))
	}
	old := "project/-home-dev-shop/storage/session/"
	put(old+"info/ses_old1.json", map[string]any{"id": "ses_old1", "title": "flaky checkout", "time": map[string]any{"created": 1750000000000}})
	put(old+"message/ses_old1/msg_001.json", map[string]any{"id": "msg_001", "role": "user", "time": map[string]any{"created": 1750000001000}})
	put(old+"part/ses_old1/msg_001/prt_001.json", map[string]any{"id": "prt_001", "type": "text", "text": "the checkout test flakes on slow CI runners (otter-quill); make it wait for the cart"})
	put(old+"message/ses_old1/msg_002.json", map[string]any{"id": "msg_002", "role": "assistant", "path": map[string]any{"cwd": repo, "root": repo}, "time": map[string]any{"created": 1750000005000}})
	put(old+"part/ses_old1/msg_002/prt_001.json", map[string]any{"id": "prt_001", "type": "tool", "tool": "bash", "callID": "c1",
		"state": map[string]any{"status": "completed", "input": map[string]any{"command": "npm test -- checkout"}, "output": "ok"}})
	// Copied by opencode into its later storage: read there.
	put(old+"info/ses_moved.json", map[string]any{"id": "ses_moved", "title": "moved"})
	put("storage/session/4f1e2d/ses_moved.json", map[string]any{"id": "ses_moved", "directory": repo, "title": "moved"})
	put("storage/message/ses_moved/msg_001.json", map[string]any{"id": "msg_001", "role": "user"})
	put("storage/part/msg_001/prt_001.json", map[string]any{"id": "prt_001", "type": "text", "text": "moved session (wren-kettle)"})
	// No folder anywhere.
	put(old+"info/ses_nowhere.json", map[string]any{"id": "ses_nowhere"})
	put(old+"message/ses_nowhere/msg_001.json", map[string]any{"id": "msg_001", "role": "user"})
	put(old+"part/ses_nowhere/msg_001/prt_001.json", map[string]any{"id": "prt_001", "type": "text", "text": "hello"})

	rep, err := importer.Import(context.Background(), e, importer.ImportOptions{})
	if err != nil || rep.Imported != 2 || rep.Found != 3 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	if len(rep.Dropped) != 1 || rep.Dropped[0].Agent != "opencode" || rep.Dropped[0].Cause != importer.DropNoFolder || rep.Dropped[0].N != 1 {
		t.Errorf("the session with no folder is not counted as left out: %+v", rep.Dropped)
	}
	eps, _ := filepath.Glob(filepath.Join(e.ProjectDir(p.Key), "episodes", "*.json"))
	all := ""
	for _, ep := range eps {
		data, _ := os.ReadFile(ep)
		all += string(data)
	}
	if len(eps) != 2 || !strings.Contains(all, "otter-quill") || !strings.Contains(all, "npm test -- checkout") || !strings.Contains(all, "wren-kettle") {
		t.Fatalf("episodes of the project (%d):\n%s", len(eps), all)
	}
}

// sqlite runs the real SQLite's command on the database at db.
func sqlite(t *testing.T, db, script string) {
	t.Helper()
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Fatal("sqlite3 not found: this test writes opencode's store with the real SQLite (install it: bash scripts/install-test-tools.sh sqlite3)")
	}
	cmd := exec.Command("sqlite3", "-bail", db)
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
}

// opencodeSchema is opencode's store's schema (its drizzle migrations).
const opencodeSchema = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE session (
	id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text, slug text NOT NULL,
	directory text NOT NULL, path text, title text NOT NULL, version text NOT NULL, share_url text,
	summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text,
	cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
	revert text, permission text, agent text, model text,
	time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer,
	FOREIGN KEY (project_id) REFERENCES project(id) ON DELETE cascade);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL,
	FOREIGN KEY (session_id) REFERENCES session(id) ON DELETE cascade);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL,
	FOREIGN KEY (message_id) REFERENCES message(id) ON DELETE cascade);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
`

// TestImportOpencodeStore: opencode's SQLite store, as the real SQLite
// writes it in WAL mode (rows still in the log, not checkpointed), is
// read: a session there becomes an episode of its folder's project,
// marked as opencode's, found by search, its failed shell call kept; a
// subagent's session is left out; a session also left in the JSON storage
// (opencode moved it) is read from the store, and one only there still
// from the JSON; the session going on brings the episode up to date; a
// store that is no database is said, and the rest imported.
func TestImportOpencodeStore(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "ledger")
	work := filepath.Join(t.TempDir(), "opencode.db")
	dst := filepath.Join(e.OpencodeDir, "opencode.db")
	if err := os.MkdirAll(e.OpencodeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	copyOut := ".shell cp " + q(work) + " " + q(dst) + " && cp " + q(work+"-wal") + " " + q(dst+"-wal") + "\n"
	sqlite(t, work, opencodeSchema+`
PRAGMA journal_mode=WAL;
PRAGMA wal_autocheckpoint=0;
INSERT INTO project VALUES ('prj_1', `+q(repo)+`, 'git', 'ledger', 1763715600000, 1763715600000);
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES
 ('ses_db1', 'prj_1', NULL, 'brave-otter', `+q(repo)+`, 'rounding', '1.2.0', 1763715600000, 1763715609000),
 ('ses_sub', 'prj_1', 'ses_db1', 'quiet-fox', `+q(repo)+`, 'a subagent', '1.2.0', 1763715602000, 1763715603000);
INSERT INTO message VALUES
 ('msg_001', 'ses_db1', 1763715601000, 1763715601000, '{"role":"user","time":{"created":1763715601000}}'),
 ('msg_s01', 'ses_sub', 1763715602000, 1763715602000, '{"role":"user","time":{"created":1763715602000}}');
INSERT INTO part VALUES
 ('prt_001', 'msg_001', 'ses_db1', 1763715601000, 1763715601000, '{"type":"text","text":"the ledger rounding is off by a cent (amber-kite); fix it"}'),
 ('prt_s01', 'msg_s01', 'ses_sub', 1763715602000, 1763715602000, '{"type":"text","text":"SUBAGENT-TASK"}');
PRAGMA wal_checkpoint(TRUNCATE);
INSERT INTO message VALUES ('msg_002', 'ses_db1', 1763715605000, 1763715609000, '{"role":"assistant","modelID":"some-model","time":{"created":1763715605000}}');
INSERT INTO part VALUES
 ('prt_002', 'msg_002', 'ses_db1', 1763715605000, 1763715605000, '{"type":"text","text":"Running the ledger tests."}'),
 ('prt_003', 'msg_002', 'ses_db1', 1763715606000, 1763715609000, '{"type":"tool","tool":"bash","callID":"c1","state":{"status":"error","input":{"command":"go test ./ledger/"},"error":"FAIL: TestRoundHalfEven"}}');
`+copyOut)
	if fi, err := os.Stat(dst + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("the store has no log to read: %v", err)
	}
	// The JSON storage: the same session's stale copy, and an older one.
	st := filepath.Join(e.OpencodeDir, "storage")
	put := func(rel string, v any) {
		data, _ := json.Marshal(v)
		storetest.Mkfile(t, filepath.Join(st, rel), string(data))
	}
	put("session/4f1e2d/ses_db1.json", map[string]any{"id": "ses_db1", "directory": repo})
	put("message/ses_db1/msg_001.json", map[string]any{"id": "msg_001", "role": "user", "time": map[string]any{"created": 1763715601000}})
	put("part/msg_001/prt_001.json", map[string]any{"id": "prt_001", "type": "text", "text": "STALE-JSON-COPY"})
	put("session/4f1e2d/ses_old.json", map[string]any{"id": "ses_old", "directory": repo})
	put("message/ses_old/msg_009.json", map[string]any{"id": "msg_009", "role": "user", "time": map[string]any{"created": 1763615601000}})
	put("part/msg_009/prt_001.json", map[string]any{"id": "prt_001", "type": "text", "text": "an older question (heron-lamp)"})

	rep, err := importer.Import(context.Background(), e, importer.ImportOptions{})
	if err != nil || rep.Imported != 2 || len(rep.Failed) > 0 || len(rep.Notes) > 0 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	episodes := func() map[string]string {
		t.Helper()
		out := map[string]string{}
		ents, _ := os.ReadDir(e.EpisodesDir(p.Key))
		for _, ent := range ents {
			data, _ := os.ReadFile(filepath.Join(e.EpisodesDir(p.Key), ent.Name()))
			ep, err := episode.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if ep.Agent != "opencode" {
				t.Fatalf("%s is not marked as opencode's: %q", ent.Name(), ep.Agent)
			}
			out[ep.SessionID] = string(data)
		}
		return out
	}
	eps := episodes()
	db1 := eps["ses_db1"]
	if len(eps) != 2 || !strings.Contains(db1, "amber-kite") || !strings.Contains(db1, "go test ./ledger/") || !strings.Contains(db1, "FAIL: TestRoundHalfEven") ||
		strings.Contains(db1, "STALE-JSON-COPY") || !strings.Contains(eps["ses_old"], "heron-lamp") {
		t.Fatalf("the episodes: %v", eps)
	}
	for _, data := range eps {
		if strings.Contains(data, "SUBAGENT-TASK") {
			t.Fatal("a subagent's session was imported")
		}
	}
	if hits, err := search.Search(context.Background(), e, "amber-kite rounding", search.Options{Scope: search.ScopeOf(&p, false), Limit: 3}); err != nil || len(hits) == 0 {
		t.Fatalf("search: %v %v", hits, err)
	}
	// The session goes on.
	sqlite(t, work, `
INSERT INTO message VALUES ('msg_003', 'ses_db1', 1763715700000, 1763715700000, '{"role":"user","time":{"created":1763715700000}}');
INSERT INTO part VALUES ('prt_004', 'msg_003', 'ses_db1', 1763715700000, 1763715700000, '{"type":"text","text":"and round the tax the same way (cedar-finch)"}');
UPDATE session SET time_updated = 1763715700000 WHERE id = 'ses_db1';
`+copyOut)
	if rep, err := importer.Import(context.Background(), e, importer.ImportOptions{}); err != nil || rep.Refreshed != 1 || len(rep.Failed) > 0 {
		t.Fatalf("a later import: %+v %v", rep, err)
	}
	if db1 := episodes()["ses_db1"]; !strings.Contains(db1, "cedar-finch") || !strings.Contains(db1, "amber-kite") {
		t.Fatalf("the episode after the session went on:\n%s", db1)
	}
	// Unchanged, a third import reads nothing again.
	if rep, err := importer.Import(context.Background(), e, importer.ImportOptions{}); err != nil || rep.Refreshed != 0 || rep.Imported != 0 {
		t.Fatalf("an import with nothing new: %+v %v", rep, err)
	}
	// A release channel's own store, beside it, is read too.
	sqlite(t, filepath.Join(e.OpencodeDir, "opencode-dev.db"), opencodeSchema+`
INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES
 ('ses_dev1', 'prj_1', 's', `+q(repo)+`, 't', '1.3.0-dev', 1763815600000, 1763815600000);
INSERT INTO message VALUES ('msg_d01', 'ses_dev1', 1763815600000, 1763815600000, '{"role":"user","time":{"created":1763815600000}}');
INSERT INTO part VALUES ('prt_d01', 'msg_d01', 'ses_dev1', 1763815600000, 1763815600000, '{"type":"text","text":"the dev build asks about the ledger (willow-gate)"}');
`)
	if rep, err := importer.Import(context.Background(), e, importer.ImportOptions{}); err != nil || rep.Imported != 1 || len(rep.Failed) > 0 {
		t.Fatalf("an import with a channel's store: %+v %v", rep, err)
	}
	if !strings.Contains(episodes()["ses_dev1"], "willow-gate") {
		t.Fatal("the channel's store was not read")
	}
	// A store that is no database: said, the JSON storage still read.
	storetest.Mkfile(t, dst, "SQLite format 3\x00"+strings.Repeat("\xff", 200))
	if rep, err := importer.Import(context.Background(), e, importer.ImportOptions{}); err != nil || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "could not be read") {
		t.Fatalf("a damaged store: %+v %v", rep, err)
	}
}

// TestEndOpencodeTurnTakesOnlySessionIDs: the id the plugin passes names a
// file of the store, so anything but "ses_" and letters or digits is
// refused before it is used.
func TestEndOpencodeTurnTakesOnlySessionIDs(t *testing.T) {
	e := store.Env{Home: t.TempDir(), Store: t.TempDir(), OpencodeDir: t.TempDir()}
	for _, sid := range []string{"", "ses_", "ses_../../x", "ses_a/b", `ses_a\b`, "ses_a b", "abc", "ses_" + strings.Repeat("a", 65), "ses_é"} {
		if _, err := importer.EndOpencodeTurn(context.Background(), e, sid, proc.Info{}); err == nil || !strings.Contains(err.Error(), "not an opencode session id") {
			t.Errorf("%q: %v, want refused", sid, err)
		}
	}
	if _, err := importer.EndOpencodeTurn(context.Background(), e, "ses_abc123", proc.Info{}); err == nil || !strings.Contains(err.Error(), "no opencode session") {
		t.Errorf("a session the store lacks: %v", err)
	}
}
