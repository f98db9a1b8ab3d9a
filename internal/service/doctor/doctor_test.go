package doctor

import (
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestEveryHookHasADryRun (issue 49, finding 4): doctor's dry runs are
// held to the hook list: each hook is tried (here its binary is missing,
// and doctor says so, by name), and none is passed over.
func TestEveryHookHasADryRun(t *testing.T) {
	d := &doctor{Options: Options{Env: storetest.Env(t), Prefix: t.TempDir(), Cwd: t.TempDir()}}
	d.dryRuns()
	for _, h := range claudecode.Hooks {
		found := false
		for _, c := range d.checks {
			if c.What == h.Binary+" dry run" {
				found = true
				if c.OK || !strings.Contains(c.Detail, "missing") {
					t.Errorf("%s: %+v", h.Binary, c)
				}
			}
		}
		if !found {
			t.Errorf("no dry run of %s", h.Binary)
		}
	}
}
