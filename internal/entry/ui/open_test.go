//go:build !windows

package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestNoTokenInAnyArguments: ccmem ui opens the browser with a file, never
// with the address: every user of the machine can read a process's
// arguments (/proc/<pid>/cmdline, ps), and the address opens the page.
// A fake browser opener on PATH records what it was given. (Unix only: on
// Windows the opener is rundll32, found by its full name.)
func TestNoTokenInAnyArguments(t *testing.T) {
	e := storetest.Env(t)
	bin := t.TempDir()
	seen := filepath.Join(t.TempDir(), "argv")
	opener := "xdg-open"
	if runtime.GOOS == "darwin" {
		opener = "open"
	}
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + seen + ".tmp'\nfor f; do [ -f \"$f\" ] && cat \"$f\" >> '" + seen + ".tmp'; done\nmv '" + seen + ".tmp' '" + seen + "'\n"
	if err := os.WriteFile(filepath.Join(bin, opener), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin") // the opener is looked up on the process's PATH
	env := map[string]string{"HOME": e.Home, "CCMEM_HOME": e.Store}
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	p := hookio.Process{Args: []string{}, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return env[k] }, Now: time.Now}
	go func() { done <- Main(p) }()
	var argv []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(seen); err == nil {
			argv = data
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the browser was never opened; stderr: %s", stderr.String())
		}
	}
	proc, _ := os.FindProcess(os.Getpid())
	proc.Signal(os.Interrupt)
	<-done
	args, page, _ := strings.Cut(string(argv), "<!doctype html>")
	if strings.Contains(args, "token") || strings.Contains(args, "http") {
		t.Fatalf("the opener's arguments hold the address: %q", args)
	}
	if !strings.Contains(page, "/?token=") {
		t.Fatalf("the file handed to the browser does not open the page: %q", page)
	}
	printed := strings.TrimSpace(stdout.String())
	if i := strings.Index(page, "/?token="); i < 0 || strings.Contains(printed, page[i:i+len("/?token=")+64]) {
		t.Fatalf("the printed address and the browser's are the same token (each opens the page once)")
	}
}
