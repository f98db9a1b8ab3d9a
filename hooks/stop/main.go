// Command stop is ccmem's Stop hook: after every assistant turn it records
// what the session did in its checkpoint. See internal/entry/hooks/capture.
package main

import (
	"os"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks/capture"
)

func main() {
	hookio.TuneGC()
	os.Exit(capture.Stop(hookio.OS()))
}
