package install

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/service/settings"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/config"
)

// The plugin's hooks/hooks.json registers every hook install registers, on
// the same event, in exec form through hooks/run, with the same timeout.
func TestPluginHooksMatchInstall(t *testing.T) {
	data, err := os.ReadFile("../../../hooks/hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	root, err := settings.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	hooks := root.Get("hooks")
	if hooks == nil || len(hooks.Keys) != len(claudecode.Hooks) {
		t.Fatalf("hooks/hooks.json registers %v, install registers %d hooks", hooks, len(claudecode.Hooks))
	}
	for _, h := range claudecode.Hooks {
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

var update = flag.Bool("update", false, "rewrite hooks/hooks.json and hooks.json.example from the registrations")

// TestHookFilesAreGenerated: the plugin's hooks/hooks.json and the
// repository's hooks.json.example are what PluginHooks and ExampleHooks
// write from install's own registrations (-update rewrites them), and
// both are JSON the client reads.
func TestHookFilesAreGenerated(t *testing.T) {
	for path, want := range map[string][]byte{"../../../hooks/hooks.json": PluginHooks(), "../../../hooks.json.example": ExampleHooks()} {
		if !json.Valid(want) {
			t.Fatalf("%s: generated JSON is not valid:\n%s", path, want)
		}
		if strings.HasSuffix(path, ".example") && !claudecode.Registered(want) {
			t.Errorf("%s: claudecode.Registered does not see ccmem's hooks in it", path)
		}
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what install's registrations give: run go test ./internal/service/install -run TestHookFilesAreGenerated -update\n got:\n%s\nwant:\n%s", path, got, want)
		}
	}
}
