package install

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/store"
)

// opencode has no command hooks: it loads plugins, JavaScript modules in
// its configuration folder's plugin/ folder that see its events. ccmem's
// plugin (opencode.js, filled in with this install's paths) runs the same
// hook binaries on those events, and `ccmem import --session` at the end
// of each turn, since only ccmem reads opencode's database. The plugin is
// one file ccmem writes and owns; nothing of opencode's configuration is
// edited.

//go:embed opencode.js
var opencodePlugin string

// opencodeMarker opens every plugin ccmem writes: a file without it is
// not ccmem's, and is left alone.
const opencodeMarker = "// ccmem's plugin for opencode"

// OpencodeTools are opencode's names of the tools the rules can guard, by
// Claude Code's name (guard.tools).
var OpencodeTools = map[string]string{"bash": "Bash", "edit": "Edit", "write": "Write", "apply_patch": "Edit", "patch": "Edit"}

// OpencodeOptions say where opencode's configuration is and what the
// plugin runs.
type OpencodeOptions struct {
	// Dir is opencode's configuration folder (~/.config/opencode).
	Dir string
	// Lib is the folder of the hook binaries; CCMem the ccmem command.
	Lib, CCMem string
	// GuardTools are the tools pretooluse holds, in Claude Code's names.
	GuardTools []string
	DryRun     bool
}

// OpencodePlugin is where ccmem's plugin goes in opencode's
// configuration folder dir.
func OpencodePlugin(dir string) string { return filepath.Join(dir, "plugin", "ccmem.js") }

// OpencodePluginText is the plugin as install writes it: the template with
// the binaries' paths and the guarded tools filled in.
func OpencodePluginText(o OpencodeOptions) []byte {
	guarded := map[string]string{}
	for oc, cc := range OpencodeTools {
		if slices.Contains(o.GuardTools, cc) {
			guarded[oc] = cc
		}
	}
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	g, _ := json.Marshal(guarded) // keys sorted: the same options write the same bytes
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	r := strings.NewReplacer(`"__LIB__"`, quote(o.Lib), `"__EXE__"`, quote(exe), `"__CCMEM__"`, quote(o.CCMem), "__GUARDED__", string(g))
	return []byte(r.Replace(opencodePlugin))
}

// ownedPlugin reads the plugin file at path: ok when ccmem wrote it
// (a regular file opening with the marker); exists when anything is there.
func ownedPlugin(path string) (data []byte, ok, exists bool, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, false, nil
	}
	if err != nil {
		return nil, false, true, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, true, nil
	}
	data, err = store.ReadSmallFile(path, 1<<20)
	if err != nil {
		return nil, false, true, err
	}
	return data, bytes.HasPrefix(data, []byte(opencodeMarker)), true, nil
}

// InstallOpencode writes ccmem's plugin into opencode's configuration
// folder. Idempotent; a file of that name ccmem did not write (or a
// symlink) is left alone, and install says so.
func InstallOpencode(o OpencodeOptions) (Report, error) {
	path := OpencodePlugin(o.Dir)
	rep := Report{Settings: path, DryRun: o.DryRun}
	old, owned, exists, err := ownedPlugin(path)
	if err != nil {
		return rep, err
	}
	if exists && !owned {
		return rep, fmt.Errorf("%s is there and ccmem did not write it (or it is not a plain file): left alone; hint: move it aside and run `ccmem install --opencode` again", path)
	}
	want := OpencodePluginText(o)
	if bytes.Equal(old, want) {
		return rep, nil
	}
	what := path + " (opencode runs ccmem's hooks through it)"
	if exists {
		what = path + " (this install's paths)"
	}
	rep.Actions = append(rep.Actions, Action{"plugin", what})
	if o.DryRun {
		return rep, nil
	}
	if err := store.WriteFileShared(path, want); err != nil {
		return rep, err
	}
	return rep, nil
}

// OpencodeRegistered tells whether opencode's configuration holds ccmem's
// plugin.
func OpencodeRegistered(dir string) bool {
	_, owned, _, _ := ownedPlugin(OpencodePlugin(dir))
	return owned
}

// OpencodeCurrent tells whether ccmem's plugin is the one install would
// write now (not another install's paths, not an older template).
func OpencodeCurrent(o OpencodeOptions) bool {
	data, owned, _, _ := ownedPlugin(OpencodePlugin(o.Dir))
	return owned && bytes.Equal(data, OpencodePluginText(o))
}

// UninstallOpencode removes ccmem's plugin, and the plugin folder when it
// is left empty; a file of that name ccmem did not write stays.
func UninstallOpencode(o OpencodeOptions) (Report, error) {
	path := OpencodePlugin(o.Dir)
	rep := Report{Settings: path, DryRun: o.DryRun}
	_, owned, exists, err := ownedPlugin(path)
	if err != nil || !exists {
		return rep, err
	}
	if !owned {
		rep.Notes = append(rep.Notes, claudecode.Neutralize(path)+" is not ccmem's plugin: left alone")
		return rep, nil
	}
	rep.Actions = append(rep.Actions, Action{"remove", path})
	if o.DryRun {
		return rep, nil
	}
	if err := os.Remove(path); err != nil {
		return rep, err
	}
	if os.Remove(filepath.Dir(path)) == nil { // only when empty
		rep.Actions = append(rep.Actions, Action{"remove", filepath.Dir(path) + " (empty)"})
	}
	return rep, nil
}
