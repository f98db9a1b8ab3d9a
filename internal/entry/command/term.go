package command

import (
	"os"

	"golang.org/x/term"
)

// Width is the width help is wrapped to: the terminal's when standard
// output is one, else 80.
func (c *Ctx) Width() int {
	if f, ok := c.Stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w >= 20 {
			return w
		}
	}
	return 80
}

// Color tells whether output may be coloured: standard output is a
// terminal (or CLICOLOR_FORCE is set, the common convention, which tests
// use) and NO_COLOR is unset or empty (https://no-color.org).
func (c *Ctx) Color() bool {
	if c.P.Getenv == nil || c.P.Getenv("NO_COLOR") != "" {
		return false
	}
	if v := c.P.Getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	f, ok := c.Stdout.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Red is s in bold red when output may be coloured, else s.
func (c *Ctx) Red(s string) string {
	if !c.Color() {
		return s
	}
	return "\x1b[1;31m" + s + "\x1b[0m"
}

// Green is s in green when output may be coloured, else s.
func (c *Ctx) Green(s string) string {
	if !c.Color() {
		return s
	}
	return "\x1b[32m" + s + "\x1b[0m"
}
