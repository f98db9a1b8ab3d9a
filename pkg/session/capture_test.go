package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// fixtureTranscript is the real 2.1.328 transcript with its project path
// moved to repo.
func fixtureTranscript(t *testing.T, repo string) []byte {
	t.Helper()
	data, err := os.ReadFile("../../testdata/claude-code-2.1.328/transcripts/97c977a4-c5ad-4502-9c0f-3964b4a04282.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(data), "/home/dev/src/shop", repo))
}

// captureWorld is a store, a repository and a transcript file.
type captureWorld struct {
	e    store.Env
	repo string
	tr   string
	p    store.Project
}

func newCaptureWorld(t *testing.T) *captureWorld {
	t.Helper()
	e := storetest.Env(t)
	repo := filepath.Join(storetest.RealDir(t), "shop")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	p, err := store.ResolveProject(e, repo)
	if err != nil {
		t.Fatal(err)
	}
	return &captureWorld{e: e, repo: repo, tr: filepath.Join(e.ClaudeDir, "projects", p.Key, "s1.jsonl"), p: p}
}

func (w *captureWorld) capture(t *testing.T, sid string) *Checkpoint {
	t.Helper()
	c, err := Capture(context.Background(), w.e, CaptureRequest{Turn: Turn{SessionID: sid, TranscriptPath: w.tr, Cwd: w.repo}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCaptureRealTranscript(t *testing.T) {
	w := newCaptureWorld(t)
	storetest.Append(t, w.tr, fixtureTranscript(t, w.repo))
	c := w.capture(t, "97c977a4")
	want := map[string]any{
		"Goal": "SCRIPT:write the plan", "Turns": 2, "ToolErrors": 1, "Compactions": 1,
		"GitBranch": "master", "Model": "claude-opus-5-5", "ClientVersion": "2.1.328",
		"Outcome": "Hello from the scripted model.", "StartedAt": "2026-11-21T20:01:51.129Z",
		"ProjectRoot": w.repo,
	}
	v := reflect.ValueOf(*c)
	for field, val := range want {
		if got := v.FieldByName(field).Interface(); !reflect.DeepEqual(got, val) {
			t.Errorf("%s = %#v, want %#v", field, got, val)
		}
	}
	if !reflect.DeepEqual(c.Tools, map[string]int{"Write": 1, "Edit": 1, "Bash": 1}) {
		t.Errorf("tools = %v", c.Tools)
	}
	if !reflect.DeepEqual(c.FilesChanged, []string{"notes/plan.md"}) {
		t.Errorf("files = %v", c.FilesChanged)
	}
	if c.Friction.Signals["exit_error"] != 1 || c.Friction.Signals["no_resolution"] != 1 || c.Friction.Class != "ROUGH" {
		t.Errorf("friction = %+v", c.Friction)
	}
	fi, _ := os.Stat(w.tr)
	if c.Transcript.Offset != fi.Size() || c.Transcript.Inode == 0 {
		t.Errorf("transcript position %+v, size %d", c.Transcript, fi.Size())
	}
	cp := w.e.CheckpointPath(w.p.Key, "97c977a4")
	if st, err := os.Stat(cp); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("checkpoint file: %v %v", st, err)
	}
}

// Reading the transcript in pieces, cut anywhere (mid-line included), gives
// exactly the record of reading it whole.
func TestCaptureIncrementalEqualsWhole(t *testing.T) {
	whole := newCaptureWorld(t)
	data := fixtureTranscript(t, whole.repo)
	storetest.Append(t, whole.tr, data)
	want := whole.capture(t, "s1")

	for _, step := range []int{1 << 10, 7919, 50000} {
		w := newCaptureWorld(t)
		data := fixtureTranscript(t, w.repo)
		var got *Checkpoint
		for off := 0; off < len(data); off += step {
			storetest.Append(t, w.tr, data[off:min(off+step, len(data))])
			got = w.capture(t, "s1")
		}
		for _, c := range []*Checkpoint{want, got} {
			c.UpdatedAt, c.Transcript, c.ProjectRoot = "", checkpoint.TranscriptPos{}, ""
		}
		g, _ := json.Marshal(got)
		x, _ := json.Marshal(want)
		if string(g) != string(x) {
			t.Fatalf("step %d: incremental record differs\n got %s\nwant %s", step, g, x)
		}
	}
}

func TestCaptureLeavesIncompleteLineForLater(t *testing.T) {
	w := newCaptureWorld(t)
	line := `{"type":"user","message":{"role":"user","content":"first prompt"},"timestamp":"2026-11-21T10:00:00Z"}` + "\n"
	half := `{"type":"user","message":{"role":"user","content":"second`
	storetest.Append(t, w.tr, []byte(line+half))
	c := w.capture(t, "s1")
	if c.Turns != 1 || c.Transcript.Offset != int64(len(line)) {
		t.Fatalf("turns %d offset %d; want 1 and %d", c.Turns, c.Transcript.Offset, len(line))
	}
	storetest.Append(t, w.tr, []byte(` prompt"},"timestamp":"2026-11-21T10:01:00Z"}`+"\n"))
	if c = w.capture(t, "s1"); c.Turns != 2 || c.Goal != "first prompt" {
		t.Fatalf("after completing the line: turns %d goal %q", c.Turns, c.Goal)
	}
}

func TestCaptureRestartsOnShorterReplacedOrRewrittenFile(t *testing.T) {
	w := newCaptureWorld(t)
	prompt := func(s string) string {
		return `{"type":"user","message":{"role":"user","content":"` + s + `"},"timestamp":"2026-11-21T10:00:00Z"}` + "\n"
	}
	storetest.Append(t, w.tr, []byte(prompt("one")+prompt("two")+prompt("three")))
	if c := w.capture(t, "s1"); c.Turns != 3 {
		t.Fatalf("turns %d", c.Turns)
	}
	// Shorter: read again from 0.
	if err := os.WriteFile(w.tr, []byte(prompt("new goal")), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := w.capture(t, "s1"); c.Turns != 1 || c.Goal != "new goal" {
		t.Fatalf("after truncation: turns %d goal %q", c.Turns, c.Goal)
	}
	// Replaced by a longer file (another inode): read again from 0.
	tmp := w.tr + ".new"
	if err := os.WriteFile(tmp, []byte(prompt("replaced")+prompt("x")+prompt("y")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, w.tr); err != nil {
		t.Fatal(err)
	}
	if c := w.capture(t, "s1"); c.Turns != 3 || c.Goal != "replaced" {
		t.Fatalf("after replacement: turns %d goal %q", c.Turns, c.Goal)
	}
	// Rewritten in place (the same file, no shorter), its start changed:
	// read again from 0, not on from the old offset.
	f, err := os.OpenFile(w.tr, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(prompt("rewrote")+prompt("a")+prompt("b")+prompt("c")), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if c := w.capture(t, "s1"); c.Turns != 4 || c.Goal != "rewrote" {
		t.Fatalf("after a rewrite in place: turns %d goal %q", c.Turns, c.Goal)
	}
}

func TestCaptureGoalSkipsNonPrompts(t *testing.T) {
	w := newCaptureWorld(t)
	lines := []string{
		`{"type":"user","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>Caveat</local-command-caveat>"}}`,
		`{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>\n<command-args></command-args>"}}`,
		`{"type":"user","message":{"role":"user","content":"<local-command-stdout>Compacted</local-command-stdout>"}}`,
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation. Summary."}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>\nreminder\n</system-reminder>"}]}}`,
		`{"type":"user","isSidechain":true,"message":{"role":"user","content":"a subagent's task"}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"add retry to the payment client"}]}}`,
	}
	storetest.Append(t, w.tr, []byte(strings.Join(lines, "\n")+"\n"))
	c := w.capture(t, "s1")
	if c.Goal != "add retry to the payment client" || c.Turns != 1 {
		t.Fatalf("goal %q turns %d", c.Goal, c.Turns)
	}
}

func TestCaptureRedactsBeforeDisk(t *testing.T) {
	w := newCaptureWorld(t)
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"deploy with password=hunter22 and key AKIAIOSFODNN7EXAMPLE"}}`,
		`{"type":"assistant","message":{"id":"m1","model":"m","content":[{"type":"text","text":"used postgres://app:Sup3rS3cret@db/shop"}]}}`,
	}
	storetest.Append(t, w.tr, []byte(strings.Join(lines, "\n")+"\n"))
	c := w.capture(t, "s1")
	data, err := os.ReadFile(w.e.CheckpointPath(w.p.Key, "s1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter22", "AKIAIOSFODNN7EXAMPLE", "Sup3rS3cret"} {
		if strings.Contains(string(data), secret) {
			t.Fatalf("%s reached disk:\n%s", secret, data)
		}
	}
	// Each field that held a secret counts it: the goal (2), the outcome
	// (1), and the digest's prompt (2) and answer (1).
	if c.Redactions != 6 {
		t.Fatalf("redactions = %d, want 6", c.Redactions)
	}
}

func TestCaptureFilesOnlyOnSuccess(t *testing.T) {
	w := newCaptureWorld(t)
	tool := func(id, name, path string) string {
		return fmt.Sprintf(`{"type":"assistant","message":{"id":"%s","content":[{"type":"tool_use","id":"%s","name":"%s","input":{"file_path":"%s"}}]}}`, id, id, name, path)
	}
	result := func(id string, isErr bool) string {
		return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"%s","is_error":%v,"content":"x"}]}}`, id, isErr)
	}
	lines := []string{
		tool("a", "Write", w.repo+"/b.go"), result("a", false),
		tool("b", "Edit", w.repo+"/a.go"), result("b", false),
		tool("c", "Edit", w.repo+"/failed.go"), result("c", true),
		tool("d", "Read", w.repo+"/read.go"), result("d", false),
		tool("e", "MultiEdit", "/etc/outside.conf"), result("e", false),
		tool("f", "Write", w.repo+"/b.go"), result("f", false),
	}
	storetest.Append(t, w.tr, []byte(strings.Join(lines, "\n")+"\n"))
	c := w.capture(t, "s1")
	if want := []string{"/etc/outside.conf", "a.go", "b.go"}; !reflect.DeepEqual(c.FilesChanged, want) {
		t.Fatalf("files = %v, want %v", c.FilesChanged, want)
	}
	if c.ToolErrors != 1 || c.Tools["Write"] != 2 || c.Tools["Read"] != 1 {
		t.Fatalf("tools %v errors %d", c.Tools, c.ToolErrors)
	}
}

func TestPreCompactCountsOnce(t *testing.T) {
	w := newCaptureWorld(t)
	storetest.Append(t, w.tr, []byte(`{"type":"user","message":{"role":"user","content":"go"}}`+"\n"))
	c, err := Capture(context.Background(), w.e, CaptureRequest{Turn: Turn{SessionID: "s1", TranscriptPath: w.tr, Cwd: w.repo, PreCompact: true, Trigger: "manual"}})
	if err != nil || c.Compactions != 1 {
		t.Fatalf("after PreCompact: %d %v", c.Compactions, err)
	}
	// The boundary line of the same compaction does not count it twice.
	storetest.Append(t, w.tr, []byte(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual"}}`+"\n"))
	if c = w.capture(t, "s1"); c.Compactions != 1 {
		t.Fatalf("after the boundary: %d", c.Compactions)
	}
}

func TestCaptureRejectsUnsafeSessionIDs(t *testing.T) {
	w := newCaptureWorld(t)
	for _, sid := range []string{"", "../../etc", "a/b", ".hidden", "x\x00y"} {
		if _, err := Capture(context.Background(), w.e, CaptureRequest{Turn: Turn{SessionID: sid, TranscriptPath: w.tr, Cwd: w.repo}}); err == nil {
			t.Errorf("session id %q accepted", sid)
		}
	}
}

// A deadline that has passed stops reading at a line boundary and saves
// progress; the next run goes on from there.
func TestCaptureResumesAfterDeadline(t *testing.T) {
	w := newCaptureWorld(t)
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, `{"type":"user","message":{"role":"user","content":"prompt %d"}}`+"\n", i)
	}
	storetest.Append(t, w.tr, []byte(b.String()))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, err := Capture(ctx, w.e, CaptureRequest{Turn: Turn{SessionID: "s1", TranscriptPath: w.tr, Cwd: w.repo}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Turns == 0 || c.Turns >= 3000 {
		t.Fatalf("a cancelled capture read %d turns; want some, not all", c.Turns)
	}
	if c = w.capture(t, "s1"); c.Turns != 3000 {
		t.Fatalf("resumed capture: %d turns", c.Turns)
	}
}

func TestArchiveOrphans(t *testing.T) {
	w := newCaptureWorld(t)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	w.e.Now = func() time.Time { return now }
	cfg := config.Default()
	prompt := func(s, ts string) string {
		return `{"type":"user","message":{"role":"user","content":"` + s + `"},"timestamp":"` + ts + `"}` + "\n"
	}
	write := func(sid string, p proc.Info, content string) string {
		tr := filepath.Join(filepath.Dir(w.tr), sid+".jsonl")
		storetest.Append(t, tr, []byte(content))
		if _, err := Capture(context.Background(), w.e, CaptureRequest{Turn: Turn{SessionID: sid, TranscriptPath: tr, Cwd: w.repo, Process: p}}); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	dead := proc.Info{PID: 1 << 22} // above pid_max: no such process
	self := proc.Of(os.Getpid())
	write("dead", dead, prompt("dead session goal", "2026-11-21T10:00:00Z"))
	write("live", self, prompt("live session", "2026-11-21T10:05:00Z"))
	write("current", dead, prompt("the starting session", "2026-11-21T10:10:00Z"))
	write("empty", dead, "")
	staleTr := write("unknown-stale", proc.Info{}, prompt("no pid, idle", "2026-11-21T09:00:00Z"))
	freshTr := write("unknown-fresh", proc.Info{}, prompt("no pid, busy", "2026-11-21T11:59:00Z"))
	old := now.Add(-time.Hour)
	for _, p := range []string{staleTr, w.e.CheckpointPath(w.p.Key, "unknown-stale")} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	// A transcript touched "in the future" (clock skew) is not idle.
	future := now.Add(time.Hour)
	for _, p := range []string{freshTr, w.e.CheckpointPath(w.p.Key, "unknown-fresh")} {
		if err := os.Chtimes(p, future, future); err != nil {
			t.Fatal(err)
		}
	}

	rep, err := ArchiveOrphans(context.Background(), w.e, w.p, Current{ID: "current"}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var archived []string
	for _, p := range rep.Archived {
		archived = append(archived, filepath.Base(p))
	}
	want := []string{"20261121T100000Z-dead.json", "20261121T090000Z-unknown-stale.json"}
	if !sameSet(archived, want) {
		t.Fatalf("archived %v, want %v", archived, want)
	}
	if len(rep.Dropped) != 1 || !strings.HasSuffix(rep.Dropped[0], "empty.json") {
		t.Fatalf("dropped %v, want the session with no turn", rep.Dropped)
	}
	for sid, exists := range map[string]bool{"dead": false, "unknown-stale": false, "empty": false, "live": true, "current": true, "unknown-fresh": true} {
		if _, err := os.Stat(w.e.CheckpointPath(w.p.Key, sid)); (err == nil) != exists {
			t.Errorf("checkpoint %s exists=%v, want %v", sid, err == nil, exists)
		}
	}
	index, err := os.ReadFile(filepath.Join(w.e.ProjectDir(w.p.Key), "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	wantIndex := "- 2026-11-21 10:00 · 1 turn · OK · \"dead session goal\" — episodes/20261121T100000Z-dead.json\n" +
		"- 2026-11-21 09:00 · 1 turn · OK · \"no pid, idle\" — episodes/20261121T090000Z-unknown-stale.json\n"
	if string(index) != wantIndex {
		t.Fatalf("INDEX.md:\n%s\nwant:\n%s", index, wantIndex)
	}
	ep, err := readCheckpoint(w.e.ProjectDir(w.p.Key), filepath.Join(w.e.ProjectDir(w.p.Key), "episodes", "20261121T100000Z-dead.json"))
	if err != nil || ep.ArchivedAt != "2026-11-21T12:00:00Z" || ep.Goal != "dead session goal" {
		t.Fatalf("episode %+v %v", ep, err)
	}

	// The dead session is resumed: its checkpoint re-opens from the episode
	// and reading goes on from where it stopped; archiving it again replaces
	// its episode and its line.
	tr := filepath.Join(filepath.Dir(w.tr), "dead.jsonl")
	storetest.Append(t, tr, []byte(prompt("a second turn", "2026-11-21T11:00:00Z")))
	c, err := Capture(context.Background(), w.e, CaptureRequest{Turn: Turn{SessionID: "dead", TranscriptPath: tr, Cwd: w.repo, Process: dead}})
	if err != nil || c.Turns != 2 || c.Goal != "dead session goal" {
		t.Fatalf("resumed: %+v %v", c, err)
	}
	if _, err := ArchiveOrphans(context.Background(), w.e, w.p, Current{ID: "current"}, cfg); err != nil {
		t.Fatal(err)
	}
	index, _ = os.ReadFile(filepath.Join(w.e.ProjectDir(w.p.Key), "INDEX.md"))
	if strings.Count(string(index), "-dead.json") != 1 || !strings.Contains(string(index), "· 2 turns ·") {
		t.Fatalf("re-archived INDEX.md:\n%s", index)
	}
	eps, _ := filepath.Glob(filepath.Join(w.e.ProjectDir(w.p.Key), "episodes", "*-dead.json"))
	if len(eps) != 1 {
		t.Fatalf("episodes of the resumed session: %v", eps)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

func TestRetention(t *testing.T) {
	w := newCaptureWorld(t)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	w.e.Now = func() time.Time { return now }
	pdir := w.e.ProjectDir(w.p.Key)
	var index []string
	for i := 0; i < 205; i++ {
		day := now.Add(-time.Duration(i) * 6 * time.Hour) // 205 episodes over 51 days
		name := day.Format(stampLayout) + fmt.Sprintf("-s%d.json", i)
		storetest.Mkfile(t, filepath.Join(pdir, "episodes", name), "{}")
		index = append(index, "- line "+fmt.Sprint(i)+" — episodes/"+name)
	}
	ancient := now.AddDate(0, 0, -100).Format(stampLayout) + "-old.json"
	storetest.Mkfile(t, filepath.Join(pdir, "episodes", ancient), "{}")
	index = append(index, "- ancient — episodes/"+ancient)
	storetest.Mkfile(t, filepath.Join(pdir, "INDEX.md"), strings.Join(index, "\n")+"\n")
	leftover := filepath.Join(pdir, ".INDEX.md.tmp-123")
	storetest.Mkfile(t, leftover, "half")
	past := now.Add(-time.Hour)
	os.Chtimes(leftover, past, past)

	cfg := config.Default()
	dry, err := ApplyRetention(context.Background(), w.e, w.p.Key, cfg, true)
	if err != nil || len(dry.Moved) != 6 {
		t.Fatalf("dry run: %d moves, %v", len(dry.Moved), err)
	}
	if n, _ := filepath.Glob(filepath.Join(pdir, "episodes", "*.json")); len(n) != 206 {
		t.Fatal("the dry run moved files")
	}
	rep, err := ApplyRetention(context.Background(), w.e, w.p.Key, cfg, false)
	if err != nil || len(rep.Moved) != 6 {
		t.Fatalf("moved %d, %v", len(rep.Moved), err)
	}
	if _, err := os.Stat(filepath.Join(pdir, "archive", ancient)); err != nil {
		t.Fatal("the 100-day-old episode is not in archive/")
	}
	if n, _ := filepath.Glob(filepath.Join(pdir, "episodes", "*.json")); len(n) != 200 {
		t.Fatalf("%d episodes left, want 200", len(n))
	}
	data, _ := os.ReadFile(filepath.Join(pdir, "INDEX.md"))
	if lines := strings.Count(string(data), "\n"); lines != 200 || strings.Contains(string(data), "ancient") {
		t.Fatalf("INDEX.md has %d lines after retention", lines)
	}
	if _, err := os.Stat(leftover); err == nil || len(rep.Cleaned) != 1 {
		t.Fatalf("leftover of an interrupted write not cleaned: %v", rep.Cleaned)
	}
}

// Re-archiving a session touches only its own episode and line, never those
// of a session whose id ends the same way.
func TestEpisodeOfSimilarSessionIDs(t *testing.T) {
	w := newCaptureWorld(t)
	pdir := w.e.ProjectDir(w.p.Key)
	storetest.Mkfile(t, filepath.Join(pdir, "episodes", "20261120T100000Z-a-s1.json"), "{}")
	storetest.Mkfile(t, filepath.Join(pdir, "INDEX.md"), "- other — episodes/20261120T100000Z-a-s1.json\n")
	if err := editIndex(w.e, w.p.Key, []indexEdit{{sid: "s1", line: "- mine — episodes/20261121T100000Z-s1.json"}}, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(pdir, "INDEX.md"))
	if string(data) != "- mine — episodes/20261121T100000Z-s1.json\n- other — episodes/20261120T100000Z-a-s1.json\n" {
		t.Fatalf("INDEX.md:\n%s", data)
	}
	if got := findEpisode(w.e, w.p.Key, "s1"); got != "" {
		t.Fatalf("found %s as s1's episode", got)
	}
	if EpisodeSession("20261120T100000Z-a-s1.json") != "a-s1" || EpisodeSession("bad.json") != "" {
		t.Fatal("episodeSession")
	}
}

func FuzzEditIndex(f *testing.F) {
	f.Add("- a — episodes/20261120T100000Z-s1.json\n- b — episodes/20261119T100000Z-s2.json\n", "s1")
	f.Add("garbage\n\n\n— episodes/\n", "x")
	f.Add("", "s")
	f.Fuzz(func(t *testing.T, index, sid string) {
		if !store.ValidID(sid, 128, false) {
			return
		}
		e := store.Env{Store: t.TempDir()}
		path := filepath.Join(e.ProjectDir("k"), "INDEX.md")
		if err := store.WriteFileAtomic(path, []byte(index)); err != nil {
			t.Fatal(err)
		}
		line := "- new — episodes/20261121T000000Z-" + sid + ".json"
		if err := editIndex(e, "k", []indexEdit{{sid: sid, line: line}}, nil); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		n := 0
		for _, l := range lines {
			if strings.TrimSpace(l) == "" {
				t.Fatalf("blank line in %q", data)
			}
			if l == line {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("the session's line appears %d times in %q", n, data)
		}
		if !sort.SliceIsSorted(lines, func(i, j int) bool { return lineEpisode(lines[i]) > lineEpisode(lines[j]) }) {
			t.Fatalf("not sorted newest first: %q", data)
		}
	})
}

// A token that the goal's or the outcome's cut would split is redacted
// whole, before the cut: no part of it reaches disk.
func TestCaptureRedactsBeforeItShortens(t *testing.T) {
	w := newCaptureWorld(t)
	token := "glpat-Zq8Xw2Lk9Pm4Rt7Yv1Bn6Hc" // 26 characters
	goal := strings.Repeat("g", goalChars-10) + " " + token
	outcome := strings.Repeat("o", outcomeChars-12) + " " + token
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"` + goal + `"}}`,
		`{"type":"assistant","message":{"id":"m1","model":"m","content":[{"type":"text","text":"` + outcome + `"}]}}`,
	}
	storetest.Append(t, w.tr, []byte(strings.Join(lines, "\n")+"\n"))
	w.capture(t, "s1")
	data, err := os.ReadFile(w.e.CheckpointPath(w.p.Key, "s1"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+8 <= len(token); i++ {
		if frag := token[i : i+8]; strings.Contains(string(data), frag) {
			t.Fatalf("%q of the token reached disk:\n%s", frag, data)
		}
	}
}

// ended writes n ended sessions' checkpoints (their process is gone).
func (w *captureWorld) ended(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		sid := fmt.Sprintf("s%d", i)
		tr := filepath.Join(filepath.Dir(w.tr), sid+".jsonl")
		storetest.Append(t, tr, []byte(fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"task %d"},"timestamp":"2026-11-2%dT10:00:00Z"}`+"\n", i, i)))
		if _, err := Capture(context.Background(), w.e, CaptureRequest{Turn: Turn{SessionID: sid, TranscriptPath: tr, Cwd: w.repo, Process: proc.Info{PID: 1 << 22}}}); err != nil {
			t.Fatal(err)
		}
	}
}

// indexNames lists the episodes INDEX.md names.
func (w *captureWorld) indexNames(t *testing.T) []string {
	data, _ := os.ReadFile(w.e.IndexPath(w.p.Key))
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l != "" {
			out = append(out, lineEpisode(l))
		}
	}
	sort.Strings(out)
	return out
}

func (w *captureWorld) episodeNames(t *testing.T) []string {
	m, _ := filepath.Glob(filepath.Join(w.e.EpisodesDir(w.p.Key), "*.json"))
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	sort.Strings(m)
	return m
}

// INDEX.md that could not be written when sessions were archived (here a
// folder in its way) comes back whole once it can be: every episode has
// its line again.
func TestIndexHealsAfterAFailedWrite(t *testing.T) {
	w := newCaptureWorld(t)
	w.ended(t, 3)
	if err := os.MkdirAll(filepath.Join(w.e.IndexPath(w.p.Key), "in-the-way"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := ArchiveOrphans(context.Background(), w.e, w.p, Current{ID: "now"}, config.Default()); err == nil {
		t.Fatal("writing INDEX.md over a folder should fail")
	}
	if got := w.episodeNames(t); len(got) != 3 {
		t.Fatalf("episodes %v", got)
	}
	if _, err := HealIndex(context.Background(), w.e, w.p.Key); err == nil {
		t.Fatal("healing over a folder should fail, not pretend")
	}
	os.RemoveAll(w.e.IndexPath(w.p.Key))
	if changed, err := HealIndex(context.Background(), w.e, w.p.Key); err != nil || !changed {
		t.Fatalf("heal: %v %v", changed, err)
	}
	if got, want := w.indexNames(t), w.episodeNames(t); !slices.Equal(got, want) {
		t.Fatalf("INDEX.md names %v, episodes/ holds %v", got, want)
	}
	if changed, _ := HealIndex(context.Background(), w.e, w.p.Key); changed {
		t.Fatal("a second heal changed a consistent INDEX.md")
	}
}

// A gc killed between moving episodes to the archive and rewriting
// INDEX.md leaves lines pointing at nothing; healing drops them, so the
// archived episode is not injected any more.
func TestIndexHealsAfterAnInterruptedGC(t *testing.T) {
	w := newCaptureWorld(t)
	w.ended(t, 3)
	if _, err := ArchiveOrphans(context.Background(), w.e, w.p, Current{ID: "now"}, config.Default()); err != nil {
		t.Fatal(err)
	}
	eps := w.episodeNames(t)
	// The kill: the oldest episode moved, INDEX.md not rewritten.
	os.MkdirAll(w.e.EpisodeArchiveDir(w.p.Key), 0o700)
	if err := os.Rename(filepath.Join(w.e.EpisodesDir(w.p.Key), eps[0]), filepath.Join(w.e.EpisodeArchiveDir(w.p.Key), eps[0])); err != nil {
		t.Fatal(err)
	}
	if _, err := HealIndex(context.Background(), w.e, w.p.Key); err != nil {
		t.Fatal(err)
	}
	if got := w.indexNames(t); !slices.Equal(got, eps[1:]) {
		t.Fatalf("INDEX.md names %v, want %v", got, eps[1:])
	}
	// INDEX.md deleted: rebuilt from episodes/.
	os.Remove(w.e.IndexPath(w.p.Key))
	HealIndex(context.Background(), w.e, w.p.Key)
	if got := w.indexNames(t); !slices.Equal(got, eps[1:]) {
		t.Fatalf("rebuilt INDEX.md names %v, want %v", got, eps[1:])
	}
}

// A transcript that ends in a huge line with no end yet: the scan keeps its
// deadline inside that line, and each run goes on from where the last one
// stopped instead of reading the line again.
func TestCaptureResumesInsideAHugeLine(t *testing.T) {
	w := newCaptureWorld(t)
	storetest.Append(t, w.tr, []byte(`{"type":"user","message":{"role":"user","content":"first"}}`+"\n"))
	f, err := os.OpenFile(w.tr, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	tail := int64(40 << 20)
	chunk := []byte(`{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", 1<<20))
	for written := int64(0); written < tail; written += int64(len(chunk)) {
		f.Write(chunk)
	}
	f.Close()
	fi, _ := os.Stat(w.tr)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	req := CaptureRequest{Turn: Turn{SessionID: "s1", TranscriptPath: w.tr, Cwd: w.repo}}
	first, err := Capture(cancelled, w.e, req)
	if err != nil {
		t.Fatal(err)
	}
	firstLine := int64(len(`{"type":"user","message":{"role":"user","content":"first"}}`) + 1)
	if first.Transcript.Offset != firstLine || first.Transcript.Skip <= transcript.MaxLine || first.Transcript.Skip >= fi.Size()-firstLine {
		t.Fatalf("past its deadline the scan should stop inside the long line: %+v (file %d)", first.Transcript, fi.Size())
	}
	second, _ := Capture(cancelled, w.e, req)
	if second.Transcript.Skip <= first.Transcript.Skip {
		t.Fatalf("the second run read the long line again: %+v, then %+v", first.Transcript, second.Transcript)
	}
	done, _ := Capture(context.Background(), w.e, req)
	if done.Transcript.Offset+done.Transcript.Skip != fi.Size() || done.Turns != 1 {
		t.Fatalf("without a deadline it reads to the end: %+v turns %d (file %d)", done.Transcript, done.Turns, fi.Size())
	}
	// The line ends, another follows: both are accounted for.
	storetest.Append(t, w.tr, []byte("\"}}\n"+`{"type":"user","message":{"role":"user","content":"after"}}`+"\n"))
	after, _ := Capture(context.Background(), w.e, req)
	end, _ := os.Stat(w.tr)
	if after.Transcript.Offset != end.Size() || after.Transcript.Skip != 0 || after.Turns != 2 {
		t.Fatalf("after the long line ended: %+v turns %d (file %d)", after.Transcript, after.Turns, end.Size())
	}
}

// subagentFixture copies the real 2.1.328 session whose subagent wrote,
// edited and ran a failing command into w, its project path moved to
// w.repo; it returns the session's transcript and the subagent's.
func subagentFixture(t *testing.T, w *captureWorld) (main, sub string) {
	t.Helper()
	const sid = "57e914f0-5cee-4b95-bbe4-c53c752c9b3b"
	src := "../../testdata/claude-code-2.1.328/subagent"
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(data), "/home/dev/x/001/src/shop", w.repo)
	}
	main = filepath.Join(filepath.Dir(w.tr), sid+".jsonl")
	sub = filepath.Join(SubagentsDir(main), "agent-a7a8b262eea339944.jsonl")
	storetest.Mkfile(t, main, read(sid+".jsonl"))
	storetest.Mkfile(t, sub, read(sid+"/subagents/agent-a7a8b262eea339944.jsonl"))
	return main, sub
}

// TestCaptureSubagentWork: what a subagent did belongs to the session: the
// file it wrote and edited, its failing command, its tool uses (kept
// apart); reading it again adds nothing, and only its new lines are read.
func TestCaptureSubagentWork(t *testing.T) {
	w := newCaptureWorld(t)
	main, sub := subagentFixture(t, w)
	w.tr = main
	c := w.capture(t, "57e914f0-5cee-4b95-bbe4-c53c752c9b3b")
	if !reflect.DeepEqual(c.FilesChanged, []string{"notes/sub.md"}) || c.ToolErrors != 1 {
		t.Fatalf("files %v, errors %d: the subagent's work is missing", c.FilesChanged, c.ToolErrors)
	}
	if !reflect.DeepEqual(c.SubagentTools, map[string]int{"Write": 1, "Edit": 1, "Bash": 1}) || c.Tools["Agent"] != 1 || c.Tools["Write"] != 0 {
		t.Fatalf("tools %v, subagent tools %v", c.Tools, c.SubagentTools)
	}
	if c.Turns != 1 || c.Goal != "delegate the work" {
		t.Fatalf("turns %d goal %q: a subagent's prompts are not the session's turns", c.Turns, c.Goal)
	}
	again := w.capture(t, c.SessionID)
	if again.ToolErrors != 1 || again.SubagentTools["Write"] != 1 {
		t.Fatalf("a second run counted again: %+v", again.SubagentTools)
	}
	// New lines of the subagent only: the read starts where the last ended.
	fi, _ := os.Stat(sub)
	if pos := again.State.Subagents[filepath.Base(sub)]; pos.Offset != fi.Size() {
		t.Fatalf("subagent position %+v, file %d bytes", pos, fi.Size())
	}
	storetest.Append(t, sub, []byte(`{"isSidechain":true,"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_x","name":"Write","input":{"file_path":"`+filepath.Join(w.repo, "b.go")+`","content":"x"}}]}}`+"\n"+
		`{"isSidechain":true,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"ok"}]}}`+"\n"))
	third := w.capture(t, c.SessionID)
	if !reflect.DeepEqual(third.FilesChanged, []string{"b.go", "notes/sub.md"}) || third.SubagentTools["Write"] != 2 {
		t.Fatalf("files %v tools %v after the subagent went on", third.FilesChanged, third.SubagentTools)
	}
}

// TestTornCheckpointIsRebuilt: checkpoints are not forced to disk, so a
// power cut can leave one empty or torn. The session's record is not lost:
// once the session is over, the next start rebuilds it from the
// transcript and archives it; a torn checkpoint with no transcript to be
// found is left for a person.
func TestTornCheckpointIsRebuilt(t *testing.T) {
	w := newCaptureWorld(t)
	tr := filepath.Join(filepath.Dir(w.tr), "torn.jsonl")
	storetest.Append(t, tr, []byte(`{"type":"user","message":{"role":"user","content":"fix the flaky checkout test"},"timestamp":"2026-11-20T10:00:00Z"}`+"\n"))
	storetest.Mkfile(t, w.e.CheckpointPath(w.p.Key, "torn"), "")
	storetest.Mkfile(t, w.e.CheckpointPath(w.p.Key, "lost"), `{"session_id":"lost","tur`)
	old := time.Now().Add(-2 * time.Hour)
	for _, f := range []string{tr, w.e.CheckpointPath(w.p.Key, "torn"), w.e.CheckpointPath(w.p.Key, "lost")} {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := ArchiveOrphans(context.Background(), w.e, w.p, Current{ID: "now"}, config.Default())
	if err != nil || len(rep.Archived) != 1 {
		t.Fatalf("archived %v, %v", rep.Archived, err)
	}
	c, err := readCheckpoint(w.e.ProjectDir(w.p.Key), rep.Archived[0])
	if err != nil || c.SessionID != "torn" || c.Goal != "fix the flaky checkout test" || c.Turns != 1 {
		t.Fatalf("episode %+v, %v", c, err)
	}
	if !slices.Contains(w.indexNames(t), filepath.Base(rep.Archived[0])) {
		t.Fatalf("INDEX.md lacks the rebuilt episode")
	}
	if _, err := os.Stat(w.e.CheckpointPath(w.p.Key, "torn")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("the torn checkpoint stays")
	}
	if _, err := os.Stat(w.e.CheckpointPath(w.p.Key, "lost")); err != nil {
		t.Fatal("a torn checkpoint without a transcript was removed")
	}
}

// TestSkillNameRedactedBeforeItShortens: a skill name holding a token that
// the 80-character cut would split (the client writes the name the model
// chose) is redacted whole before the cut, and so is the entry point: no
// part of the token reaches disk.
func TestSkillNameRedactedBeforeItShortens(t *testing.T) {
	w := newCaptureWorld(t)
	token := "ghp_" + strings.Repeat("Zq8Xw2Lk9P", 4) // 44 characters
	skill := strings.Repeat("s", 80-21) + "-" + token // the cut falls 20 characters into the token
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"deploy it"},"entrypoint":"` + strings.Repeat("e", 29) + "-" + token + `"}`,
		`{"type":"assistant","message":{"id":"m1","model":"m","content":[{"type":"tool_use","id":"t1","name":"Skill","input":{"skill":"` + skill + `"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`,
	}
	storetest.Append(t, w.tr, []byte(strings.Join(lines, "\n")+"\n"))
	c := w.capture(t, "s1")
	if len(c.SkillsUsed) != 1 {
		t.Fatalf("skills used: %q", c.SkillsUsed)
	}
	data, err := os.ReadFile(w.e.CheckpointPath(w.p.Key, "s1"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+8 <= len(token); i++ {
		if frag := token[i : i+8]; strings.Contains(string(data), frag) {
			t.Fatalf("%q of the token reached disk:\n%s", frag, data)
		}
	}
}

func TestIsOpencodeStore(t *testing.T) {
	for name, want := range map[string]bool{
		"opencode.db": true, "opencode-dev.db": true, "opencode-local.db": true,
		"opencode.db-wal": false, "opencode.db-shm": false, "opencode-.db": false, "opencodex.db": false,
		"opencode.db.bak": false, "opencode": false, "storage": false,
	} {
		if got := isOpencodeStore(name); got != want {
			t.Errorf("%s: %v", name, got)
		}
	}
}

// TestCaptureCutShortGoesOnWhereItStopped (issue 49, finding 6): a capture
// whose time runs out (a session start reads a resumed session's
// transcript within a small allowance) keeps what it read and where it
// stopped; the next capture reads on from there, and the record is the
// one a whole read makes.
func TestCaptureCutShortGoesOnWhereItStopped(t *testing.T) {
	whole := newCaptureWorld(t)
	var data []byte
	for range 6 {
		data = append(data, fixtureTranscript(t, whole.repo)...)
	}
	storetest.Append(t, whole.tr, data)
	want := whole.capture(t, "s1")

	w := newCaptureWorld(t)
	storetest.Append(t, w.tr, []byte(strings.ReplaceAll(string(data), whole.repo, w.repo)))
	out, cancel := context.WithCancel(context.Background())
	cancel() // out of time before it starts: it reads until its first look at the clock
	part, err := Capture(out, w.e, CaptureRequest{Turn: Turn{SessionID: "s1", TranscriptPath: w.tr, Cwd: w.repo}})
	if err != nil {
		t.Fatal(err)
	}
	if part.Transcript.Offset == 0 || part.Transcript.Offset >= int64(len(data)) {
		t.Fatalf("a capture out of time read %d of %d bytes: it should stop partway", part.Transcript.Offset, len(data))
	}
	got := w.capture(t, "s1")
	for _, c := range []*Checkpoint{want, got} {
		c.UpdatedAt, c.Transcript, c.ProjectRoot = "", checkpoint.TranscriptPos{}, ""
	}
	g, _ := json.Marshal(got)
	x, _ := json.Marshal(want)
	if string(g) != string(x) {
		t.Fatalf("the record read in two goes differs from the whole read\n got %s\nwant %s", g, x)
	}
}
