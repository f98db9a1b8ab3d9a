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
		b.Skip()
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
