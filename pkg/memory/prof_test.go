package memory

import (
	"context"
	"os"
	"runtime/debug"
	"testing"

	"github.com/ccmem/ccmem/pkg/store"
)

func BenchmarkPromptLarge(b *testing.B) {
	dir := os.Getenv("CCMEM_PROF_LARGE")
	if dir == "" {
		b.Skip("CCMEM_PROF_LARGE is not set")
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(1 << 40)
	e, _ := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return dir + "/home"
		}
		return ""
	})
	for i := 0; i < b.N; i++ {
		Prompt(context.Background(), e, PromptRequest{SessionID: "fresh", Cwd: dir + "/src/shop", Prompt: "how did we fix the payment retry timeout in the checkout client last time?"})
	}
}

// BenchmarkStart profiles a session start over a store kept by `make bench
// -keep` (CCMEM_PROF_STORE=/tmp/ccmem-bench-…/typical): the same session
// starting again, so that every run does the same work.
func BenchmarkStart(b *testing.B) {
	dir := os.Getenv("CCMEM_PROF_STORE")
	if dir == "" {
		b.Skip("CCMEM_PROF_STORE is not set")
	}
	e, _ := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return dir + "/home"
		}
		return ""
	})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Start(context.Background(), e, StartRequest{SessionID: "prof", Cwd: dir + "/src/shop", Source: "startup"})
	}
}
