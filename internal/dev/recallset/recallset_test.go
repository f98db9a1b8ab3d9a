package recallset

import (
	"context"
	"testing"

	"github.com/ccmem/ccmem/pkg/config"
)

// TestPrecisionTargets: on every seeded corpus, with the default
// configuration, search ranks the answer first for at least 70% of the
// queries and among the first five for at least 90%, and per-prompt recall
// injects something for at most 5% of small-talk prompts. (Precision, not
// speed: the same bytes give the same ranks on every machine.)
func TestPrecisionTargets(t *testing.T) {
	for _, seed := range []int64{1, 2, 3, 4, 5} {
		s, err := Build(t.TempDir(), seed)
		if err != nil {
			t.Fatal(err)
		}
		if s.Memories < 200 || len(s.Cases) < 40 || len(s.SmallTalk) < 20 {
			t.Fatalf("corpus too small: %d memories, %d queries, %d small talk", s.Memories, len(s.Cases), len(s.SmallTalk))
		}
		kinds := map[string]bool{}
		for _, c := range s.Cases {
			kinds[c.Kind] = true
		}
		if len(kinds) != 7 {
			t.Fatalf("queries cover %d kinds, want all 7", len(kinds))
		}
		rep, err := Evaluate(context.Background(), s, Options(config.Default().Recall))
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Pass() {
			t.Errorf("seed %d: recall@1 %.3f (≥ %.2f), recall@5 %.3f (≥ %.2f), false injection %.3f (≤ %.2f)\n%v",
				seed, rep.RecallAt1, TargetRecallAt1, rep.RecallAt5, TargetRecallAt5, rep.FalseInjection, TargetFalseInjection, rep.Misses)
		}
	}
}
