package hookio

import (
	"bytes"
	"strings"
	"testing"
)

func TestContain(t *testing.T) {
	var stderr bytes.Buffer
	p := Process{Stderr: &stderr, Getenv: func(string) string { return "" }}
	code := Contain("sessionstart", p, false, func() int { panic("boom\nsecond line") })
	if code != 1 || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "sessionstart: internal error: boom second line") {
		t.Fatalf("panic: code %d, stderr %q", code, stderr.String())
	}
	if code := Contain("x", p, false, func() int { return 2 }); code != 1 {
		t.Fatalf("an undeliberate exit 2 became %d, want 1", code)
	}
	if code := Contain("stop", p, true, func() int { return 2 }); code != 2 {
		t.Fatalf("a deliberate block exit became %d", code)
	}
	stderr.Reset()
	p.Getenv = func(k string) string { return map[string]string{"CCMEM_DEBUG": "1"}[k] }
	Contain("stop", p, false, func() int { panic("boom") })
	if !strings.Contains(stderr.String(), "goroutine") {
		t.Fatalf("CCMEM_DEBUG (read through the process's Getenv) gives no trace: %q", stderr.String())
	}
}

func TestProblemsLine(t *testing.T) {
	var p Problems
	if p.Line("x") != "" {
		t.Fatal("no problems should make no line")
	}
	p.Addf("first\nproblem")
	p.Addf("second")
	p.Add(nil)
	if got := p.Line("sessionstart"); got != "sessionstart: first problem (and 1 more; run `ccmem show` for all)" {
		t.Fatalf("line %q", got)
	}
}
