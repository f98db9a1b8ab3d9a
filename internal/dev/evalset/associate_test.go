package evalset

import (
	"fmt"
	"testing"
)

// TestReach: a question that shares no word with its answer is reached
// when one of its words co-occurs with one of the answer's in two of the
// person's sessions (and in few of them); a question that shares a word
// is no gap; a word that co-occurs with everything reaches nothing.
func TestReach(t *testing.T) {
	sessions := map[string]string{
		"ans": "she started pottery classes on tuesdays",
		"a":   "birthday gift ideas: maybe pottery tools",
		"b":   "the gift was a pottery wheel voucher",
	}
	for i := range 9 {
		sessions[fmt.Sprint("f", i)] = fmt.Sprintf("refactor the parser module %d and rerun the benchmarks", i)
	}
	if gap, reached, others := Reach("what gift would Ana like?", []string{"ans"}, sessions); !gap || !reached || others != 2 {
		t.Errorf("gift -> pottery: gap %v reached %v others %d, want true true 2", gap, reached, others)
	}
	if gap, _, _ := Reach("when are the pottery classes?", []string{"ans"}, sessions); gap {
		t.Error("a question sharing a word with its answer is a gap")
	}
	if _, reached, _ := Reach("rerun the benchmarks for Ana", []string{"ans"}, sessions); reached {
		t.Error("words the parser sessions share reached the pottery session")
	}
}
