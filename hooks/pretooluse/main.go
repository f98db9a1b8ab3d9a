// Command pretooluse is ccmem's PreToolUse hook: before a command runs or a file is written, it adds the user's standing rules that bear on it. See internal/entry/hooks/tool.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks/tool"
)

func main() {
	hookio.TuneGC()
	os.Exit(tool.PreToolUse(hookio.OS()))
}
