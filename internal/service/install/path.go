package install

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// OnPath finds the ccmem a shell would run, given the PATH value: the
// first executable ccmem in its folders, or "".
func OnPath(pathEnv string) string {
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, claudecode.Exe("ccmem"))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0) {
			return p
		}
	}
	return ""
}

// PathProblem says what is wrong with running the ccmem installed at
// installed by name, given PATH and the user's shell (its path, from
// SHELL) and home folder: "" when `ccmem` runs it; else the problem and
// how to fix it.
func PathProblem(installed, pathEnv, shell, home string) string {
	found := OnPath(pathEnv)
	if found != "" && (filepath.Clean(found) == filepath.Clean(installed) || sameFile(found, installed)) {
		return ""
	}
	dir := filepath.Dir(installed)
	if found == "" && onList(pathEnv, dir) {
		return "" // not installed yet (a dry run): PATH will find it
	}
	if found != "" {
		return "`ccmem` runs " + found + ", not the installed " + installed + "; put " + dir + " first on your PATH, or remove the other one"
	}
	return dir + " is not on your PATH, so `ccmem` is not found by name (the slash commands and hooks use its full path); " + PathFix(dir, shell, home)
}

// PathFix is the advice that puts dir on PATH for the user's shell (its
// path, from SHELL); a dir under home is written with $HOME.
func PathFix(dir, shell, home string) string {
	if runtime.GOOS == "windows" {
		return "add " + dir + " to your user Path (Settings › System › About › Advanced system settings › Environment Variables), then open a new terminal"
	}
	quoted := strings.ReplaceAll(dir, `"`, `\"`)
	if home != "" {
		if rest, ok := strings.CutPrefix(dir, home+string(filepath.Separator)); ok {
			quoted = "$HOME/" + strings.ReplaceAll(rest, `"`, `\"`)
		}
	}
	switch filepath.Base(shell) {
	case "fish":
		return "run: fish_add_path " + claudecode.ShellQuote(dir)
	case "zsh":
		return `run: echo 'export PATH="` + quoted + `:$PATH"' >> ~/.zshrc, then open a new terminal`
	case "bash":
		rc := "~/.bashrc"
		if runtime.GOOS == "darwin" {
			rc = "~/.bash_profile"
		}
		return `run: echo 'export PATH="` + quoted + `:$PATH"' >> ` + rc + `, then open a new terminal`
	}
	return `add export PATH="` + quoted + `:$PATH" to your shell's startup file, then open a new terminal`
}

// onList tells whether dir is one of PATH's folders.
func onList(pathEnv, dir string) bool {
	for _, d := range filepath.SplitList(pathEnv) {
		if d != "" && filepath.Clean(d) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}

// sameFile tells whether two paths name one file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
