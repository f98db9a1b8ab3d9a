//go:build unix

// FIFOs and device files exist only on Unix.

package store_test

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
)

// A FIFO is neither read nor waited on, nor is a device.
func TestReadHeadRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := store.ReadHead(fifo, 10, 100); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, store.ErrNotRegular) {
			t.Fatalf("FIFO: err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadHead blocked on a FIFO")
	}
	if _, err := store.ReadHead("/dev/zero", 10, 100); err == nil {
		t.Fatal("device: want an error")
	}
}
