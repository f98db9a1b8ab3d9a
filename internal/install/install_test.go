package install

import (
	"os"
	"testing"

	"github.com/ccmem/ccmem/internal/settings"
	"github.com/ccmem/ccmem/pkg/config"
)

// The plugin's hooks/hooks.json registers every hook install registers, on
// the same event, in exec form through hooks/run, with the same timeout.
func TestPluginHooksMatchInstall(t *testing.T) {
	data, err := os.ReadFile("../../hooks/hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	root, err := settings.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	hooks := root.Get("hooks")
	if hooks == nil || len(hooks.Keys) != len(Hooks) {
		t.Fatalf("hooks/hooks.json registers %v, install registers %d hooks", hooks, len(Hooks))
	}
	for _, h := range Hooks {
		groups := hooks.Get(h.Event)
		if groups == nil || len(groups.Items) != 1 {
			t.Fatalf("hooks/hooks.json lacks %s", h.Event)
		}
		m, _ := groups.Items[0].Get("matcher").Str()
		if want := Matcher(h.Binary, config.DefaultGuardTools); m != want {
			t.Fatalf("hooks/hooks.json: %s's matcher is %q, install's %q", h.Event, m, want)
		}
		entry := groups.Items[0].Get("hooks").Items[0]
		cmd, _ := entry.Get("command").Str()
		args := entry.Get("args")
		if cmd != "sh" || args == nil || len(args.Items) != 2 || entry.Get("timeout").Raw != "5" {
			t.Fatalf("%s entry %s is not `sh hooks/run HOOK` in exec form", h.Event, entry.Marshal())
		}
		script, _ := args.Items[0].Str()
		name, _ := args.Items[1].Str()
		if script != "${CLAUDE_PLUGIN_ROOT}/hooks/run" || name != h.Binary {
			t.Fatalf("%s runs %s %s, want hooks/run %s", h.Event, script, name, h.Binary)
		}
	}
}
