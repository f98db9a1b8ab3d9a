// Command posttoolusefailure is ccmem's PostToolUseFailure hook: after a tool call fails, it adds what fixed the same error in an earlier session. See internal/entry/hooks/tool.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks/tool"
)

func main() {
	hookio.TuneGC()
	os.Exit(tool.PostToolUseFailure(hookio.OS()))
}
