package memory

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestOldSessionSummariesLeaveTheBlock (issue 51, finding 7): a session
// summary past its retention (by default SummaryRetentionDays without an
// update) is left out of the start-up block at once, before record gc
// retires it (a repository file is not rewritten unasked); a recent one
// and a decision stay.
func TestOldSessionSummariesLeaveTheBlock(t *testing.T) {
	e := storetest.Env(t)
	repo, _ := storetest.Repo(t, e, "shop")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	e.Now = func() time.Time { return now }
	s, err := records.Open(e, repo)
	if err != nil {
		t.Fatal(err)
	}
	create := func(r *records.Record) {
		t.Helper()
		if _, err := s.Create(r); err != nil {
			t.Fatal(err)
		}
	}
	now = now.AddDate(0, -5, 0)
	create(&records.Record{Category: "session_summary", Title: "Five months ago walrus stretch", Tags: []string{"s"}, Content: map[string]any{"goal": "g", "outcome": "success"}})
	create(&records.Record{Category: "decision", Title: "Use Postgres for the heron queue", Tags: []string{"db"},
		Content: map[string]any{"status": "accepted", "decision": "use Postgres", "rationale": []any{"one store"}}})
	now = now.AddDate(0, 5, -3)
	create(&records.Record{Category: "session_summary", Title: "Last week otter stretch", Tags: []string{"s"}, Content: map[string]any{"goal": "g", "outcome": "success"}})
	now = now.AddDate(0, 0, 3)
	blk := Compose(context.Background(), e, StartRequest{Cwd: repo, Source: "startup"}).Block.Text
	if strings.Contains(blk, "walrus") || !strings.Contains(blk, "otter") || !strings.Contains(blk, "heron queue") {
		t.Errorf("the records in the block:\n%s", blk)
	}
}
