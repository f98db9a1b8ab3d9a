package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/uicommand"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/session"
)

// Main is the ccmem-ui binary: `ccmem ui` runs it with its flags.
func Main(p hookio.Process) int {
	p.Args = append([]string{"ui"}, p.Args...)
	return command.Table{uicommand.New(Serve)}.Run(p, func(w io.Writer, _ int) {
		fmt.Fprintln(w, "usage: ccmem ui [--port N] [--no-open]")
	})
}

// Serve serves the page until the command is interrupted or terminated.
func Serve(c *command.Ctx, o uicommand.Options) error {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)))
	if err != nil {
		if o.Port != 0 {
			return command.WithHint(fmt.Errorf("cannot serve on 127.0.0.1:%d: %v", o.Port, unwrapOp(err)), "choose another --port, or leave it out for a free one")
		}
		return fmt.Errorf("cannot serve on 127.0.0.1: %v", unwrapOp(err))
	}
	s, err := New(c.Env, ln.Addr().(*net.TCPAddr).Port, ccmemCommand)
	if err != nil {
		ln.Close()
		return err
	}
	// The sessions that ended are episodes before the page shows them.
	_, _ = session.SettleAll(c, c.Env, nil)
	ctx, stop := signal.NotifyContext(c, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if os.Getenv(uicommand.ParentPipeEnv) == "1" {
		// Run by a ccmem that waits for it (Windows has no exec): when
		// that ccmem ends, however it ends, the pipe it holds closes, and
		// the page stops with it.
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          nil,
	}
	printed, err := s.URL()
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Fprintln(c.Stdout, printed)
	fmt.Fprintf(c.Stderr, "ccmem ui: showing %s; Ctrl-C stops it (the address opens the page once)\n", c.Env.Tilde(c.Env.Store))
	if o.Open {
		// The browser gets a file only this user can read, which sends it
		// on with a token of its own: an address in the opener's
		// arguments would be readable by every user of the machine.
		file, cleanup, err := s.launchFile()
		if err == nil {
			defer cleanup()
			time.AfterFunc(time.Minute, cleanup)
			err = openBrowser(file)
		}
		if err != nil {
			fmt.Fprintf(c.Stderr, "ccmem ui: could not open a browser (%v); open the address above\n", err)
		}
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Shutdown(shut)
	return nil
}

// launchFile writes a page, readable by this user alone, that sends the
// browser to a new address of the page; cleanup removes it.
func (s *Server) launchFile() (path string, cleanup func(), err error) {
	u, err := s.URL()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "ccmem-ui-")
	if err != nil {
		return "", nil, err
	}
	var once sync.Once
	cleanup = func() { once.Do(func() { os.RemoveAll(dir) }) }
	path = filepath.Join(dir, "open.html")
	page := "<!doctype html>\n<meta charset=\"utf-8\">\n<meta name=\"referrer\" content=\"no-referrer\">\n" +
		"<meta http-equiv=\"refresh\" content=\"0;url=" + u + "\">\n<title>ccmem</title>\n<a href=\"" + u + "\">Open ccmem</a>\n"
	if err := os.WriteFile(path, []byte(page), 0o600); err != nil {
		cleanup()
		return "", nil, err
	}
	return path, cleanup, nil
}

// ccmemCommand is how sessions run ccmem, as `ccmem show` says it: from the
// ccmem binary beside this one (a build, an archive) or the install's.
func ccmemCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return claudecode.CommandFor("")
	}
	if beside := filepath.Join(filepath.Dir(exe), claudecode.Exe("ccmem")); isFile(beside) {
		return claudecode.CommandFor(beside)
	}
	return claudecode.CommandFor(exe)
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}
