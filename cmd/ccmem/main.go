// Command ccmem is the command people and slash commands run to see, curate
// and install ccmem's memory for Claude Code. See internal/entry/cli.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/cli"
	"github.com/ccmem/ccmem/internal/entry/hookio"
)

func main() { os.Exit(cli.Main(hookio.OS())) }
