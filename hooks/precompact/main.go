// Command precompact is ccmem's PreCompact hook: it records the session and
// asks the client's compaction to keep what matters. See internal/entry/hooks.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks"
)

func main() {
	hookio.TuneGC()
	os.Exit(hooks.PreCompact(hookio.OS()))
}
