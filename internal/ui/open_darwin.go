package ui

import "os/exec"

// openBrowser opens url in the default browser.
func openBrowser(url string) error { return exec.Command("open", url).Start() }
