package ui

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/uicommand"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// syncBuffer is a bytes.Buffer safe to read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPageStopsWithItsCommand: run by a ccmem that waits for it (Windows,
// where ccmem cannot become ccmem-ui), the server stops when that ccmem
// ends however it ends — here, the pipe it held as the server's stdin
// closes — and never outlives its command.
func TestPageStopsWithItsCommand(t *testing.T) {
	e := storetest.Env(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = stdin }()
	t.Setenv(uicommand.ParentPipeEnv, "1")
	env := map[string]string{"HOME": e.Home, "CCMEM_HOME": e.Store}
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	p := hookio.Process{Args: []string{"--no-open"}, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return env[k] }, Now: time.Now}
	go func() { done <- Main(p) }()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stdout.String(), "http://127.0.0.1:"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the page never started: %s", stderr.String())
		}
	}
	w.Close() // the parent is gone
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		proc, _ := os.FindProcess(os.Getpid())
		proc.Signal(os.Interrupt)
		<-done
		t.Fatal("the page went on serving after its command ended")
	}
}
