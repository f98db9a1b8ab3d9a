package install

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/docblock"
)

var numbers = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}

// TestDocsNameWhatInstallCopies (issue 49, finding 4): docs/install.md
// says how many binaries install copies and which, and which slash
// commands it writes, as this package does.
func TestDocsNameWhatInstallCopies(t *testing.T) {
	var hooks []string
	for _, h := range claudecode.Hooks {
		hooks = append(hooks, "`"+h.Binary+"`")
	}
	var helpers []string
	for _, h := range Helpers {
		helpers = append(helpers, "`"+h+"`")
	}
	n := 1 + len(Helpers) + len(hooks)
	docblock.Check(t, "../../../docs/install.md", "binaries", fmt.Sprintf("ccmem is %s small binaries: `ccmem` (the command), %s (the page `ccmem ui` serves) and\n%s hooks (%s) that Claude Code runs.",
		numbers[n], strings.Join(helpers, ", "), numbers[len(hooks)], strings.Join(hooks, ", ")))
	var cmds []string
	for _, c := range SlashCommandNames() {
		cmds = append(cmds, "`/"+c+"`")
	}
	docblock.Check(t, "../../../docs/install.md", "slash-commands", strings.Join(cmds[:len(cmds)-1], ", ")+" and "+cmds[len(cmds)-1])
}
