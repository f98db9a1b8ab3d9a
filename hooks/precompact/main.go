// Command precompact is ccmem's PreCompact hook: it records the session and
// asks the client's compaction to keep what matters. See internal/entry/hooks/capture.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks/capture"
)

func main() {
	hookio.TuneGC()
	os.Exit(capture.PreCompact(hookio.OS()))
}
