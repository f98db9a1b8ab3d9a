//go:build windows

package install

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/robustio"
)

// modesMatter: Windows has no execute bits; a file's content and name say
// whether it runs.
const modesMatter = false

// Executable tells whether an installed binary can run: a regular ".exe".
func Executable(fi os.FileInfo) bool {
	return fi.Mode().IsRegular() && strings.EqualFold(filepath.Ext(fi.Name()), ".exe")
}

// replaceExecutable puts tmp in place of to. Windows refuses to replace or
// delete the image of a running program, but lets it be renamed: so a
// running hook binary is first renamed aside (".<name>.old-<n>"), then the
// new one renamed into place. Asides of earlier installs are removed when
// nothing runs them any more.
func replaceExecutable(tmp, to string) error {
	dir, base := filepath.Dir(to), filepath.Base(to)
	olds, _ := filepath.Glob(filepath.Join(dir, "."+base+".old-*"))
	for _, o := range olds {
		_ = os.Remove(o) // fails while still running; tried again next time
	}
	if _, err := os.Stat(to); err == nil {
		aside, err := os.CreateTemp(dir, "."+base+".old-*")
		if err != nil {
			return err
		}
		aside.Close()
		os.Remove(aside.Name())
		if err := robustio.Rename(to, aside.Name()); err != nil {
			return err
		}
	}
	return robustio.Rename(tmp, to)
}
