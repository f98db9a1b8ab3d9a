package records

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// recordWorld is a project with a record store and a clock the test moves.
type recordWorld struct {
	s   *Store
	now time.Time
}

func newRecordWorld(t *testing.T) *recordWorld {
	t.Helper()
	e := storetest.Env(t)
	repo := filepath.Join(storetest.RealDir(t), "repo")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	w := &recordWorld{now: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	e.Now = func() time.Time { return w.now }
	s, err := Open(e, repo)
	if err != nil {
		t.Fatal(err)
	}
	w.s = s
	return w
}

func decision(title string) *Record {
	return &Record{Category: "decision", Title: title, Tags: []string{"db"}, Content: map[string]any{
		"status": "accepted", "decision": "use Postgres", "rationale": []any{"one less service"},
	}}
}

func code(err error) string {
	if c := Code(err); c != "" {
		return c
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

func TestRecordCreateAndValidate(t *testing.T) {
	w := newRecordWorld(t)
	rf, err := w.s.Create(decision("Use Postgres for the queue"))
	if err != nil {
		t.Fatal(err)
	}
	r := rf.Record
	if r.ID != "use-postgres-for-the-queue" || r.SchemaVersion != "1.0" || r.RecordStatus != "active" ||
		r.CreatedAt != "2026-11-21T12:00:00Z" || r.Confidence != 0.8 || len(r.Changes) != 1 {
		t.Fatalf("created %+v", r)
	}
	if got := Read(w.s.Root, rf.Path); got.Err != nil || got.Hash != rf.Hash {
		t.Fatalf("read back: %+v", got)
	}
	if _, err := w.s.Create(decision("Use Postgres for the queue")); code(err) != "EXISTS" {
		t.Fatalf("duplicate create: %v", err)
	}
	bad := []*Record{
		{Category: "decision", Title: "x", Tags: []string{"a"}, Content: map[string]any{"status": "maybe", "decision": "d", "rationale": []any{"r"}}},
		{Category: "decision", Title: "x", Tags: nil, Content: map[string]any{"status": "accepted", "decision": "d", "rationale": []any{"r"}}},
		{Category: "decision", Title: strings.Repeat("t", 121), Tags: []string{"a"}, Content: map[string]any{"status": "accepted", "decision": "d", "rationale": []any{"r"}}},
		{Category: "runbook", Title: "x", Tags: []string{"a"}, Content: map[string]any{"trigger": "t", "steps": "not a list"}},
		{Category: "preference", Title: "x", Tags: []string{"a"}, Content: map[string]any{"topic": "t", "value": "v", "strength": "strong", "colour": "blue"}},
		{Category: "nonsense", Title: "x", Tags: []string{"a"}, Content: map[string]any{}},
		{Category: "constraint", Title: "x", Tags: []string{"a"}, Confidence: 1.5, Content: map[string]any{"kind": "policy", "rule": "r", "severity": "high"}},
	}
	for i, r := range bad {
		if _, err := w.s.Create(r); code(err) != "INVALID" {
			t.Errorf("bad record %d accepted or wrong error: %v", i, err)
		}
	}
	// Every category has a valid example.
	good := map[string]map[string]any{
		"session_summary": {"goal": "g", "outcome": "partial", "completed": []any{"a"}},
		"runbook":         {"trigger": "t", "steps": []any{"s"}},
		"constraint":      {"kind": "policy", "rule": "r", "severity": "high", "active": true},
		"tech_debt":       {"status": "open", "priority": "low", "description": "d"},
		"preference":      {"topic": "t", "value": "v", "strength": "soft", "examples": map[string]any{"prefer": []any{"a"}}},
	}
	for cat, content := range good {
		if _, err := w.s.Create(&Record{Category: cat, Title: "a " + cat, Tags: []string{"t"}, Content: content}); err != nil {
			t.Errorf("%s: %v", cat, err)
		}
	}
}

func TestRecordOCC(t *testing.T) {
	w := newRecordWorld(t)
	rf, _ := w.s.Create(decision("Queue"))
	upd := func(hash, summary string) error {
		_, err := w.s.Update("decision", "queue", hash, &Record{Changes: []RecordChange{{Summary: summary}}})
		return err
	}
	if err := upd("0000000000000000", "x"); code(err) != "OCC_CONFLICT" {
		t.Fatalf("stale hash: %v", err)
	}
	// Two concurrent updates from the same read: exactly one wins.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = upd(rf.Hash, fmt.Sprintf("writer %d", i))
		}(i)
	}
	wg.Wait()
	ok, conflicts := 0, 0
	for _, err := range errs {
		switch code(err) {
		case "":
			ok++
		case "OCC_CONFLICT":
			conflicts++
		}
	}
	if ok != 1 || conflicts != 1 {
		t.Fatalf("concurrent updates: %v", errs)
	}
	if r := Read(w.s.Root, rf.Path).Record; r.TimesUpdated != 1 || len(r.Changes) != 2 {
		t.Fatalf("after the race: %+v", r)
	}
}

func TestRecordAntiResurrection(t *testing.T) {
	w := newRecordWorld(t)
	w.s.Create(decision("Queue"))
	if _, err := w.s.SetStatus("decision", "queue", StatusRetired, "replaced"); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(23 * time.Hour)
	if _, err := w.s.Create(decision("Queue")); code(err) != "ANTI_RESURRECTION" {
		t.Fatalf("re-create after 23 h: %v", err)
	}
	w.now = w.now.Add(2 * time.Hour)
	if rf, err := w.s.Create(decision("Queue")); err != nil || rf.Record.RecordStatus != "active" || rf.Record.CreatedAt != "2026-11-22T13:00:00Z" {
		t.Fatalf("re-create after 25 h: %+v %v", rf.Record, err)
	}
}

func TestRecordMergeRules(t *testing.T) {
	w := newRecordWorld(t)
	in := decision("Queue")
	in.Tags = []string{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"}
	os.MkdirAll(filepath.Join(w.s.Root, "internal"), 0o755)
	os.WriteFile(filepath.Join(w.s.Root, "internal", "queue.go"), []byte("package q"), 0o644)
	in.RelatedFiles = []string{"internal/queue.go", "internal/gone.go"}
	rf, _ := w.s.Create(in)
	update := func(r *Record) (File, error) {
		cur := Read(w.s.Root, rf.Path)
		return w.s.Update("decision", "queue", cur.Hash, r)
	}
	change := []RecordChange{{Summary: "more"}}
	for name, r := range map[string]*Record{
		"created_at":     {CreatedAt: "2020-01-01T00:00:00Z", Changes: change},
		"category":       {Category: "constraint", Changes: change},
		"schema_version": {SchemaVersion: "2.0", Changes: change},
		"record_status":  {RecordStatus: "retired", Changes: change},
	} {
		if _, err := update(r); code(err) != "IMMUTABLE" {
			t.Errorf("changing %s: %v", name, err)
		}
	}
	if _, err := update(&Record{Title: "Queue v2"}); code(err) != "INVALID" {
		t.Fatalf("update without a change entry: %v", err)
	}
	// Tags grow, by at most 4 an update; past 12 the oldest make room;
	// omitted tags stay.
	got, err := update(&Record{Tags: []string{"n1", "n2", "t0", "n3", "n4", "n5"}, Changes: change})
	if err != nil {
		t.Fatal(err)
	}
	if tags := strings.Join(got.Record.Tags, ","); tags != "t2,t3,t4,t5,t6,t7,t8,t9,n1,n2,n3,n4" {
		t.Fatalf("tags %s", tags)
	}
	// Twenty new tags in one update cannot evict every old one.
	var twenty []string
	for i := range 20 {
		twenty = append(twenty, fmt.Sprintf("x%d", i))
	}
	got, err = update(&Record{Tags: twenty, Changes: []RecordChange{{Summary: "many tags"}}})
	if err != nil {
		t.Fatal(err)
	}
	if tags := strings.Join(got.Record.Tags, ","); tags != "t6,t7,t8,t9,n1,n2,n3,n4,x0,x1,x2,x3" {
		t.Fatalf("tags %s", tags)
	}
	// related_files grow; a dangling path may go, an existing one stays.
	got, err = update(&Record{RelatedFiles: []string{"docs/new.md"}, Changes: []RecordChange{{Summary: "files"}}})
	if err != nil {
		t.Fatal(err)
	}
	if files := strings.Join(got.Record.RelatedFiles, ","); files != "internal/queue.go,docs/new.md" {
		t.Fatalf("related_files %s", files)
	}
	// changes are append-only, capped at 50 (oldest dropped).
	for i := 0; i < 55; i++ {
		if _, err := update(&Record{Changes: []RecordChange{{Summary: fmt.Sprintf("change %d", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	r := Read(w.s.Root, rf.Path).Record
	if len(r.Changes) != 50 || r.Changes[49].Summary != "change 54" || r.Changes[0].Summary != "change 5" || r.TimesUpdated != 58 {
		t.Fatalf("%d changes, first %q, last %q, times %d", len(r.Changes), r.Changes[0].Summary, r.Changes[49].Summary, r.TimesUpdated)
	}
	if r.CreatedAt != "2026-11-21T12:00:00Z" || r.Category != "decision" {
		t.Fatal("immutable fields moved")
	}
}

func TestRecordSessionWindow(t *testing.T) {
	w := newRecordWorld(t)
	for i := 0; i < 7; i++ {
		w.now = w.now.Add(time.Hour)
		rf, err := w.s.Create(&Record{Category: "session_summary", Title: fmt.Sprintf("Session %d", i), Tags: []string{"s"},
			Content: map[string]any{"goal": "g", "outcome": "success"}})
		if err != nil {
			t.Fatal(err)
		}
		// The window says what it retired (issue 51, finding 7).
		want := ""
		if i >= 5 {
			want = fmt.Sprintf("session_summary/session-%d Session %d", i-5, i-5)
		}
		got := ""
		for _, r := range rf.Retired {
			got += r.Ref + " " + r.Title
		}
		if got != want {
			t.Errorf("creating session %d retired %q, want %q", i, got, want)
		}
	}
	active, retired := []string{}, []string{}
	for _, rf := range List(w.s.Root) {
		if rf.Record.RecordStatus == StatusActive {
			active = append(active, rf.Record.ID)
		} else {
			retired = append(retired, rf.Record.ID)
		}
	}
	if strings.Join(retired, ",") != "session-0,session-1" || len(active) != 5 {
		t.Fatalf("active %v retired %v", active, retired)
	}
	index, _ := os.ReadFile(IndexPath(w.s.Root))
	if strings.Contains(string(index), "Session 0") || !strings.Contains(string(index), "Session 6") {
		t.Fatalf("index.md:\n%s", index)
	}
}

func TestRecordGraceGC(t *testing.T) {
	w := newRecordWorld(t)
	w.s.Create(decision("Retired one"))
	w.s.Create(decision("Archived one"))
	w.s.SetStatus("decision", "retired-one", StatusRetired, "old")
	w.s.SetStatus("decision", "archived-one", StatusArchived, "keep")
	w.now = w.now.Add(29 * 24 * time.Hour)
	if gone, _ := w.s.GC(false); len(gone.Archived) != 0 {
		t.Fatalf("archived inside the grace period: %v", gone)
	}
	w.now = w.now.Add(2 * 24 * time.Hour)
	if gone, _ := w.s.GC(true); len(gone.Archived) != 1 {
		t.Fatalf("dry run: %v", gone)
	}
	gone, err := w.s.GC(false)
	if err != nil || len(gone.Archived) != 1 || !strings.HasSuffix(gone.Archived[0], "retired-one.json") {
		t.Fatalf("gc: %v %v", gone, err)
	}
	// Nothing is deleted: the retired record is archived, the archived one
	// kept as it was.
	for _, id := range []string{"retired-one", "archived-one"} {
		rf := Read(w.s.Root, Path(w.s.Root, "decision", id))
		if rf.Err != nil || rf.Record == nil || rf.Record.RecordStatus != StatusArchived {
			t.Fatalf("%s after gc: %+v", id, rf)
		}
	}
	// Restore brings an archived record back.
	if rf, err := w.s.SetStatus("decision", "archived-one", StatusActive, ""); err != nil || rf.Record.ArchivedAt != "" {
		t.Fatalf("restore: %+v %v", rf.Record, err)
	}
}

func TestBrokenRecordIsReported(t *testing.T) {
	w := newRecordWorld(t)
	w.s.Create(decision("Good"))
	storetest.Mkfile(t, Path(w.s.Root, "decision", "broken"), `{"schema_version": "1.0", "category": "decision",`)
	storetest.Mkfile(t, Path(w.s.Root, "runbook", "wrong"), `{"schema_version":"1.0","category":"runbook","id":"wrong","title":"t","created_at":"x","updated_at":"x","tags":[],"related_files":[],"confidence":0.5,"record_status":"active","changes":[],"times_updated":0,"content":{}}`)
	var invalid []string
	for _, rf := range List(w.s.Root) {
		if rf.Err != nil {
			invalid = append(invalid, filepath.Base(rf.Path))
		}
	}
	if strings.Join(invalid, ",") != "broken.json,wrong.json" {
		t.Fatalf("invalid: %v", invalid)
	}
	// Creating another record still works and the index lists valid ones.
	if _, err := w.s.Create(decision("Another")); err != nil {
		t.Fatal(err)
	}
	index, _ := os.ReadFile(IndexPath(w.s.Root))
	if strings.Count(string(index), "\n- ") != 2 {
		t.Fatalf("index:\n%s", index)
	}
}

// A reference that is not a category and a slug never reaches a file:
// "../" in CATEGORY or ID is refused before anything is read or written.
func TestRecordRefsStayInside(t *testing.T) {
	w := newRecordWorld(t)
	outside := filepath.Join(filepath.Dir(w.s.Root), "outside.json")
	storetest.Mkfile(t, outside, `{"secret": "x"}`)
	for _, ref := range [][2]string{{"decision", "../../../outside"}, {"..", "x"}, {"decision/..", "x"}, {"decision", "UPPER"}, {"nope", "x"}} {
		if _, err := w.s.Read(ref[0], ref[1]); code(err) != "INVALID" {
			t.Errorf("Read(%q, %q): %v", ref[0], ref[1], err)
		}
		if _, err := w.s.Update(ref[0], ref[1], "", &Record{Changes: []RecordChange{{Summary: "x"}}}); code(err) != "INVALID" {
			t.Errorf("Update(%q, %q): %v", ref[0], ref[1], err)
		}
		if _, err := w.s.SetStatus(ref[0], ref[1], StatusRetired, "x"); code(err) != "INVALID" {
			t.Errorf("SetStatus(%q, %q): %v", ref[0], ref[1], err)
		}
	}
	if data, _ := os.ReadFile(outside); string(data) != `{"secret": "x"}`+"\n" && string(data) != `{"secret": "x"}` {
		t.Fatalf("a file outside records/ changed: %s", data)
	}
}

// A kill between a record's write and the index's (here: a record file
// written, the index not) leaves the index stale; the next record command
// heals it, even one that is refused.
func TestRecordIndexHeals(t *testing.T) {
	w := newRecordWorld(t)
	if _, err := w.s.Create(decision("First")); err != nil {
		t.Fatal(err)
	}
	second := *decision("Second")
	second.ID, second.SchemaVersion, second.RecordStatus = "second", SchemaVersion, StatusActive
	second.CreatedAt, second.UpdatedAt = "2026-11-21T12:00:00Z", "2026-11-21T12:00:00Z"
	second.RelatedFiles, second.Changes, second.Confidence = []string{}, []RecordChange{{Date: "2026-11-21T12:00:00Z", Summary: "created"}}, 0.8
	data, _ := json.MarshalIndent(second, "", "  ")
	storetest.Mkfile(t, Path(w.s.Root, "decision", "second"), string(data))
	index := func() string { b, _ := os.ReadFile(IndexPath(w.s.Root)); return string(b) }
	if strings.Contains(index(), "Second") {
		t.Fatal("precondition: the index should be stale")
	}
	// The re-run of the interrupted create is refused, and heals the index.
	s, err := Open(w.s.Env, w.s.Root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(decision("Second")); code(err) != "EXISTS" {
		t.Fatalf("re-created: %v", err)
	}
	if !strings.Contains(index(), "[Second](decision/second.json)") {
		t.Fatalf("the index was not healed:\n%s", index())
	}
	// A kill inside the index's write left its temporary file in the
	// repository; the next record command, refused or not, removes it
	// once it is old.
	tmp := filepath.Join(Dir(w.s.Root), ".index.md.tmp-4242")
	storetest.Mkfile(t, tmp, "# Records (half")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(tmp, old, old)
	if s, err = Open(w.s.Env, w.s.Root); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(decision("Second")); code(err) != "EXISTS" {
		t.Fatalf("re-created: %v", err)
	}
	if _, err := os.Lstat(tmp); err == nil {
		t.Fatal("the leftover index temporary file stayed in the repository")
	}
}

// Records are committed with the repository: a secret in any field of a
// create or an update is redacted before the file is written.
func TestRecordsRedact(t *testing.T) {
	w := newRecordWorld(t)
	in := decision("Rotate glpat-Zq8Xw2Lk9Pm4Rt7Yv1Bn6Hc now")
	in.ID = "rotate"
	in.Tags = []string{"npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}
	in.Content["context"] = "the hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh token leaked"
	rf, err := w.s.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	upd := &Record{Changes: []RecordChange{{Summary: "now 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 too"}}}
	if _, err := w.s.Update("decision", "rotate", rf.Hash, upd); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(rf.Path)
	index, _ := os.ReadFile(IndexPath(w.s.Root))
	for _, secret := range []string{"Zq8Xw2Lk9Pm4", "a1B2c3D4e5F6", "AbCdEfGhIjKl", "ngeVfQFYQlKU"} {
		if strings.Contains(string(data)+string(index), secret) {
			t.Fatalf("%s reached the repository:\n%s\n%s", secret, data, index)
		}
	}
	if in.Tags[0] != "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" {
		t.Fatal("the caller's record was changed")
	}
}

// TestSessionSummariesHaveARetention (issue 51, finding 7): a session
// summary not updated for SummaryRetentionDays is expired with no setting
// (a decision is not): the start-up block leaves it out at once, record gc
// retires it, and after the grace period archives it; nothing is deleted.
// A category's own retention_days sets it otherwise.
func TestSessionSummariesHaveARetention(t *testing.T) {
	w := newRecordWorld(t)
	rf, err := w.s.Create(&Record{Category: "session_summary", Title: "The old stretch", Tags: []string{"s"}, Content: map[string]any{"goal": "g", "outcome": "success"}})
	if err != nil {
		t.Fatal(err)
	}
	w.s.Create(decision("Use Postgres"))
	w.now = w.now.Add((SummaryRetentionDays + 1) * 24 * time.Hour)
	if !Expired(rf.Record, w.s.Policy, w.now) {
		t.Fatal("a summary past the default retention is not expired")
	}
	if Expired(Read(w.s.Root, Path(w.s.Root, "decision", "use-postgres")).Record, w.s.Policy, w.now) {
		t.Fatal("a decision expired with no retention set")
	}
	longer := w.s.Policy
	longer.Categories = map[string]config.RecordCategory{"session_summary": {RetentionDays: 365}}
	if Expired(rf.Record, longer, w.now) {
		t.Fatal("a category's own retention_days is not the one used")
	}
	rep, err := w.s.GC(false)
	if err != nil || len(rep.Expired) != 1 || !strings.HasSuffix(rep.Expired[0], "the-old-stretch.json") {
		t.Fatalf("gc: %+v %v", rep, err)
	}
	w.now = w.now.Add(time.Duration(w.s.Policy.GracePeriodDays+1) * 24 * time.Hour)
	if rep, err := w.s.GC(false); err != nil || len(rep.Archived) != 1 {
		t.Fatalf("gc after the grace period: %+v %v", rep, err)
	}
	if got := Read(w.s.Root, rf.Path); got.Record == nil || got.Record.RecordStatus != StatusArchived {
		t.Fatalf("the summary after gc: %+v", got)
	}
}
