package install

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// oldStatusLineScript is the status line script earlier versions installed
// in LibDir; uninstall still removes it.
const oldStatusLineScript = "statusline.sh"

// StatusLineCommand is the status line command for the ccmem binary at
// path: it runs through the client's shell (statusLine has no exec form),
// which on Windows is Git Bash or PowerShell: there the path is written
// with forward slashes, which both read the same, unquoted when it can be.
func StatusLineCommand(path string) string {
	if runtime.GOOS == "windows" {
		path = filepath.ToSlash(path)
		if strings.ContainsAny(path, " '\"$`") {
			return `"` + path + `" status --line`
		}
		return path + " status --line"
	}
	return claudecode.ShellQuote(path) + " status --line"
}

// OwnedStatusLine recognises ccmem's status line command: ccmem's
// `status --line`, or the script earlier versions installed.
func OwnedStatusLine(cmd string) bool {
	if claudecode.OwnedBy("ccmem", oldStatusLineScript)(cmd) {
		return true
	}
	bin, ok := strings.CutSuffix(strings.TrimSpace(cmd), " status --line")
	if !ok {
		return false
	}
	base := filepath.Base(claudecode.CommandPath(bin))
	return base == "ccmem" || base == "ccmem.exe"
}

// StatusLinePath is the ccmem binary an owned status line command runs, or
// "" for the old script.
func StatusLinePath(cmd string) string {
	if bin, ok := strings.CutSuffix(strings.TrimSpace(cmd), " status --line"); ok {
		return claudecode.CommandPath(bin)
	}
	return claudecode.CommandPath(cmd)
}

// statusLineNote tells a user with a status line of their own how to show
// ccmem's line in it.
func statusLineNote(foreign, ccmem string) string {
	return fmt.Sprintf("you already have a status line (%s); ccmem left it as it is. To show the memory backlog in it, print the output of `%s`",
		foreign, StatusLineCommand(ccmem))
}
