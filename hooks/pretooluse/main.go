// Command pretooluse is ccmem's PreToolUse hook: before a command runs or a file is written, it adds the user's standing rules that bear on it. See internal/entry/hooks.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks"
)

func main() {
	hookio.TuneGC()
	os.Exit(hooks.PreToolUse(hookio.OS()))
}
