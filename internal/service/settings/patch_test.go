package settings

import (
	"encoding/json"
	"strings"
	"testing"
)

// handFormatted are settings files as people and other tools write them.
var handFormatted = []string{
	// Four-space indent, a compact object, another tool's hooks.
	"{\n    \"model\": \"opus\",\n    \"permissions\": {\"allow\": [\"Bash(make test)\"], \"deny\": []},\n    \"hooks\": {\n        \"PostToolUse\": [\n            {\"matcher\": \"Write|Edit\", \"hooks\": [{\"type\": \"command\", \"command\": \"npx prettier --write\"}]}\n        ]\n    }\n}\n",
	// Tabs, no final newline, CRLF inside.
	"{\n\t\"theme\": \"dark\",\r\n\t\"env\": {\"A\": \"1\"}\n}",
	// One line.
	`{"model":"opus","hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"other-tool start"}]}]}}`,
	// Empty objects, odd spacing.
	"{ \"model\" : \"x\" , \"a\" :[ ] }\n",
	"{}",
	"{\n}\n",
	// Escapes kept as written.
	"{\n  \"note\": \"caf\\u00e9 \\\"quoted\\\"\",\n  \"n\": 1.50\n}\n",
}

func ccmemHooks() []Hook {
	return []Hook{
		{Event: "SessionStart", Command: "/p/lib/ccmem/sessionstart", Args: []string{}, Timeout: 5},
		{Event: "Stop", Command: "/p/lib/ccmem/stop", Args: []string{}, Timeout: 5},
		{Event: "PreCompact", Command: "/p/lib/ccmem/precompact", Args: []string{}, Timeout: 5},
	}
}

// TestPatchRoundTrip: adding ccmem's hooks changes nothing but what is
// added; removing them gives back the original bytes exactly.
func TestPatchRoundTrip(t *testing.T) {
	for _, orig := range handFormatted {
		root, err := Parse([]byte(orig))
		if err != nil {
			t.Fatal(err)
		}
		if same, err := Patch([]byte(orig), root); err != nil || string(same) != orig {
			t.Fatalf("an unedited file changed:\n%q\nto\n%q (%v)", orig, same, err)
		}
		for _, h := range ccmemHooks() {
			if _, err := Ensure(root, h, owned); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := EnsureStatusLine(root, "/p/bin/ccmem status --line", func(string) bool { return true }); err != nil {
			t.Fatal(err)
		}
		installed, err := Patch([]byte(orig), root)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(installed) {
			t.Fatalf("patched file is not JSON:\n%s", installed)
		}
		back, _ := Parse(installed)
		if !Equal(back, root) {
			t.Fatalf("patched file reads back differently:\n%s\nwant\n%s", installed, root.Marshal())
		}
		if strings.HasPrefix(orig, "{\n    ") {
			for _, l := range strings.Split(string(installed), "\n") {
				if n := len(l) - len(strings.TrimLeft(l, " ")); n%4 != 0 {
					t.Errorf("line %q not indented like the file (4 spaces)", l)
				}
			}
		}
		if _, err := RemoveOwned(back, owned); err != nil {
			t.Fatal(err)
		}
		RemoveStatusLine(back, func(string) bool { return true })
		restored, err := Patch(installed, back)
		if err != nil {
			t.Fatal(err)
		}
		if string(restored) != orig {
			t.Fatalf("install then uninstall changed the bytes:\n%q\nwant\n%q\n(installed:\n%s)", restored, orig, installed)
		}
	}
}

// TestPatchStyle: new members follow their neighbours' style: indented in
// an indented file, compact in a compact object.
func TestPatchStyle(t *testing.T) {
	orig := "{\n    \"a\": 1,\n    \"c\": {\"x\": 1}\n}\n"
	root, _ := Parse([]byte(orig))
	root.Set("b", String("two"))
	root.Get("c").Set("y", Int(2))
	got, err := Patch([]byte(orig), root)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n    \"a\": 1,\n    \"c\": {\"x\": 1,\"y\":2},\n    \"b\": \"two\"\n}\n"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// FuzzPatch: for any settings file, the patched text is valid JSON that
// reads back as the edited tree, and ensure-then-remove of ccmem's hooks
// restores the bytes of a file that had none.
func FuzzPatch(f *testing.F) {
	for _, s := range handFormatted {
		f.Add(s)
	}
	f.Add(`{"hooks":{"Stop":[{"hooks":[]}],"SessionStart":[{}]},"a":[1,{"b":null}],"c":"\u00e9"}`)
	f.Fuzz(func(t *testing.T, data string) {
		root, err := Parse([]byte(data))
		if err != nil || root.Kind != Object || len(strings.TrimSpace(data)) == 0 {
			return
		}
		hadOurs := len(foreignCommands(root)) != countCommands(root)
		for _, h := range ccmemHooks() {
			if _, err := Ensure(root, h, owned); err != nil {
				return
			}
		}
		installed, err := Patch([]byte(data), root)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(installed)
		if err != nil || !Equal(back, root) {
			t.Fatalf("patched %q to %q, which reads back differently (%v)", data, installed, err)
		}
		if _, err := RemoveOwned(back, owned); err != nil {
			t.Fatal(err)
		}
		restored, err := Patch(installed, back)
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := Parse([]byte(data))
		// An empty object or array that gets members is written across lines;
		// emptied again it keeps them, so only a file without one must come
		// back byte for byte.
		if !hadOurs && !hasEmptyContainers(orig) && len(orig.Keys) > 0 && Equal(back, orig) && string(restored) != data {
			t.Fatalf("round trip changed bytes:\n%q\n%q", data, restored)
		}
	})
}
