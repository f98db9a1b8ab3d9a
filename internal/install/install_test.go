package install

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccmem/ccmem/internal/settings"
)

// hooks.json.example must show every hook install registers, as it does.
func TestHooksExampleMatchesInstall(t *testing.T) {
	data, err := os.ReadFile("../../hooks.json.example")
	if err != nil {
		t.Fatal(err)
	}
	root, err := settings.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	hooks := root.Get("hooks")
	if hooks == nil || len(hooks.Keys) != len(Hooks) {
		t.Fatalf("hooks.json.example registers %v, install registers %d hooks", hooks, len(Hooks))
	}
	for _, h := range Hooks {
		groups := hooks.Get(h.Event)
		if groups == nil || len(groups.Items) != 1 {
			t.Fatalf("hooks.json.example lacks %s", h.Event)
		}
		entry := groups.Items[0].Get("hooks").Items[0]
		cmd, _ := entry.Get("command").Str()
		if !Owned(cmd) || filepath.Base(cmd) != h.Binary || entry.Get("timeout").Raw != "5" {
			t.Fatalf("%s entry %s does not match install", h.Event, entry.Marshal())
		}
	}
}
