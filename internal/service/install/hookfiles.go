package install

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/config"
)

// ExamplePrefix is the install prefix hooks.json.example is written for:
// a person who pastes it replaces it with their own.
const ExamplePrefix = "/home/you/.local"

// PluginHooks is the plugin's hooks/hooks.json, and ExampleHooks the
// repository's hooks.json.example (the settings.json fragment a person
// can paste instead of running ccmem install): both written from the
// registrations install makes (claudecode.Hooks, Matcher with the
// default guard tools, HookTimeout), so the three cannot drift apart
// (TestHookFilesAreGenerated).
func PluginHooks() []byte {
	return hookFile(`  "description": "ccmem's hooks, in exec form (no shell quoting): each runs hooks/run, which starts the built binary in lib/ccmem/, or says how to build it.",`+"\n",
		func(binary string) string {
			return fmt.Sprintf(`"command": "sh", "args": ["${CLAUDE_PLUGIN_ROOT}/hooks/run", %s]`, quote(binary))
		}, "")
}

// ExampleHooks is hooks.json.example (see PluginHooks).
func ExampleHooks() []byte {
	return hookFile("", func(binary string) string {
		return fmt.Sprintf(`"command": %s, "args": []`, quote(ExamplePrefix+"/lib/ccmem/"+binary))
	}, fmt.Sprintf(",\n  \"statusLine\": {\"type\": \"command\", \"command\": %s}", quote(ExamplePrefix+"/bin/ccmem status --line")))
}

func hookFile(head string, command func(binary string) string, tail string) []byte {
	var b bytes.Buffer
	b.WriteString("{\n" + head + "  \"hooks\": {\n")
	for i, h := range claudecode.Hooks {
		fmt.Fprintf(&b, "    %s: [\n      {\n", quote(h.Event))
		if m := Matcher(h.Binary, config.DefaultGuardTools); m != "" {
			fmt.Fprintf(&b, "        \"matcher\": %s,\n", quote(m))
		}
		fmt.Fprintf(&b, "        \"hooks\": [\n          {\"type\": \"command\", %s, \"timeout\": %d}\n        ]\n      }\n    ]", command(h.Binary), HookTimeout)
		if i < len(claudecode.Hooks)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  }" + tail + "\n}\n")
	return b.Bytes()
}

func quote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}
