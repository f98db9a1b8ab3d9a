// Package cli is the ccmem command: the part of ccmem people (and slash
// commands) run. Each command parses its own flags (internal/entry/command runs
// the tree), calls the domain packages (pkg/...) or internal/service/install, and
// prints aligned text or, with --json, JSON.
//
// Exit codes: 0 success, 1 failure, 2 usage error.
package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/store"
)

// commands is the command table, in the order `ccmem help` lists them.
// It is filled in init to break the initialization cycle through help.
var commands command.Table

func init() {
	commands = command.Table{
		cmdShow, cmdSearch, cmdMCP, cmdPaths, cmdStatus, cmdEpisodes, cmdGC,
		cmdLearn, cmdRemember, cmdForget, cmdEdit, cmdRecord, cmdConsolidate, cmdBriefing, cmdImport, cmdFriction, cmdTriage, cmdProfile, cmdUI, cmdSync,
		cmdEnable, cmdDisable, cmdInstall, cmdUninstall, cmdDoctor,
		cmdHelp, cmdVersion,
	}
}

// Main runs ccmem with p's arguments and returns the exit status.
func Main(p hookio.Process) int { return commands.Run(p, printUsage) }

// startDir is a --cwd value, or the current directory.
func startDir(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	return os.Getwd()
}

// projectHere resolves the project of --cwd or the current directory.
func projectHere(c *command.Ctx, cwd string) (store.Project, error) {
	dir, err := startDir(cwd)
	if err != nil {
		return store.Project{}, err
	}
	return store.ResolveProject(c.Env, dir)
}

// projectToRead is projectHere for a command that only reads: a folder
// that is gone (a repository deleted, a branch's worktree removed) still
// names the project its memory is kept under, when the store has it.
func projectToRead(c *command.Ctx, cwd string) (store.Project, error) {
	p, err := projectHere(c, cwd)
	if err == nil || cwd == "" || !errors.Is(err, fs.ErrNotExist) {
		return p, err
	}
	abs, aerr := filepath.Abs(cwd)
	if aerr != nil {
		return p, err
	}
	gone := store.ProjectAt(c.Env, abs)
	if fi, serr := os.Stat(c.Env.ProjectDir(gone.Key)); serr != nil || !fi.IsDir() {
		return p, err
	}
	return gone, nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
