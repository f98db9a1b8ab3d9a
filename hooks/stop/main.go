// Command stop is ccmem's Stop hook: after every assistant turn it records
// what the session did in its checkpoint. See internal/hooks.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/hookio"
	"github.com/ccmem/ccmem/internal/hooks"
)

func main() {
	hookio.TuneGC()
	os.Exit(hooks.Stop(hookio.OS()))
}
