package notes

import (
	"os"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestForgetLeavesNoEmptyHeading (broken 4): forgetting a section's last
// fact removes its heading too; a section with facts left keeps it.
func TestForgetLeavesNoEmptyHeading(t *testing.T) {
	e := storetest.Env(t)
	for _, c := range []struct{ before, fact, after string }{
		{"## Tools\n- fish shell\n\n## Food\n- likes ramen\n", "fish shell", "## Food\n- likes ramen\n"},
		{"## Tools\n- fish shell\n\n## Food\n- likes ramen\n", "likes ramen", "## Tools\n- fish shell\n"},
		{"# Memory\n\n## Tools\n- fish shell\n\n## Food\n- likes ramen\n\n## Work\n- Go\n", "likes ramen", "# Memory\n\n## Tools\n- fish shell\n\n## Work\n- Go\n"},
		{"## Tools\n- fish shell\n- tmux\n", "tmux", "## Tools\n- fish shell\n"},
	} {
		storetest.Mkfile(t, e.GlobalMemory(), c.before)
		if _, err := Forget(e, Global, store.Project{}, c.fact, "test"); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(e.GlobalMemory())
		if string(got) != c.after {
			t.Errorf("forget %q from\n%s\nleft\n%q\nwant\n%q", c.fact, c.before, got, c.after)
		}
		if strings.Contains(string(got), c.fact) {
			t.Errorf("%q is still there", c.fact)
		}
	}
}
