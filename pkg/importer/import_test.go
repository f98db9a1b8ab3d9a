package importer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
	"github.com/ccmem/ccmem/pkg/transcript/transcripttest"
)

// importWorld is a HOME whose Claude Code kept transcripts before ccmem:
// a repository with sessions (one with a subagent, one spawning a
// headless claude -p, observer runs), a plain folder with sessions (one
// whose last line is torn), an empty session and a running one.
type importWorld struct {
	e          store.Env
	shop, note string
	now        time.Time
}

func newImportWorld(t *testing.T) *importWorld {
	t.Helper()
	e := storetest.Env(t)
	base := storetest.RealDir(t)
	w := &importWorld{e: e, shop: filepath.Join(base, "shop"), note: filepath.Join(base, "notes"), now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	e.Now = func() time.Time { return w.now }
	w.e = e
	storetest.Mkfile(t, filepath.Join(w.shop, ".git", "HEAD"), "ref: refs/heads/main\n")
	storetest.Mkfile(t, filepath.Join(w.note, "todo.md"), "x")
	silo := func(root string) string { return filepath.Join(e.SilosDir(), store.Slug(root)) }
	write := func(root, sid string, x *transcripttest.Tx, mtime time.Time) string {
		path := filepath.Join(silo(root), sid+".jsonl")
		storetest.Mkfile(t, path, string(x.Text()))
		os.Chtimes(path, mtime, mtime)
		return path
	}
	old := w.now.Add(-48 * time.Hour)
	at := func(x *transcripttest.Tx, d time.Duration) *transcripttest.Tx {
		x.T = w.now.Add(-72*time.Hour + d)
		return x
	}

	s1 := at(transcripttest.New("shop-1", w.shop), 0).Prompt("add retries to the payment client").
		Call("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"a","new_string":"b"}`, filepath.Join(w.shop, "pay.go")), "updated", false).
		Call("Agent", `{"prompt":"write the tests"}`, "tests written", false).
		Call("Bash", `{"command":"claude -p 'summarise the diff for the changelog'"}`, "summary", false).
		Say("Retries in, tests written.")
	write(w.shop, "shop-1", s1, old)
	// The subagent's own transcript, beside the session's.
	sub := at(transcripttest.New("shop-1", w.shop), time.Minute)
	sub.Call("Write", fmt.Sprintf(`{"file_path":%q,"content":"x"}`, filepath.Join(w.shop, "pay_test.go")), "created", false)
	for i := range sub.Lines {
		sub.Lines[i] = strings.Replace(sub.Lines[i], `"isSidechain":false`, `"isSidechain":true`, 1)
	}
	storetest.Mkfile(t, filepath.Join(silo(w.shop), "shop-1", "subagents", "agent-a1.jsonl"), string(sub.Text()))
	// The claude -p it started, a moment later.
	spawned := at(transcripttest.New("shop-2", w.shop), 2*time.Minute)
	spawned.Entrypoint = "sdk-cli"
	write(w.shop, "shop-2", spawned.Prompt("summarise the diff for the changelog").Say("Changelog: retries."), old)
	// Three runs of an observer: the same opening prompt.
	for i := range 3 {
		o := at(transcripttest.New(fmt.Sprintf("obs-%d", i), w.shop), time.Duration(10+i)*time.Hour)
		o.Entrypoint = "sdk-ts"
		write(w.shop, fmt.Sprintf("obs-%d", i), o.Prompt(fmt.Sprintf("You are a memory observer. Record observations for run %d.", i)).Say(`{"type":"change"}`), old)
	}
	// A person's own claude -p, not started by anyone's Bash call.
	own := at(transcripttest.New("shop-3", w.shop), 30*time.Hour)
	own.Entrypoint = "sdk-cli"
	write(w.shop, "shop-3", own.Prompt("explain the retry budget").Say("It caps retries at 10% of calls."), old)
	// The plain folder: a session whose last line is torn, one with no turn.
	n1 := at(transcripttest.New("note-1", w.note), 5*time.Hour).Prompt("draft the newsletter about the autumn sale").Say("Drafted.")
	path := write(w.note, "note-1", n1, old)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"user","message":{"role":"user","content":"and shorten it`)
	f.Close()
	os.Chtimes(path, old, old)
	write(w.note, "note-2", at(transcripttest.New("note-2", w.note), 6*time.Hour).Raw(`{"type":"queue-operation","operation":"enqueue"}`), old)
	// A session written to a minute ago that no hook records (it began
	// before ccmem was installed, and may still be going).
	write(w.note, "note-3", at(transcripttest.New("note-3", w.note), 7*time.Hour).Prompt("running now, summarise the sale results").Say("ok"), w.now.Add(-time.Minute))
	return w
}

// tree hashes every file under the store, by path.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(p, string(filepath.Separator)+"search"+string(filepath.Separator)) && !strings.HasSuffix(p, ".lock") {
			data, _ := os.ReadFile(p)
			sum := sha256.Sum256(data)
			out[p] = hex.EncodeToString(sum[:8])
		}
		return nil
	})
	return out
}

// TestImport: every finished conversation becomes one episode (subagents'
// work in it, a torn last line left out), automated runs are marked, a
// second run changes nothing, and a run stopped midway is finished by the
// next.
func TestImport(t *testing.T) {
	w := newImportWorld(t)
	rep, err := Import(context.Background(), w.e, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found != 9 || rep.Imported != 8 || rep.Recent != 1 || rep.Empty != 1 || rep.Automated != 4 || len(rep.Projects) != 2 {
		t.Fatalf("report %+v", rep)
	}
	shop := store.ProjectAt(w.e, w.shop)
	s1, err := session.FindSession(w.e, shop.Key, "shop-1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s1.Record.FilesChanged, ",") != "pay.go,pay_test.go" || s1.Record.Turns != 1 || s1.Record.Automated {
		t.Fatalf("shop-1: %+v", s1.Record)
	}
	for sid, want := range map[string]bool{"shop-2": true, "obs-0": true, "obs-1": true, "obs-2": true, "shop-3": false} {
		f, err := session.FindSession(w.e, shop.Key, sid)
		if err != nil || f.Record.Automated != want {
			t.Errorf("%s automated = %v (%s), want %v (%v)", sid, f.Record.Automated, f.Record.AutomatedBy, want, err)
		}
	}
	notes := store.ProjectAt(w.e, w.note)
	n1, err := session.FindSession(w.e, notes.Key, "note-1")
	if err != nil || n1.Record.Turns != 1 {
		t.Fatalf("note-1 (torn last line): %+v, %v", n1.Record, err)
	}
	index, _ := os.ReadFile(w.e.IndexPath(shop.Key))
	if strings.Count(string(index), "\n") != 6 || strings.Count(string(index), "· automated ·") != 4 {
		t.Fatalf("INDEX.md:\n%s", index)
	}

	before := tree(t, w.e.Store)
	again, err := Import(context.Background(), w.e, ImportOptions{})
	if err != nil || again.Imported != 0 || again.Known != 8 || again.Automated != 0 {
		t.Fatalf("second run: %+v, %v", again, err)
	}
	after := tree(t, w.e.Store)
	if len(before) != len(after) {
		t.Fatalf("the second run changed the store: %d files, then %d", len(before), len(after))
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("the second run changed %s", p)
		}
	}
}

// TestImportFollowsASessionThatGoesOn: a session imported while it was
// recent (it began before install, no hook records it) and that went on
// afterwards is brought up to date by the next import; one whose hooks
// keep a live record is left to them.
func TestImportFollowsASessionThatGoesOn(t *testing.T) {
	w := newImportWorld(t)
	if _, err := Import(context.Background(), w.e, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	notes := store.ProjectAt(w.e, w.note)
	f, err := session.FindSession(w.e, notes.Key, "note-3")
	if err != nil || f.Record.Turns != 1 {
		t.Fatalf("note-3 after the first import: %+v %v", f.Record, err)
	}
	tr0 := filepath.Join(w.e.SilosDir(), store.Slug(w.note), "note-3.jsonl")
	if got := session.Followed(w.e); len(got) != 1 || got[0] != tr0 {
		t.Fatalf("followed after the first import: %v", got)
	}
	os.Chtimes(filepath.Join(w.e.Store, "import.json"), w.now, w.now) // written at the test's clock
	if session.FollowDue(w.e) {
		t.Fatal("the catch-up is due right after the import")
	}
	w.now = w.now.Add(session.FollowEvery)
	if !session.FollowDue(w.e) {
		t.Fatal("the catch-up is not due after FollowEvery")
	}
	// The session went on: a second turn.
	tr := filepath.Join(w.e.SilosDir(), store.Slug(w.note), "note-3.jsonl")
	x := transcripttest.New("note-3", w.note)
	x.T = w.now.Add(-30 * time.Second)
	fh, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	fh.Write(x.Prompt("and send the summary to the team channel").Say("Sent.").Text())
	fh.Close()
	os.Chtimes(tr, w.now, w.now)
	rep, err := Import(context.Background(), w.e, ImportOptions{Follow: true})
	if err != nil || rep.Refreshed != 1 || rep.Imported != 0 || rep.Found != 1 {
		t.Fatalf("the catch-up: %+v %v", rep, err)
	}
	f, err = session.FindSession(w.e, notes.Key, "note-3")
	if err != nil || f.Record.Turns != 2 {
		t.Fatalf("note-3 was not brought up to date: %+v %v", f.Record, err)
	}
	index, _ := os.ReadFile(w.e.IndexPath(notes.Key))
	if strings.Count(string(index), "note-3") != 1 || !strings.Contains(string(index), "2 turns") {
		t.Fatalf("INDEX.md:\n%s", index)
	}
	// A third import, nothing new: nothing changes.
	if rep, err := Import(context.Background(), w.e, ImportOptions{}); err != nil || rep.Refreshed != 0 {
		t.Fatalf("third import: %+v %v", rep, err)
	}
	// Quiet for half an hour: no longer followed.
	w.now = w.now.Add(time.Hour)
	if _, err := Import(context.Background(), w.e, ImportOptions{Follow: true}); err != nil {
		t.Fatal(err)
	}
	if got := session.Followed(w.e); len(got) != 0 || session.FollowDue(w.e) {
		t.Fatalf("still followed after it went quiet: %v", got)
	}
}

// TestImportResumes: an import stopped after two sessions (a limit, a
// cancel, a kill between sessions) is finished by the next run, which ends
// where one uninterrupted run would, automated runs classified too.
func TestImportResumes(t *testing.T) {
	whole := newImportWorld(t)
	if _, err := Import(context.Background(), whole.e, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	w := newImportWorld(t)
	ctx, cancel := context.WithCancel(context.Background())
	first, err := Import(ctx, w.e, ImportOptions{Progress: func(done, total int) {
		if done == 4 {
			cancel()
		}
	}})
	if err != nil || first.Imported == 0 || first.Left == 0 {
		t.Fatalf("stopped run: %+v, %v", first, err)
	}
	rest, err := Import(context.Background(), w.e, ImportOptions{})
	if err != nil || first.Imported+rest.Imported != 8 {
		t.Fatalf("the runs imported %d and %d, want 8 in all (%v)", first.Imported, rest.Imported, err)
	}
	list := func(w *importWorld) []string {
		e := w.e
		var out []string
		for _, root := range []string{w.shop, w.note} {
			key := store.ProjectAt(e, root).Key
			eps, _, _ := session.ListSessions(e, key, configDefault())
			for _, ep := range eps {
				out = append(out, fmt.Sprintf("%s %v %d", filepath.Base(ep.Path), ep.Record.Automated, ep.Record.Turns))
			}
		}
		sort.Strings(out)
		return out
	}
	got, want := list(w), list(whole)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("resumed import:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func configDefault() config.Config { return config.Default() }

// TestSpawnsMatchOneToOne: a `claude -p` call starts one session — the one
// whose prompt its command line holds, else the first to start after it —
// so a person's own claude -p a moment later is not taken for it (e2e
// TestAutomatedRunsStayOutOfTheMenu found that with the real client).
func TestSpawnsMatchOneToOne(t *testing.T) {
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	session := func(sid, ep, goal string, after time.Duration) *imported {
		c := &session.Checkpoint{Record: checkpoint.Record{SessionID: sid, ProjectRoot: "/src/shop", Entrypoint: ep, Goal: goal, StartedAt: at.Add(after).Format(time.RFC3339Nano)}}
		return &imported{c: c}
	}
	spawner := session("main", "cli", "run the observer over this session", -time.Minute)
	spawner.c.State.Spawned = []string{at.Format(time.RFC3339Nano) + "\t/usr/bin/claude -p 'observer: note the work on the ledger' --permission-mode acceptEdits"}
	person := session("person", "sdk-cli", "tidy the build scripts", 2*time.Second) // first after the call
	observer := session("observer", "sdk-cli", "observer: note the work on the ledger", 5*time.Second)
	later := session("later", "sdk-cli", "what's next?", 20*time.Second)
	all := []*imported{spawner, person, observer, later}
	got := matchSpawns(spawnsOf(all), all)
	if len(got) != 1 || got["observer"].sid != "main" {
		t.Fatalf("matched %v; want only the observer, started by main", got)
	}

	// A command line without the prompt (piped in): the first to start.
	spawner.c.State.Spawned = []string{at.Format(time.RFC3339Nano) + "\tcat prompt.txt | claude -p"}
	got = matchSpawns(spawnsOf(all), all)
	if len(got) != 1 || got["person"].sid != "main" {
		t.Fatalf("matched %v; want the first session after the call", got)
	}
	// A record from before the command line was kept: the time alone.
	spawner.c.State.Spawned = []string{at.Format(time.RFC3339Nano)}
	if got = matchSpawns(spawnsOf(all), all); len(got) != 1 {
		t.Fatalf("matched %v; want one session", got)
	}
}

// TestOlderClientsSubagentFilesAreNoSessions (issue 51, finding 6): Claude
// Code 2.0 to 2.1.1 kept each subagent's transcript beside the sessions,
// as agent-ID.jsonl, its start-up "Warmup" runs too (26 of them in one
// person's project of the development corpus). They are no session: left
// out of the menu, and said so, not as "no folder is recorded for them".
func TestOlderClientsSubagentFilesAreNoSessions(t *testing.T) {
	e := storetest.Env(t)
	root := filepath.Join(storetest.RealDir(t), "architecture")
	storetest.Mkfile(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	silo := filepath.Join(e.SilosDir(), store.Slug(root))
	old := time.Now().Add(-72 * time.Hour)
	for i := range 3 {
		path := filepath.Join(silo, fmt.Sprintf("agent-a%d.jsonl", i))
		storetest.Mkfile(t, path, fmt.Sprintf(`{"agentId":"a%d","cwd":%q,"isSidechain":true,"message":{"content":"Warmup","role":"user"},"parentUuid":null,"sessionId":"parent-%d","timestamp":"2026-01-06T00:03:12.991Z","type":"user","userType":"external","uuid":"u%d","version":"2.0.76"}`+"\n"+
			`{"agentId":"a%d","cwd":%q,"isSidechain":true,"message":{"content":[{"type":"text","text":"I'm ready to help you explore the codebase."}],"id":"m%d","model":"claude-haiku-4-5-20251001","role":"assistant","type":"message"},"parentUuid":"u%d","sessionId":"parent-%d","timestamp":"2026-01-06T00:03:20.275Z","type":"assistant","userType":"external","uuid":"v%d","version":"2.0.76"}`+"\n",
			i, root, i, i, i, root, i, i, i, i))
		os.Chtimes(path, old, old)
	}
	person := transcripttest.New("parent-0", root).Prompt("review the domain model").Say("Reviewed.")
	storetest.Mkfile(t, filepath.Join(silo, "parent-0.jsonl"), string(person.Text()))
	os.Chtimes(filepath.Join(silo, "parent-0.jsonl"), old, old)
	rep, err := Import(context.Background(), e, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 1 || len(rep.Dropped) != 1 || rep.Dropped[0].Cause != DropSidechain || rep.Dropped[0].N != 3 {
		t.Fatalf("report %+v", rep)
	}
	index, _ := os.ReadFile(e.IndexPath(store.ProjectAt(e, root).Key))
	if strings.Contains(strings.ToLower(string(index)), "warmup") || !strings.Contains(string(index), "review the domain model") {
		t.Fatalf("the menu:\n%s", index)
	}
}
