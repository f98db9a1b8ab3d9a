package ui

import "os/exec"

// openBrowser opens target (a local file or an address) in the default browser (rundll32 takes it as one
// argument, where cmd /c start would parse its & characters).
func openBrowser(target string) error {
	return exec.Command("rundll32", "url.dll,FileProtocolHandler", target).Start()
}
