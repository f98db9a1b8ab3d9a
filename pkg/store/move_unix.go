//go:build linux || darwin

package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// Mover renames files from one folder into another, by name, relative to
// the two open folders (renameat: no path to build or resolve per file,
// which counts when 100,000 episodes move at once).
type Mover struct {
	from, to *os.File
}

// OpenMover opens the two folders.
func OpenMover(fromDir, toDir string) (*Mover, error) {
	from, err := os.Open(fromDir)
	if err != nil {
		return nil, err
	}
	to, err := os.Open(toDir)
	if err != nil {
		from.Close()
		return nil, err
	}
	return &Mover{from, to}, nil
}

// Move moves the file name.
func (m *Mover) Move(name string) error {
	if err := unix.Renameat(int(m.from.Fd()), name, int(m.to.Fd()), name); err != nil {
		return &os.LinkError{Op: "rename", Old: name, New: name, Err: err}
	}
	return nil
}

// Close closes the folders.
func (m *Mover) Close() {
	m.from.Close()
	m.to.Close()
}
