package triage

import "testing"

func cats(hits []Hit) string {
	s := ""
	for _, h := range hits {
		s += h.Category + " "
	}
	return s
}

func TestScore(t *testing.T) {
	tests := []struct {
		name string
		msgs []string
		act  Activity
		want string
	}{
		{"decision with rationale", []string{"We decided to use Postgres because it already runs everywhere."}, Activity{}, "decision "},
		{"decision without rationale stays under", []string{"We decided to use Postgres."}, Activity{}, ""},
		{"rationale alone is nothing", []string{"Because it is faster."}, Activity{}, ""},
		{"two decisions", []string{"We chose gRPC over REST. We will go with protobuf."}, Activity{}, "decision "},
		{"runbook", []string{"The root cause was a stale lock; the fix was to remove it after the crash."}, Activity{}, "runbook "},
		{"constraint", []string{"The API cannot take more than 100 items; it is a hard limit, always."}, Activity{}, "constraint "},
		{"tech debt", []string{"This is a hack for now, we should come back to it later."}, Activity{}, "tech_debt "},
		{"preference", []string{"I prefer table-driven tests, never one-off functions."}, Activity{}, "preference "},
		{"busy session", nil, Activity{ToolUses: 20, DistinctTools: 5, Exchanges: 2}, "session_summary "},
		{"quiet session", nil, Activity{ToolUses: 3, DistinctTools: 2, Exchanges: 1}, ""},
		{"small talk", []string{"Hello! How can I help?", "thanks"}, Activity{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msgs []Message
			for _, m := range tt.msgs {
				msgs = append(msgs, Message{Role: "assistant", Text: m})
			}
			if got := cats(Score(msgs, tt.act, nil)); got != tt.want {
				t.Fatalf("fired %q, want %q", got, tt.want)
			}
		})
	}
	hits := Score([]Message{{Text: "We decided to use Postgres because it runs everywhere."}}, Activity{}, nil)
	if hits[0].Score != 0.6 || hits[0].Excerpt != "We decided to use Postgres because it runs everywhere" {
		t.Fatalf("%+v", hits[0])
	}
	// Thresholds come from config.
	if got := cats(Score([]Message{{Text: "We decided to use Postgres."}}, Activity{}, map[string]float64{"decision": 0.3})); got != "decision " {
		t.Fatalf("lowered threshold: %q", got)
	}
}
