package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A full disk: the write fails half-way; the old file stays whole, no
// temporary file is left, the error says why, and the session still gets
// its memory block.
func TestFaultNoSpaceLeft(t *testing.T) {
	w := newCaptureWorld(t)
	mkfile(t, w.e.GlobalMemory(), "- global fact\n")
	appendFile(t, w.tr, []byte(`{"type":"user","message":{"role":"user","content":"first"}}`+"\n"))
	before := w.capture(t, "s1")
	old, err := os.ReadFile(w.e.CheckpointPath(w.p.Key, "s1"))
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, w.tr, []byte(`{"type":"user","message":{"role":"user","content":"second"}}`+"\n"))
	writeFault = func(string) error { return syscall.ENOSPC }
	defer func() { writeFault = nil }()

	_, err = Capture(context.Background(), w.e, CaptureRequest{SessionID: "s1", TranscriptPath: w.tr, Cwd: w.repo})
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("err = %v", err)
	}
	if now, _ := os.ReadFile(w.e.CheckpointPath(w.p.Key, "s1")); string(now) != string(old) || before.Turns != 1 {
		t.Fatal("the checkpoint changed though its write failed")
	}
	filepath.Walk(w.e.Store, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.Contains(fi.Name(), ".tmp-") {
			t.Errorf("partial file left: %s", p)
		}
		return nil
	})

	inj := Start(context.Background(), w.e, StartRequest{Cwd: w.repo, SessionID: "s2", TranscriptPath: w.tr + "2"})
	if !strings.Contains(inj.Block.Text, "- global fact") {
		t.Fatalf("no block on a full disk:\n%s", inj.Block.Text)
	}
	if len(inj.Warnings) == 0 || !strings.Contains(strings.Join(inj.Warnings, "; "), "no space left on device") {
		t.Fatalf("warnings %q", inj.Warnings)
	}
}
