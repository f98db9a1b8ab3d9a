package notes

import (
	"slices"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestFindingsAreKeptOrDismissed (issue 51, finding 7): what triage noted
// in a session waits for the person; each category kept becomes a valid
// project record in its words (a fix with the commands that fixed it), and
// a finding decided on — kept or dismissed — waits no more. Automated
// runs are left out.
func TestFindingsAreKeptOrDismissed(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	note := func(cat, text string) checkpoint.Note {
		return checkpoint.Note{Turn: 1, At: "2026-11-21T10:00:00Z", Kind: session.NoteTriage, Text: cat + ": " + text}
	}
	c := &session.Checkpoint{Record: checkpoint.Record{SessionID: "s1", Title: "make the queue durable", StartedAt: "2026-11-21T09:00:00Z",
		FilesChanged: []string{"queue/pg.go"}, Outcome: "the queue runs on Postgres"}}
	c.Digest.Notes = []checkpoint.Note{
		{Turn: 1, Kind: session.NoteFailure, Cmd: "npm test", Text: "Error: Cannot find module '../dist/queue.js'"},
		{Turn: 1, Kind: session.NoteFix, Cmd: "npm test", Text: "succeeded after npm run build", After: []string{"npm run build"}},
		note("decision", "We decided to use Postgres for the queue because it already runs everywhere"),
		note("runbook", "The fix was to build before testing: the tests import dist/"),
		note("constraint", "The CI runners cannot reach the internet"),
		note("tech_debt", "The retry loop is a hack for now, until the client has backoff"),
		note("preference", "Please always use pnpm in this repository"),
		note("session_summary", ""),
		note("decision", "a second decision of the same session is not noted by triage"),
	}
	bot := &session.Checkpoint{Record: checkpoint.Record{SessionID: "s2", Automated: true, StartedAt: "2026-11-21T08:00:00Z"}}
	bot.Digest.Notes = []checkpoint.Note{note("decision", "We chose the nightly job because it is cheap")}
	eps := []session.SessionFile{{Record: c}, {Record: bot}}

	found := Findings(e, p.Key, repo, eps)
	var cats []string
	for _, f := range found {
		cats = append(cats, f.Category)
		if f.Decided != "" || f.SessionID != "s1" || f.ID != FindingID("s1", f.Category) || f.Day != "2026-11-21" {
			t.Errorf("finding %+v", f)
		}
	}
	if !slices.Equal(cats, []string{"decision", "runbook", "constraint", "tech_debt", "preference", "session_summary"}) {
		t.Fatalf("findings %v, want one per category of the person's session", cats)
	}
	s, err := records.Open(e, repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found[:5] {
		rf, err := Keep(e, p.Key, s, f, "")
		if err != nil {
			t.Fatalf("keeping the %s: %v", f.Category, err)
		}
		if rf.Record.Category != f.Category || !slices.Equal(rf.Record.RelatedFiles, []string{"queue/pg.go"}) {
			t.Errorf("kept as %+v", rf.Record)
		}
	}
	// The session's work, under a title of the person's.
	rf, err := Keep(e, p.Key, s, found[5], "Queue on Postgres")
	if err != nil || rf.Record.Title != "Queue on Postgres" || rf.Record.Content["goal"] != "make the queue durable" || rf.Record.Content["outcome"] != "success" {
		t.Fatalf("the session summary kept: %+v %v", rf.Record, err)
	}
	run := records.Read(repo, records.Path(repo, "runbook", "the-fix-was-to-build-before-testing-the-tests-import-dist"))
	if run.Record == nil {
		t.Fatalf("the runbook: %v", run.Err)
	}
	if steps := run.Record.Content["steps"].([]any); len(steps) != 2 || steps[0] != "run `npm run build`" || !strings.Contains(steps[1].(string), "npm test") {
		t.Errorf("the runbook's steps are %v, want the commands that fixed it", steps)
	}
	dec := records.Read(repo, records.Path(repo, "decision", "we-decided-to-use-postgres-for-the-queue-because-it-already-runs-everywhere"))
	if dec.Record == nil || !slices.Equal(dec.Record.Content["rationale"].([]any), []any{"because it already runs everywhere"}) {
		t.Fatalf("the decision: %+v %v", dec.Record, dec.Err)
	}
	for _, f := range Findings(e, p.Key, repo, eps) {
		if f.Decided != "kept" {
			t.Errorf("%s is %q after it was kept", f.Category, f.Decided)
		}
	}

	// Another session's findings, dismissed, wait no more; nothing is kept.
	c2 := &session.Checkpoint{Record: checkpoint.Record{SessionID: "s3", Title: "later", StartedAt: "2026-11-22T09:00:00Z"}}
	c2.Digest.Notes = []checkpoint.Note{note("decision", "We went with SQS instead of Postgres")}
	eps = append([]session.SessionFile{{Record: c2}}, eps...)
	later := Findings(e, p.Key, repo, eps)[0]
	if later.SessionID != "s3" || later.Decided != "" {
		t.Fatalf("the newest finding comes first: %+v", later)
	}
	if err := DismissFindings(e, p.Key, []Finding{later}); err != nil {
		t.Fatal(err)
	}
	if f := Findings(e, p.Key, repo, eps)[0]; f.Decided != "dismissed" {
		t.Fatalf("dismissed, it is %q", f.Decided)
	}
	if r := records.Read(repo, records.Path(repo, "decision", "we-went-with-sqs-instead-of-postgres")); r.Record != nil {
		t.Fatal("a dismissed finding was kept")
	}

	// The same words in a newer session are one finding, the newest, as
	// the person decided on them; a constraint the repository has a record
	// of already reads as kept.
	c3 := &session.Checkpoint{Record: checkpoint.Record{SessionID: "s4", Title: "again", StartedAt: "2026-11-23T09:00:00Z"}}
	c3.Digest.Notes = []checkpoint.Note{note("decision", "We went with  SQS instead of Postgres"), note("constraint", "The CI runners cannot reach the internet")}
	eps = append([]session.SessionFile{{Record: c3}}, eps...)
	all := Findings(e, p.Key, repo, eps)
	if len(all) != 7 || all[0].SessionID != "s4" || all[0].Decided != "dismissed" || all[1].Category != "constraint" || all[1].Decided != "kept" {
		t.Fatalf("after a session saying it again: %+v", all)
	}
}
