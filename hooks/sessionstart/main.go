// Command sessionstart is ccmem's SessionStart hook: it injects the user's
// memory into every Claude Code session. See internal/hooks.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/hookio"
	"github.com/ccmem/ccmem/internal/hooks"
)

func main() {
	hookio.TuneGC()
	os.Exit(hooks.SessionStart(hookio.OS()))
}
