package records

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/triage"
)

// TestPolicy: seed 004's settings — a category turned off, a cap per
// category, the session window, the grace period and a retention.
func TestPolicy(t *testing.T) {
	w := newRecordWorld(t)
	off := false
	w.s.Policy = config.Records{MaxRetained: 2, GracePeriodDays: 7, MaxPerCategory: 3, Categories: map[string]config.RecordCategory{
		"tech_debt": {Enabled: &off}, "decision": {RetentionDays: 90},
	}}
	if _, err := w.s.Create(&Record{Category: "tech_debt", Title: "x", Tags: []string{"a"}, Content: map[string]any{"status": "open", "priority": "low", "description": "d"}}); !errors.Is(err, ErrDisabled) || Code(err) != "CATEGORY_DISABLED" {
		t.Fatalf("a category turned off: %v", err)
	}
	for i := range 3 {
		if _, err := w.s.Create(decision(fmt.Sprintf("Decision %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.s.Create(decision("One too many")); !errors.Is(err, ErrCap) || !strings.Contains(err.Error(), "3 active records") {
		t.Fatalf("over the cap: %v", err)
	}
	for i := range 3 {
		w.now = w.now.Add(time.Minute)
		if _, err := w.s.Create(&Record{Category: "session_summary", Title: fmt.Sprintf("Session %d", i), Tags: []string{"s"}, Content: map[string]any{"goal": "g", "outcome": "success"}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := w.s.active("session_summary"); n != 2 {
		t.Fatalf("%d active session summaries, want max_retained 2", n)
	}
	// Decisions not updated for 90 days expire, as the session summaries
	// do by default (SummaryRetentionDays); the retired summary is
	// archived after 7 days, not 30.
	w.now = w.now.Add(91 * 24 * time.Hour)
	rep, err := w.s.GC(false)
	if err != nil || len(rep.Expired) != 5 || len(rep.Archived) != 1 {
		t.Fatalf("gc: %+v %v", rep, err)
	}
	if n := w.s.active("decision"); n != 0 {
		t.Fatalf("%d decisions still active past their retention", n)
	}
}

// TestTriageNoteFollowsThePolicy: a category turned off is never asked
// for; a description of the project's own tells what a category is for.
func TestTriageNoteFollowsThePolicy(t *testing.T) {
	off := false
	pol := config.Records{Categories: map[string]config.RecordCategory{
		"tech_debt": {Enabled: &off}, "decision": {Description: "architecture choices only, not library picks"}}}
	hits := []triage.Hit{{Category: "decision", Excerpt: "we chose Postgres"}, {Category: "tech_debt", Excerpt: "later"}}
	note := TriageNote(hits, "ccmem", pol)
	if strings.Contains(note, "tech_debt") || !strings.Contains(note, "(architecture choices only, not library picks)") {
		t.Fatalf("note:\n%s", note)
	}
	if note := TriageNote(hits[1:], "ccmem", pol); note != "" {
		t.Fatalf("only a category turned off, yet:\n%s", note)
	}
}

// TestDeletionGuard: the records that link to one — by CATEGORY/ID, by
// its id, or by its title — are named before it is retired.
func TestDeletionGuard(t *testing.T) {
	w := newRecordWorld(t)
	if _, err := w.s.Create(decision("Use Postgres for the queue")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.s.Create(&Record{Category: "session_summary", Title: "Queue work", Tags: []string{"q"}, Content: map[string]any{
		"goal": "move the queue", "outcome": "success", "completed": []any{"adopted decision/use-postgres-for-the-queue"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.s.Create(&Record{Category: "runbook", Title: "Queue backlog", Tags: []string{"q"}, Content: map[string]any{
		"trigger": "backlog grows", "steps": []any{"see Use Postgres for the queue; vacuum the jobs table"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.s.Create(&Record{Category: "runbook", Title: "Unrelated", Tags: []string{"x"}, Content: map[string]any{
		"trigger": "disk full", "steps": []any{"prune docker images"}}}); err != nil {
		t.Fatal(err)
	}
	got := w.s.LinkedBy("decision", "use-postgres-for-the-queue")
	want := []string{"runbook/queue-backlog (Queue backlog)", "session_summary/queue-work (Queue work)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("linked by %v, want %v", got, want)
	}
}
