// Command sessionstart is ccmem's SessionStart hook: it injects the user's
// memory into every Claude Code session. See pkg/hooks.
package main

import (
	"os"

	"github.com/ccmem/ccmem/pkg/hookio"
	"github.com/ccmem/ccmem/pkg/hooks"
)

func main() { os.Exit(hooks.SessionStart(hookio.OS())) }
