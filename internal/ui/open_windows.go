package ui

import "os/exec"

// openBrowser opens url in the default browser (rundll32 takes the URL as
// one argument, where cmd /c start would parse its & characters).
func openBrowser(url string) error {
	return exec.Command("rundll32", "url.dll,FileProtocolHandler", url).Start()
}
