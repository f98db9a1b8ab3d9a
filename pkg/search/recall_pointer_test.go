package search

import "testing"

// TestPercentReadsRight (issue 51, finding 4): a share short of the bar
// never reads as equal to it ("10%, needs 10%").
func TestPercentReadsRight(t *testing.T) {
	o := RecallOptions{MinMatched: 0.1}
	got := o.short(Hit{Evidence: 9, Score: 9, Share: 0.096}, 3, 1)
	if got != "holds too small a part of the prompt's telling words (9.6%, needs 10.0%)" {
		t.Errorf("%q", got)
	}
	if got := o.short(Hit{Evidence: 9, Score: 9, Share: 0.04}, 3, 1); got != "holds too small a part of the prompt's telling words (4%, needs 10%)" {
		t.Errorf("%q", got)
	}
}
