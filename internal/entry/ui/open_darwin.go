package ui

import "os/exec"

// openBrowser opens target (a local file or an address) in the default browser.
func openBrowser(target string) error { return exec.Command("open", target).Start() }
