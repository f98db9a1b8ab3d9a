package records

import (
	"fmt"
	"sort"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
)

// active counts the active records of a category.
func (s *Store) active(category string) int {
	n := 0
	for _, rf := range List(s.Root) {
		if rf.Record != nil && rf.Err == nil && rf.Record.Category == category && rf.Record.RecordStatus == StatusActive {
			n++
		}
	}
	return n
}

// rollSessions retires the oldest active session summaries beyond the
// window, and says which. The caller holds the lock.
func (s *Store) rollSessions() ([]RetiredRef, error) {
	var active []*Record
	for _, rf := range List(s.Root) {
		if rf.Record != nil && rf.Err == nil && rf.Record.Category == "session_summary" && rf.Record.RecordStatus == StatusActive {
			active = append(active, rf.Record)
		}
	}
	window := s.Policy.MaxRetained
	if window < 1 {
		window = SessionWindow
	}
	if len(active) <= window {
		return nil, nil
	}
	sort.Slice(active, func(i, j int) bool {
		if active[i].CreatedAt != active[j].CreatedAt {
			return active[i].CreatedAt < active[j].CreatedAt
		}
		return active[i].ID < active[j].ID
	})
	now := s.stamp()
	var out []RetiredRef
	for _, r := range active[:len(active)-window] {
		c := *r
		c.RecordStatus, c.RetiredAt, c.RetiredReason = StatusRetired, now, fmt.Sprintf("session rolling window: more than %d active session summaries", window)
		c.Changes = appendChanges(c.Changes, RecordChange{Date: now, Summary: "retired by the session rolling window", Field: "record_status", OldValue: StatusActive, NewValue: StatusRetired})
		c.UpdatedAt = now
		if _, err := s.write(&c); err != nil {
			return out, err
		}
		out = append(out, RetiredRef{Ref: c.Category + "/" + c.ID, Title: c.Title})
	}
	return out, nil
}

// SummaryRetentionDays is how long a session summary stays active
// without an update when its category sets no retention_days: a summary
// is of a stretch of work, and after three months it is history, not
// the project's state. (Set records.categories.session_summary.
// retention_days to keep them longer.) Other categories have none by
// default: a decision stays in force until it is changed.
const SummaryRetentionDays = 90

// RetentionDays is how many days without an update a category's active
// records stay active (0: for good).
func RetentionDays(p config.Records, category string) int {
	days := p.Categories[category].RetentionDays
	if days <= 0 && category == "session_summary" {
		return SummaryRetentionDays
	}
	return days
}

// Expired tells whether an active record has gone past its category's
// retention at now: GC retires it, and the start-up block leaves it out
// until then (a repository file is not rewritten without the person).
func Expired(r *Record, p config.Records, now time.Time) bool {
	days := RetentionDays(p, r.Category)
	t, err := time.Parse(time.RFC3339, r.UpdatedAt)
	return r.RecordStatus == StatusActive && days > 0 && err == nil && now.Sub(t) >= time.Duration(days)*24*time.Hour
}

// GCReport says what GC did (or, in a dry run, would do).
type GCReport struct {
	// Archived are retired records past their grace period, archived: kept
	// for good, never injected or recalled (ccmem record restore brings
	// one back); nothing is deleted.
	Archived []string `json:"archived"`
	// Expired are active records of a category with a retention, not
	// updated for that long: retired now.
	Expired []string `json:"expired"`
}

// GC retires the active records past their category's retention_days,
// then archives retired records whose grace period (grace_period_days) has
// passed. It deletes nothing.
func (s *Store) GC(dryRun bool) (GCReport, error) {
	rep := GCReport{Archived: []string{}, Expired: []string{}}
	unlock, err := s.lock()
	if err != nil {
		return rep, err
	}
	defer unlock()
	now := s.Env.Time()
	grace := time.Duration(s.Policy.GracePeriodDays) * 24 * time.Hour
	for _, rf := range List(s.Root) {
		r := rf.Record
		if r == nil || rf.Err != nil {
			continue
		}
		switch r.RecordStatus {
		case StatusActive:
			if !Expired(r, s.Policy, now) {
				continue
			}
			days := RetentionDays(s.Policy, r.Category)
			rep.Expired = append(rep.Expired, rf.Path)
			if !dryRun {
				c := *r
				stamp := s.stamp()
				reason := fmt.Sprintf("expired: not updated for %d days (records.categories.%s.retention_days)", days, r.Category)
				c.RecordStatus, c.RetiredAt, c.RetiredReason, c.UpdatedAt = StatusRetired, stamp, reason, stamp
				c.Changes = appendChanges(c.Changes, RecordChange{Date: stamp, Summary: "retired: " + reason, Field: "record_status", OldValue: StatusActive, NewValue: StatusRetired})
				if _, err := s.write(&c); err != nil {
					return rep, err
				}
			}
		case StatusRetired:
			t, err := time.Parse(time.RFC3339, r.RetiredAt)
			if err != nil || now.Sub(t) < grace {
				continue
			}
			rep.Archived = append(rep.Archived, rf.Path)
			if !dryRun {
				c := *r
				stamp := s.stamp()
				reason := fmt.Sprintf("retired for over %d days (records.grace_period_days)", s.Policy.GracePeriodDays)
				c.ArchivedAt, c.ArchivedReason, c.UpdatedAt = stamp, reason, stamp
				c.Changes = appendChanges(c.Changes, RecordChange{Date: stamp, Summary: "archived by gc: " + reason, Field: "record_status", OldValue: StatusRetired, NewValue: StatusArchived})
				c.RecordStatus = StatusArchived
				if _, err := s.write(&c); err != nil {
					return rep, err
				}
			}
		}
	}
	if len(rep.Archived) > 0 && !dryRun {
		return rep, s.writeIndex()
	}
	return rep, nil
}
