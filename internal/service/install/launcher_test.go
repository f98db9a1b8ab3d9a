package install

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// pluginCopy copies the plugin's launcher into a folder named name and
// returns the plugin's root.
func pluginCopy(t *testing.T, name string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("hooks/run is a POSIX sh script (Git Bash runs it on Windows); this test needs a native sh")
	}
	script, err := os.ReadFile("../../../hooks/run")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Join(root, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hooks", "run"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func runLauncher(t *testing.T, root string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{filepath.Join(root, "hooks", "run")}, args...)...)
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"SessionStart"}`)
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestLauncherMessageIsJSONWhateverTheFolder: a plugin folder whose name
// holds a newline, a tab, quotes, a backslash or non-ASCII letters still
// gets one valid JSON system message, naming that folder.
func TestLauncherMessageIsJSONWhateverTheFolder(t *testing.T) {
	root := pluginCopy(t, "we\"ird' \t tab\nnew line\\back\x01slash José")
	out, _, code := runLauncher(t, root, nil, "sessionstart")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var msg struct{ SystemMessage string }
	if err := json.Unmarshal([]byte(out), &msg); err != nil {
		t.Fatalf("not JSON (%v): %q", err, out)
	}
	if !strings.Contains(msg.SystemMessage, "tab\nnew line\\back") || !strings.Contains(msg.SystemMessage, "José") {
		t.Fatalf("message: %q", msg.SystemMessage)
	}
}

// TestLauncherRunsOnlyItsOwnHooks: the launcher runs binaries of its own
// folder, never $CLAUDE_PLUGIN_ROOT's, and only under a hook's name: a
// path as the hook argument is refused, never run.
func TestLauncherRunsOnlyItsOwnHooks(t *testing.T) {
	root := pluginCopy(t, "plugin")
	other := filepath.Join(t.TempDir(), "other")
	marker := filepath.Join(t.TempDir(), "ran")
	evil := "#!/bin/sh\necho ran > " + marker + "\n"
	for _, p := range []string{filepath.Join(other, "lib", "ccmem", "stop"), filepath.Join(root, "evil")} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(evil), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, code := runLauncher(t, root, []string{"CLAUDE_PLUGIN_ROOT=" + other}, "stop"); code != 0 {
		t.Fatalf("stop without binaries: exit %d", code)
	}
	for _, arg := range []string{"../../evil", "../evil", "/bin/true", ""} {
		_, stderr, code := runLauncher(t, root, nil, arg)
		if code != 1 || !strings.Contains(stderr, "unknown hook") {
			t.Errorf("hook %q: exit %d, stderr %q", arg, code, stderr)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the launcher ran a binary outside its own lib/ccmem")
	}
}
