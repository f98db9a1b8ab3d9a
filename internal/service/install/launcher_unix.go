//go:build !windows

package install

import "github.com/ccmem/ccmem/pkg/claudecode"

// launcherName is the `ccmem` launcher's file name.
const launcherName = "ccmem"

// launcherScript is the `ccmem` launcher for a plugin user: it runs the
// release the plugin runs now (the data folder's "current", which the
// plugin's hooks/run writes once it has checked that release), or, for a
// built clone, exe itself.
func launcherScript(exe, data string) []byte {
	head := "#!/bin/sh\n# " + launcherMarker + ": it runs the plugin's ccmem. `ccmem uninstall` removes it.\n"
	if data == "" {
		return []byte(head + "exec " + claudecode.ShellQuote(exe) + " \"$@\"\n")
	}
	return []byte(head + `d=` + claudecode.ShellQuote(data) + `
v=$(cat "$d/current" 2>/dev/null)
case "$v" in
  *[!0-9A-Za-z.+-]* | "") v= ;;
  v[0-9]*) ;;
  *) v= ;;
esac
if [ -z "$v" ] || [ ! -x "$d/$v/bin/ccmem" ]; then
  echo "ccmem: the ccmem plugin has no binaries here (yet): start a Claude Code session and it downloads them" >&2
  echo "hint: if you removed the plugin, delete $0" >&2
  exit 1
fi
exec "$d/$v/bin/ccmem" "$@"
`)
}
