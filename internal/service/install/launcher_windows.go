//go:build windows

package install

import "strings"

// launcherName is the `ccmem` launcher's file name: a batch file, which
// cmd, PowerShell and Git Bash all run by the name ccmem.
const launcherName = "ccmem.cmd"

// launcherScript is the `ccmem` launcher for a plugin user: it runs the
// release the plugin runs now (the data folder's "current", which the
// plugin's hooks/run writes once it has checked that release), or, for a
// built clone, exe itself.
func launcherScript(exe, data string) []byte {
	head := "@echo off\r\nrem " + launcherMarker + ": it runs the plugin's ccmem. `ccmem uninstall` removes it.\r\n"
	q := func(s string) string { return strings.ReplaceAll(s, "%", "%%") }
	if data == "" {
		return []byte(head + "\"" + q(exe) + "\" %*\r\nexit /b %ERRORLEVEL%\r\n")
	}
	return []byte(head + "setlocal\r\nset \"d=" + q(data) + "\"\r\nset v=\r\nif exist \"%d%\\current\" set /p v=<\"%d%\\current\"\r\n" +
		"if not exist \"%d%\\%v%\\bin\\ccmem.exe\" (\r\n  echo ccmem: the ccmem plugin has no binaries here ^(yet^): start a Claude Code session and it downloads them 1>&2\r\n  exit /b 1\r\n)\r\n" +
		"\"%d%\\%v%\\bin\\ccmem.exe\" %*\r\nexit /b %ERRORLEVEL%\r\n")
}
