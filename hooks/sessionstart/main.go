// Command sessionstart is ccmem's SessionStart hook: it injects the user's
// memory into every Claude Code session. See internal/entry/hooks/start.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks/start"
)

func main() {
	hookio.TuneGC()
	os.Exit(start.SessionStart(hookio.OS()))
}
