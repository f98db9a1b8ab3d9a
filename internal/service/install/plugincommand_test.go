package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginCommandLeavesWhatIsNotCcmems: the `ccmem` a plugin user gets
// never replaces a file of theirs of that name, nor writes through a
// link there; a launcher or copy of ccmem's is replaced.
func TestPluginCommandLeavesWhatIsNotCcmems(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "prefix")
	settings := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"enabledPlugins": {"ccmem@ccmem": true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	o := Options{Prefix: prefix, Settings: settings, Exe: filepath.Join(dir, "plug", "bin", "ccmem")}
	target := LauncherPath(prefix)
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	mine := []byte("#!/bin/sh\necho my own ccmem\n")
	if err := os.WriteFile(target, mine, 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := PluginCommand(o)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != string(mine) {
		t.Fatalf("the person's own ccmem was replaced:\n%s", got)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "is not ccmem's") {
		t.Errorf("no note: %v", rep.Notes)
	}
	// A link there is not followed.
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(target)
	if err := os.Symlink(victim, target); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, err := PluginCommand(o); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep" {
		t.Fatalf("written through the link: %s", got)
	}
	// An earlier launcher is replaced, and the second run changes nothing.
	os.Remove(target)
	if err := os.WriteFile(target, []byte("# "+launcherMarker+"\nold\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := PluginCommand(o); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); !strings.Contains(string(got), o.Exe) && !strings.Contains(string(got), filepath.ToSlash(o.Exe)) {
		t.Fatalf("the launcher does not run the plugin's ccmem:\n%s", got)
	}
	if rep, err := PluginCommand(o); err != nil || rep.Changed() {
		t.Fatalf("a second run changed %v (%v)", rep.Actions, err)
	}
}
