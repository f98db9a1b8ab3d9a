package hookio

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IsTerminal tells whether r is an interactive terminal (not merely a
// character device such as /dev/null).
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// IsTerminalOut tells whether w is a terminal (progress lines go there).
func IsTerminalOut(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
