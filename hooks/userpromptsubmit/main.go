// Command userpromptsubmit is ccmem's UserPromptSubmit hook: before the
// model sees a prompt, it adds what triage found in the session's earlier
// turns. See internal/hooks.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/hookio"
	"github.com/ccmem/ccmem/internal/hooks"
)

func main() {
	hookio.TuneGC()
	os.Exit(hooks.UserPromptSubmit(hookio.OS()))
}
