package cli

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"

	"github.com/ccmem/ccmem/internal/entry/uicommand"
)

// runHelper runs the helper binary at path with this process's stdio and
// exits with its status (Windows has no exec; Ctrl-C reaches both
// processes of the console, so this one only waits for it).
func runHelper(path string, args []string) error {
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	// The helper's stdin is a pipe only this process holds: when it ends,
	// killed or not, the pipe closes and the helper stops serving.
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer w.Close()
	cmd.Stdin = r
	cmd.Env = append(os.Environ(), uicommand.ParentPipeEnv+"=1")
	signal.Ignore(os.Interrupt)
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	return err
}
