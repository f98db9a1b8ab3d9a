package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestOpencodePluginRoundTrip: install writes one plugin file that names
// this install's binaries (JSON-quoted, whatever the path holds) and only
// the guarded tools; a second install changes nothing; uninstall removes
// the file and the folder it made, and nothing else in opencode's folder.
func TestOpencodePluginRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "opencode")
	mustWrite(t, filepath.Join(dir, "opencode.json"), `{"model": "x/y"}`+"\n")
	lib := filepath.Join(t.TempDir(), `we"ird\ lib`)
	o := OpencodeOptions{Dir: dir, Lib: lib, CCMem: filepath.Join(lib, "ccmem"), GuardTools: []string{"Bash", "Write"}}
	rep, err := InstallOpencode(o)
	if err != nil || len(rep.Actions) != 1 {
		t.Fatalf("install: %v %+v", err, rep)
	}
	data, err := os.ReadFile(OpencodePlugin(dir))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.HasPrefix(text, opencodeMarker) || strings.Contains(text, "__") {
		t.Fatalf("the plugin is not filled in:\n%s", text)
	}
	// Each filled value is a JSON string or object that reads back as given.
	for name, want := range map[string]string{"LIB": lib, "CCMEM": o.CCMem} {
		m := regexp.MustCompile(`(?m)^const ` + name + ` = (.*);$`).FindStringSubmatch(text)
		var got string
		if m == nil || json.Unmarshal([]byte(m[1]), &got) != nil || got != want {
			t.Errorf("%s in the plugin = %v, want %q", name, m, want)
		}
	}
	m := regexp.MustCompile(`(?m)^const GUARDED = (.*);$`).FindStringSubmatch(text)
	var guarded map[string]string
	if m == nil || json.Unmarshal([]byte(m[1]), &guarded) != nil || guarded["bash"] != "Bash" || guarded["write"] != "Write" || guarded["edit"] != "" {
		t.Errorf("GUARDED = %v", m)
	}
	if rep, err := InstallOpencode(o); err != nil || rep.Changed() {
		t.Errorf("a second install changed something: %v %+v", err, rep)
	}
	if !OpencodeRegistered(dir) || !OpencodeCurrent(o) {
		t.Error("the plugin install wrote is not seen as registered and current")
	}
	other := o
	other.Lib = "/elsewhere/lib/ccmem"
	if OpencodeCurrent(other) {
		t.Error("another install's plugin is seen as current")
	}
	if _, err := UninstallOpencode(o); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "opencode.json" {
		t.Errorf("after uninstall opencode's folder holds %v, want only opencode.json", entries)
	}
}

// TestOpencodePluginNotOursStays: a ccmem.js ccmem did not write, or a
// symlink in its place, is neither replaced nor removed.
func TestOpencodePluginNotOursStays(t *testing.T) {
	dir := t.TempDir()
	o := OpencodeOptions{Dir: dir, Lib: "/l", CCMem: "/l/ccmem", GuardTools: []string{"Bash"}}
	path := OpencodePlugin(dir)
	mustWrite(t, path, "export const Mine = async () => ({})\n")
	if _, err := InstallOpencode(o); err == nil {
		t.Error("install replaced a plugin file ccmem did not write")
	}
	if rep, err := UninstallOpencode(o); err != nil || rep.Changed() || len(rep.Notes) == 0 {
		t.Errorf("uninstall of another's file: %v %+v", err, rep)
	}
	if data, _ := os.ReadFile(path); string(data) != "export const Mine = async () => ({})\n" {
		t.Errorf("the person's file changed: %q", data)
	}
	if runtime.GOOS == "windows" {
		return // symlinks need a privilege there
	}
	os.Remove(path)
	target := filepath.Join(t.TempDir(), "target.js")
	mustWrite(t, target, opencodeMarker+"\n")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallOpencode(o); err == nil {
		t.Error("install wrote through a symlink")
	}
	if _, err := UninstallOpencode(o); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(target); string(data) != opencodeMarker+"\n" {
		t.Errorf("the symlink's target changed: %q", data)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("uninstall removed a symlink it did not write: %v", err)
	}
}

// TestOpencodeDryRunWritesNothing: a dry run reports the plugin and
// writes no file or folder.
func TestOpencodeDryRunWritesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "opencode")
	rep, err := InstallOpencode(OpencodeOptions{Dir: dir, Lib: "/l", CCMem: "/l/ccmem", DryRun: true})
	if err != nil || !rep.Changed() {
		t.Fatalf("dry run: %v %+v", err, rep)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("a dry run made opencode's folder")
	}
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
