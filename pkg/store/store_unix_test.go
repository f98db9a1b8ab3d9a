//go:build unix

// FIFOs and device files exist only on Unix.

package store_test

import (
	"errors"
	"os"
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
	go func() { _, err := store.ReadHead(fifo, store.Limits{Lines: 10, Chars: 100}); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, store.ErrNotRegular) {
			t.Fatalf("FIFO: err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadHead blocked on a FIFO")
	}
	if _, err := store.ReadHead("/dev/zero", store.Limits{Lines: 10, Chars: 100}); err == nil {
		t.Fatal("device: want an error")
	}
}

// A transcript replaced by another file has another FileID; the same file
// grown keeps it.
func TestFileIDTellsReplacedFromGrown(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	id := func() uint64 {
		f, fi, err := store.OpenRegular(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return store.FileID(f, fi)
	}
	if err := os.WriteFile(path, []byte("a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	first := id()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("b\n")
	f.Close()
	if id() != first || first == 0 {
		t.Fatalf("grown file: id %d, was %d", id(), first)
	}
	if err := store.WriteFileAtomic(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if id() == first {
		t.Fatal("a replaced file kept its id")
	}
}

// Lock files are private (0600) whatever the umask, and an older, looser
// one is made private.
func TestLockFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	unlock, err := store.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if fi, err := os.Stat(filepath.Join(dir, ".lock")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new lock file: %v %v", fi.Mode(), err)
	}
	os.Chmod(filepath.Join(dir, ".lock"), 0o666)
	unlock, err = store.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if fi, _ := os.Stat(filepath.Join(dir, ".lock")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("old lock file: %v", fi.Mode())
	}
}
