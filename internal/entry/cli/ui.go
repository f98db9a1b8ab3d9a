package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/uicommand"
	"github.com/ccmem/ccmem/pkg/claudecode"
)

// cmdUI hands `ccmem ui` to the ccmem-ui binary, found as the hooks are:
// beside ccmem, then in ../lib/ccmem.
var cmdUI = uicommand.New(func(c *command.Ctx, o uicommand.Options) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	dir := filepath.Dir(exe)
	var tried []string
	for _, d := range []string{dir, filepath.Join(dir, "..", "lib", "ccmem")} {
		p := filepath.Clean(filepath.Join(d, claudecode.Exe("ccmem-ui")))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return runHelper(p, o.Args)
		}
		tried = append(tried, p)
	}
	return command.WithHint(fmt.Errorf("ccmem-ui is not installed (looked for %s and %s)", tried[0], tried[1]),
		"reinstall ccmem (make build puts it in lib/ccmem; releases ship it beside ccmem)")
})
