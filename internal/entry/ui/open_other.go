//go:build !darwin && !windows

package ui

import (
	"errors"
	"os/exec"
)

// openBrowser opens target (a local file or an address) in the default browser through xdg-open (or
// $BROWSER's conventional fallbacks when there is no desktop).
func openBrowser(target string) error {
	for _, cmd := range []string{"xdg-open", "sensible-browser", "x-www-browser"} {
		if p, err := exec.LookPath(cmd); err == nil {
			c := exec.Command(p, target)
			if err := c.Start(); err != nil {
				return err
			}
			go c.Wait()
			return nil
		}
	}
	return errors.New("no xdg-open on PATH")
}
