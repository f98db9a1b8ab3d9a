package lessons

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

func TestConfidenceTiers(t *testing.T) {
	for n, want := range map[int]string{1: "Low", 2: "Low", 3: "Medium", 4: "Medium", 5: "High", 40: "High"} {
		if got := Confidence(n); got != want {
			t.Errorf("%d sessions: %s, want %s", n, got, want)
		}
	}
}

// TestRulesNeedRecurrence: a signal in one session proposes nothing;
// in five it is a High-confidence candidate; automated runs do not count.
func TestRulesNeedRecurrence(t *testing.T) {
	ep := func(i int, sig map[string]int, automated bool) session.SessionFile {
		c := &session.Checkpoint{Record: checkpoint.Record{SessionID: fmt.Sprint(i), Title: fmt.Sprint("s", i), Turns: 4, Automated: automated,
			StartedAt: time.Date(2026, 10, 1+i, 9, 0, 0, 0, time.UTC).Format(time.RFC3339)}}
		c.Friction = friction.Result{Signals: sig, Score: 8 * float64(sig["tool_loop"]), Class: friction.Class(8*float64(sig["tool_loop"]), sig)}
		return session.SessionFile{Path: fmt.Sprintf("/e/%d.json", i), Record: c}
	}
	var eps []session.SessionFile
	eps = append(eps, ep(0, map[string]int{"false_success": 1}, false))
	for i := 1; i <= 5; i++ {
		eps = append(eps, ep(i, map[string]int{"tool_loop": 2}, false))
	}
	for i := 6; i <= 9; i++ {
		eps = append(eps, ep(i, map[string]int{"false_success": 1}, true))
	}
	rep := Analyze(eps, time.Time{})
	if rep.Automated != 4 || rep.Sessions != 6 {
		t.Fatalf("sessions %d, automated %d", rep.Sessions, rep.Automated)
	}
	if len(rep.Rules) != 1 || rep.Rules[0].Name != "no-repeated-failing-calls" || rep.Rules[0].Pattern != "signal:tool_loop" || rep.Rules[0].Confidence != "High" || rep.Rules[0].Seen != 5 {
		t.Fatalf("rules %+v", rep.Rules)
	}
}

// TestRulesAreRegraded: a rule's confidence follows the evidence at every
// report (proposed on three sessions, recounted at five), its name is the
// project's own (two projects' rules never collide), and an accepted rule
// that bears on no call in RetireAfter sessions goes back to review,
// proposed for retirement, no longer applied.
func TestRulesAreRegraded(t *testing.T) {
	e := storetest.Env(t)
	shop := filepath.Join(storetest.RealDir(t), "shop")
	other := filepath.Join(storetest.RealDir(t), "other", "shop")
	if Prefix(shop) == Prefix(other) {
		t.Fatalf("two projects named shop share a rule prefix %q", Prefix(shop))
	}
	day := func(i int) time.Time { return time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC).AddDate(0, 0, i) }
	ep := func(i int, loop bool) session.SessionFile {
		sig := map[string]int{}
		if loop {
			sig["tool_loop"] = 2
		}
		c := &session.Checkpoint{Record: checkpoint.Record{SessionID: fmt.Sprint(i), Title: fmt.Sprint("s", i), Turns: 4, StartedAt: day(i).Format(time.RFC3339)}}
		c.Friction = friction.Result{Signals: sig, Score: 8 * float64(sig["tool_loop"]), Class: friction.Class(8*float64(sig["tool_loop"]), sig)}
		return session.SessionFile{Path: fmt.Sprintf("/e/%d.json", i), Record: c}
	}
	var eps []session.SessionFile
	for i := range 3 {
		eps = append(eps, ep(i, true))
	}
	e.Now = func() time.Time { return day(3) }
	props, err := Propose(e, shop, Analyze(eps, time.Time{}).Rules)
	if err != nil || len(props) != 1 || props[0].State != "proposed" {
		t.Fatalf("propose: %+v %v", props, err)
	}
	name := props[0].Name
	if !strings.HasPrefix(name, Prefix(shop)+"-") {
		t.Fatalf("the rule's name %q is not the project's", name)
	}
	pending := filepath.Join(e.ReviewDir(), name+".md")
	grep := func(path, want string) bool {
		data, _ := os.ReadFile(path)
		return strings.Contains(string(data), want)
	}
	if !grep(pending, "confidence: Medium") || !grep(pending, "seen_in_sessions: 3") {
		t.Fatalf("proposed on 3 sessions:\n%s", must(os.ReadFile(pending)))
	}
	// Two more sessions agree: the pending rule is recounted.
	eps = append(eps, ep(4, true), ep(5, true))
	got, err := Regrade(e, shop, eps)
	if err != nil || len(got) != 1 || got[0].Change != "recounted" || got[0].Confidence != "High" {
		t.Fatalf("regrade: %+v %v", got, err)
	}
	if !grep(pending, "confidence: High") || !grep(pending, "seen_in_sessions: 5") {
		t.Fatalf("recounted:\n%s", must(os.ReadFile(pending)))
	}
	// Another project's report leaves it alone.
	if got, _ := Regrade(e, other, nil); len(got) != 0 {
		t.Fatalf("another project's report changed shop's rule: %+v", got)
	}
	// Accepted; then sessions in which it bears on no call: after
	// RetireAfter of them it goes back to review, proposed for retirement.
	items, _ := learn.Pending(e)
	it, _ := learn.Find(items, name)
	accepted, err := learn.Accept(e, it, "cli")
	if err != nil {
		t.Fatal(err)
	}
	if !grep(accepted, `accepted_at: "2026-10-04T09:00:00Z"`) {
		t.Fatalf("the accepted rule has no acceptance time:\n%s", must(os.ReadFile(accepted)))
	}
	for i := range RetireAfter - 3 { // days 4 and 5 came after the acceptance too
		eps = append(eps, ep(10+i, false))
	}
	if got, _ := Regrade(e, shop, eps); len(got) != 0 {
		t.Fatalf("retired before %d sessions: %+v", RetireAfter, got)
	}
	eps = append(eps, ep(10+RetireAfter, false))
	got, err = Regrade(e, shop, eps)
	if err != nil || len(got) != 1 || got[0].Change != "faded" {
		t.Fatalf("after %d sessions: %+v %v", RetireAfter, got, err)
	}
	if _, err := os.Stat(accepted); err == nil {
		t.Fatal("a rule proposed for retirement is still applied")
	}
	if !grep(pending, "faded: ") || !grep(pending, "proposed for retirement") || !grep(pending, "scope: project") {
		t.Fatalf("the rule in review:\n%s", must(os.ReadFile(pending)))
	}
}

func must(data []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	return string(data)
}
