package cli

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
)

// runHelper runs the helper binary at path with this process's stdio and
// exits with its status (Windows has no exec; Ctrl-C reaches both
// processes of the console, so this one only waits for it).
func runHelper(path string, args []string) error {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signal.Ignore(os.Interrupt)
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	return err
}
