// Command sessionstart is ccmem's SessionStart hook: it injects the user's
// memory into every Claude Code session. See internal/entry/hooks.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks"
)

func main() {
	hookio.TuneGC()
	os.Exit(hooks.SessionStart(hookio.OS()))
}
