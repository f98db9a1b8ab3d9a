package triage

import (
	"strings"
	"testing"
)

// BenchmarkScore is what triage adds to a turn's end: the new turns of a
// typical exchange (a prompt and a 2 KB answer), and of a long one (50 KB).
func BenchmarkScore(b *testing.B) {
	para := "We looked at the retry loop in the checkout client and the timeout it uses. " +
		"The tests pass now; the build was fixed by running codegen first because the generated files were stale. "
	for _, size := range []int{2 << 10, 50 << 10} {
		msgs := []Message{{Role: "user", Text: "why does the checkout retry time out?"},
			{Role: "assistant", Text: strings.Repeat(para, size/len(para)+1)[:size]}}
		b.Run(map[int]string{2 << 10: "2KB", 50 << 10: "50KB"}[size], func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				Score(msgs, Activity{ToolUses: 12, DistinctTools: 4, Exchanges: 1}, nil)
			}
		})
	}
}
