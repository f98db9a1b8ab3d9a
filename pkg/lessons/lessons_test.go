package lessons

import (
	"fmt"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/session"
)

func TestConfidenceTiers(t *testing.T) {
	for n, want := range map[int]string{1: "Low", 2: "Low", 3: "Medium", 4: "Medium", 5: "High", 40: "High"} {
		if got := Confidence(n); got != want {
			t.Errorf("%d sessions: %s, want %s", n, got, want)
		}
	}
}

// TestAntigensNeedRecurrence: a signal in one session proposes nothing;
// in five it is a High-confidence candidate; automated runs do not count.
func TestAntigensNeedRecurrence(t *testing.T) {
	ep := func(i int, sig map[string]int, automated bool) session.SessionFile {
		c := &session.Checkpoint{SessionID: fmt.Sprint(i), Title: fmt.Sprint("s", i), Turns: 4, Automated: automated,
			StartedAt: time.Date(2026, 10, 1+i, 9, 0, 0, 0, time.UTC).Format(time.RFC3339)}
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
	if len(rep.Antigens) != 1 || rep.Antigens[0].Name != "antigen-no-repeated-failing-calls" || rep.Antigens[0].Confidence != "High" || rep.Antigens[0].Seen != 5 {
		t.Fatalf("antigens %+v", rep.Antigens)
	}
}
