package install

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/scripts"
)

// commandMarker marks slash command files that ccmem installed.
const commandMarker = "installed by ccmem"

// slashCommands are the slash commands install writes to the commands
// folder, as the plugin ships them: they run `ccmem` by name (the client
// puts an enabled plugin's bin/ on the Bash tool's PATH). Install writes
// them with the installed binary's full path instead (CommandFile), since
// its bin folder may not be on PATH.
var slashCommands = map[string][]byte{
	"learn.md":    scripts.LearnCommand,
	"remember.md": scripts.RememberCommand,
	"ccmem.md":    scripts.CcmemCommand,
	"friction.md": scripts.FrictionCommand,
	"forget.md":   scripts.ForgetCommand,
}

// legacyCommands are slash commands earlier versions installed under names
// since given up (/memory shadowed the client's own), as they installed
// them: install and uninstall remove them when unchanged.
var legacyCommands = map[string][]byte{
	"memory.md": scripts.LegacyMemoryCommand,
}

// SlashCommandNames are the names of the slash commands ccmem installs
// (without the slash).
func SlashCommandNames() []string {
	var names []string
	for _, n := range slices.Sorted(maps.Keys(slashCommands)) {
		names = append(names, strings.TrimSuffix(n, ".md"))
	}
	return names
}

// CommandFile is a slash command as install writes it: every `ccmem …` it
// runs or allows (a code span or an allowed-tools Bash rule opening with
// "ccmem ") names the binary ccmemPath, quoted for the shell if it must be.
func CommandFile(tmpl []byte, ccmemPath string) []byte {
	q := claudecode.ShellQuote(filepath.ToSlash(ccmemPath))
	out := bytes.ReplaceAll(tmpl, []byte("`ccmem "), []byte("`"+q+" "))
	return bytes.ReplaceAll(out, []byte("Bash(ccmem "), []byte("Bash("+q+" "))
}

// removeLegacyCommands removes the slash commands earlier versions
// installed under names ccmem gave up, when they are as installed; a
// changed one is left, with a note.
func removeLegacyCommands(rep *Report, o Options) error {
	for _, name := range slices.Sorted(maps.Keys(legacyCommands)) {
		path := filepath.Join(o.CommandsDir, name)
		old, err := os.ReadFile(path)
		switch {
		case err != nil:
			continue
		case !bytes.Equal(old, legacyCommands[name]):
			if bytes.Contains(old, []byte(commandMarker)) {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s, which an earlier ccmem installed, was changed since, so it was left; it shadows Claude Code's own /%s: remove it unless you want that", path, strings.TrimSuffix(name, ".md")))
			}
			continue
		}
		rep.Actions = append(rep.Actions, Action{"remove", path + " (an earlier ccmem's /" + strings.TrimSuffix(name, ".md") + ", which shadowed Claude Code's own)"})
		if !o.DryRun {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return nil
}
