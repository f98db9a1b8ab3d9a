// Package uicommand is the `ccmem ui` command's flags and help, shared by
// the ccmem binary (which hands the command to the ccmem-ui binary beside
// it) and ccmem-ui (which serves the page): the web server lives in its own
// binary so that ccmem, which the status line runs after every turn, does
// not start the HTTP and template packages' initialisation each time.
package uicommand

import (
	"flag"

	"github.com/ccmem/ccmem/internal/entry/command"
)

// Options are what `ccmem ui` was asked.
type Options struct {
	Port int  // 0: a free port
	Open bool // open the default browser
	// Args are the flags as given, for handing the command on.
	Args []string
}

// New is the command, running serve with the options parsed.
func New(serve func(c *command.Ctx, o Options) error) *command.Command {
	return &command.Command{
		Name: "ui", Args: "[--port N] [--no-open]",
		Summary: "show memory in a local page: each project's next block, sessions, friction, search, review",
		Help: `Serves a page on 127.0.0.1 and opens it in the browser: every project with
its size, last session, sessions per week and friction mix; for a project,
the exact block its next session gets (what ` + "`ccmem show`" + ` prints) with each
section's share of the budget drawn, its sessions as a timeline opening to
each digest, its records, repository memory and briefing; friction over
time as a chart; search across everything (as ` + "`ccmem search --all-projects`" + `);
learned memories with their provenance, the pending review items to accept
or reject, and forget with a reason — each change asked for twice.

The first line printed is the page's address, with a random token that
opens it once; the browser is handed a private file with a token of its
own (an address in a program's arguments is readable by every user of the
machine). Only the browser that opened an address gets in, through a
cookie scoped to the page's own secret path (so no other local server the
browser visits ever receives it), and only on this machine: requests for
another host name, from another site or without the token are refused. Nothing is read or written outside ccmem's
store and its projects. It runs until Ctrl-C (or SIGTERM).`,
		Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
			port := fs.Int("port", 0, "serve on this `port` of 127.0.0.1 (default: a free one)")
			noOpen := fs.Bool("no-open", false, "only print the address; do not open a browser")
			return func(c *command.Ctx, args []string) error {
				if err := command.NoArgs(fs, args); err != nil {
					return err
				}
				if *port < 0 || *port > 65535 {
					return command.Usagef("a port from 1 to 65535, or 0 for a free one", "--port %d is not a port", *port)
				}
				o := Options{Port: *port, Open: !*noOpen}
				fs.Visit(func(f *flag.Flag) { o.Args = append(o.Args, "--"+f.Name+"="+f.Value.String()) })
				return serve(c, o)
			}
		},
	}
}

// ParentPipeEnv, set to "1", tells ccmem-ui that the ccmem which started it
// holds its stdin open while it runs: the page stops when stdin ends (the
// parent ended, even killed), so no server outlives its command.
const ParentPipeEnv = "CCMEM_UI_PARENT_PIPE"
