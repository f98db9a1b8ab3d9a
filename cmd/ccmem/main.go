// Command ccmem is the command people and slash commands run to see, curate
// and install ccmem's memory for Claude Code. See pkg/cli.
package main

import (
	"os"

	"github.com/ccmem/ccmem/pkg/cli"
	"github.com/ccmem/ccmem/pkg/hookio"
)

func main() { os.Exit(cli.Main(hookio.OS())) }
