// Command userpromptsubmit is ccmem's UserPromptSubmit hook: before the
// model sees a person's prompt, it adds what earlier sessions said that
// bears on it, and what triage found in this session's earlier turns. See
// internal/entry/hooks/prompt.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks/prompt"
)

func main() {
	hookio.TuneGC()
	os.Exit(prompt.UserPromptSubmit(hookio.OS()))
}
