// Command precompact is ccmem's PreCompact hook: it records the session and
// asks the client's compaction to keep what matters. See pkg/hooks.
package main

import (
	"os"

	"github.com/ccmem/ccmem/pkg/hookio"
	"github.com/ccmem/ccmem/pkg/hooks"
)

func main() { os.Exit(hooks.PreCompact(hookio.OS())) }
