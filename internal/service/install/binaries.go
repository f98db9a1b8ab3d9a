package install

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// ErrNoHookBinary is returned when the hook binaries are not beside ccmem
// (or in its install's lib/ccmem).
var ErrNoHookBinary = errors.New("hook binary missing")

// missingBinary says which hook binary is missing and where it was looked for.
type missingBinary struct{ name, tried string }

func (e missingBinary) Error() string {
	return fmt.Sprintf("cannot find ccmem's %s binary (looked at %s)", e.name, e.tried)
}

func (missingBinary) Is(target error) bool { return target == ErrNoHookBinary }

// Helpers are the binaries installed beside the hooks that are not hooks:
// ccmem-ui serves `ccmem ui` (see internal/entry/uicommand).
var Helpers = []string{"ccmem-ui"}

// libNames lists the file names of the binaries in lib/ccmem: the hooks,
// then the helpers.
func libNames() []string {
	var out []string
	for _, h := range claudecode.Hooks {
		out = append(out, claudecode.Exe(h.Binary))
	}
	for _, h := range Helpers {
		out = append(out, claudecode.Exe(h))
	}
	return out
}

// sources finds the binaries to install: ccmem itself and each hook, beside
// it (a build's bin/) or in ../lib/ccmem (an installed ccmem).
func sources(exe string) (map[string]string, error) {
	out := map[string]string{claudecode.Exe("ccmem"): exe}
	dir := filepath.Dir(exe)
	for _, name := range libNames() {
		var tried []string
		for _, d := range []string{dir, filepath.Join(dir, "..", "lib", "ccmem")} {
			p := filepath.Clean(filepath.Join(d, name))
			tried = append(tried, p)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				out[name] = p
				break
			}
		}
		if out[name] == "" {
			return nil, missingBinary{name, joinOr(tried)}
		}
	}
	return out, nil
}

func joinOr(s []string) string {
	if len(s) == 2 {
		return s[0] + " and " + s[1]
	}
	return fmt.Sprint(s)
}

// sameContent tells whether to already holds exactly from's bytes (or is
// from itself).
func sameContent(from, to string) (bool, error) {
	fa, err := os.Stat(from)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(to)
	if err != nil {
		return false, nil
	}
	if os.SameFile(fa, fb) {
		return true, nil
	}
	if fa.Size() != fb.Size() || !Executable(fb) {
		return false, nil
	}
	a, err := os.ReadFile(from)
	if err != nil {
		return false, err
	}
	b, err := os.ReadFile(to)
	if err != nil {
		return false, nil
	}
	return bytes.Equal(a, b), nil
}

// copyExecutable installs from at to through a temporary file and a rename,
// so a running copy of the old binary is never overwritten in place.
func copyExecutable(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(to), "."+filepath.Base(to)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return replaceExecutable(tmp.Name(), to)
}
