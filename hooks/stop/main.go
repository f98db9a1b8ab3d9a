// Command stop is ccmem's Stop hook: after every assistant turn it records
// what the session did in its checkpoint. See pkg/hooks.
package main

import (
	"os"

	"github.com/ccmem/ccmem/pkg/hookio"
	"github.com/ccmem/ccmem/pkg/hooks"
)

func main() { os.Exit(hooks.Stop(hookio.OS())) }
