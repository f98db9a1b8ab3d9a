// Command pretooluse is ccmem's PreToolUse hook: before a command runs or a file is written, it adds the user's standing rules that bear on it. See internal/hooks.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/hookio"
	"github.com/ccmem/ccmem/internal/hooks"
)

func main() {
	hookio.TuneGC()
	os.Exit(hooks.PreToolUse(hookio.OS()))
}
