//go:build !(linux || darwin)

package store

import (
	"os"
	"path/filepath"
)

// Mover renames files from one folder into another, by name.
type Mover struct {
	from, to string
}

// OpenMover checks that the two folders exist.
func OpenMover(fromDir, toDir string) (*Mover, error) {
	for _, d := range []string{fromDir, toDir} {
		if _, err := os.Stat(d); err != nil {
			return nil, err
		}
	}
	return &Mover{fromDir, toDir}, nil
}

// Move moves the file name.
func (m *Mover) Move(name string) error {
	return replace(filepath.Join(m.from, name), filepath.Join(m.to, name))
}

// Close does nothing here.
func (m *Mover) Close() {}
