// Command ccmem-ui serves `ccmem ui`'s page; ccmem runs it (see
// internal/uicommand for why it is a binary of its own).
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/hookio"
	"github.com/ccmem/ccmem/internal/ui"
)

func main() { os.Exit(ui.Main(hookio.OS())) }
