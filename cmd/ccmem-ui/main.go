// Command ccmem-ui serves `ccmem ui`'s page; ccmem runs it (see
// internal/entry/uicommand for why it is a binary of its own).
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/ui"
)

func main() { os.Exit(ui.Main(hookio.OS())) }
