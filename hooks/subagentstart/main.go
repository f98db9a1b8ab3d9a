// Command subagentstart is ccmem's SubagentStart hook: it gives a starting subagent a compact block of the user's standing rules. See internal/entry/hooks/tool.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks/tool"
)

func main() {
	hookio.TuneGC()
	os.Exit(tool.SubagentStart(hookio.OS()))
}
