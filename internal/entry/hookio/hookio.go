// Package hookio is a ccmem process's plumbing: what it gets from the
// operating system (arguments, stdio, environment, clock), reading a hook's
// stdin as Claude Code sends it, and running a body so that it can never
// block the client by accident (no exit 2, no panic trace, one stderr
// line). What the client sends and expects is pkg/claudecode's.
package hookio

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Problems gathers what went wrong in a hook run; the hook reports them as
// one line on stderr, because the client shows only the first line.
type Problems struct{ list []string }

// Add records a problem; nil errors are ignored.
func (p *Problems) Add(err error) {
	if err != nil {
		p.list = append(p.list, err.Error())
	}
}

// Addf records a formatted problem.
func (p *Problems) Addf(format string, args ...any) {
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

// Line folds the problems into one line prefixed by the hook's name, or ""
// when there are none.
func (p *Problems) Line(name string) string {
	if len(p.list) == 0 {
		return ""
	}
	s := textfmt.OneLine(p.list[0])
	if n := len(p.list) - 1; n > 0 {
		s += fmt.Sprintf(" (and %d more; run `ccmem show` for all)", n)
	}
	return name + ": " + s
}

// Contain runs body and turns a panic into exit status 1 with one stderr line
// (a trace too when CCMEM_DEBUG is set), and any exit status 2 that body did
// not mean into 1: only a deliberate Stop block may exit 2, and hooks signal
// that through allow2.
func Contain(name string, p Process, allow2 bool, body func() int) (code int) {
	defer func() {
		if r := recover(); r != nil {
			if p.Getenv("CCMEM_DEBUG") != "" {
				fmt.Fprintf(p.Stderr, "%s: internal error: %v\n%s", name, r, debug.Stack())
			} else {
				fmt.Fprintf(p.Stderr, "%s: internal error: %v (set CCMEM_DEBUG=1 for a trace)\n", name, textfmt.OneLine(fmt.Sprint(r)))
			}
			code = 1
		}
		if code == 2 && !allow2 {
			code = 1
		}
	}()
	return body()
}

// ReadInput reads a hook's input (claudecode.ReadInput); a terminal on
// stdin is refused at once: the hook was run by hand.
func ReadInput(stdin io.Reader, deadline time.Time) (claudecode.Input, error) {
	if IsTerminal(stdin) {
		return claudecode.Input{}, errors.New("stdin is a terminal: this hook reads Claude Code's hook JSON on stdin")
	}
	return claudecode.ReadInput(stdin, deadline)
}
