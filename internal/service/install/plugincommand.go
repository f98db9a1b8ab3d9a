package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ccmem/ccmem/internal/service/settings"
)

// launcherMarker marks the `ccmem` launcher PluginCommand writes.
const launcherMarker = "installed by ccmem for the ccmem plugin"

// versionFolder is a release folder the plugin's launcher (hooks/run)
// unpacks into its data folder: v<version>.
var versionFolder = regexp.MustCompile(`^v[0-9][0-9A-Za-z.+-]*$`)

// PluginData is the plugin's data folder when exe is a ccmem the plugin
// downloaded (DATA/v<version>/bin/ccmem, checked: the folder holds its
// .pin), else "".
func PluginData(exe string) string {
	rel := filepath.Dir(filepath.Dir(exe))
	if !versionFolder.MatchString(filepath.Base(rel)) || filepath.Base(filepath.Dir(exe)) != "bin" {
		return ""
	}
	if fi, err := os.Stat(filepath.Join(rel, ".pin")); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return filepath.Dir(rel)
}

// LauncherPath is where PluginCommand puts the `ccmem` command.
func LauncherPath(prefix string) string { return filepath.Join(BinDir(prefix), launcherName) }

// PluginCommand gives a plugin user what a plugin cannot: the `ccmem`
// command on their PATH, as a small launcher in DIR/bin that runs the
// plugin's ccmem (the release the plugin runs now, whichever version that
// is, or a built clone's own binary), and the status line through it. The
// hooks and the MCP server stay the plugin's. It is idempotent; a file of
// that name that is not ccmem's (not a launcher or copy of ccmem's) is
// left, with a note, and a symlink there is never followed.
func PluginCommand(o Options) (Report, error) {
	rep := Report{Settings: o.Settings, DryRun: o.DryRun}
	target := LauncherPath(o.Prefix)
	script := launcherScript(o.Exe, PluginData(o.Exe))
	fi, err := os.Lstat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return rep, err
	case !fi.Mode().IsRegular():
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s is not a plain file (a link?), so the `ccmem` command was not put there", target))
		target = ""
	default:
		if old, err := os.ReadFile(target); err == nil && !strings.Contains(string(old), launcherMarker) && !isCcmem(old) {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s is not ccmem's, so the `ccmem` command was not put there", target))
			target = ""
		}
	}
	if target != "" {
		if err := writeFile(&rep, o, target, script, 0o755); err != nil {
			return rep, err
		}
	}
	cmd := target
	if cmd == "" {
		cmd = o.Exe
	}
	err = editFile(&rep, o, o.Settings, func(root *settings.Value) ([]settings.Change, string, error) {
		c, foreign, err := settings.EnsureStatusLine(root, StatusLineCommand(cmd), OwnedStatusLine)
		note := ""
		if foreign != "" {
			note = statusLineNote(foreign, cmd)
		}
		return c, note, err
	}, "")
	return rep, err
}

// isCcmem tells a ccmem binary an earlier install copied there.
func isCcmem(data []byte) bool {
	return strings.Contains(string(data), "github.com/ccmem/ccmem")
}
