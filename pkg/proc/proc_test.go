package proc

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// supported tells the systems that answer; elsewhere sessions end by idle
// time (orphan_after).
func supported(t *testing.T) {
	switch runtime.GOOS {
	case "linux", "darwin", "windows":
	default:
		t.Skip("no process status on " + runtime.GOOS + ": sessions end by idle time there")
	}
}

func TestSelfIsAlive(t *testing.T) {
	supported(t)
	self := Of(os.Getpid())
	if alive, known := self.Alive(); !known || !alive {
		t.Fatalf("this process: alive %v known %v", alive, known)
	}
	if self.Start == 0 {
		t.Fatal("no start time for this process")
	}
	// Another start time: the pid was reused by another process.
	if alive, known := (Info{PID: self.PID, Start: self.Start + 1}).Alive(); !known || alive {
		t.Fatalf("reused pid: alive %v known %v", alive, known)
	}
}

func TestUnknownProcesses(t *testing.T) {
	if _, known := (Info{}).Alive(); known {
		t.Fatal("no pid recorded, but liveness known")
	}
	// Above Linux's pid_max and macOS's and Windows' pid ranges.
	if alive, _ := (Info{PID: 1 << 22}).Alive(); alive {
		t.Fatal("a pid that cannot exist is alive")
	}
}

// A child that exited but was not waited for (a zombie on Unix, an exited
// process whose handle is still open on Windows) is gone.
func TestExitedUnreapedChildIsGone(t *testing.T) {
	supported(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	child := Of(cmd.Process.Pid)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		alive, known := child.Alive()
		if known && !alive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a killed, unreaped child is still alive (known %v)", known)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestIsShell(t *testing.T) {
	for name, want := range map[string]bool{"sh": true, "bash": true, "bash.exe": true, "pwsh.exe": true, "zsh": true, "claude": false, "node": false} {
		if isShell(name) != want {
			t.Errorf("isShell(%q) = %v", name, !want)
		}
	}
}
