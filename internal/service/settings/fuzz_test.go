package settings

import (
	"strings"
	"testing"
)

// foreignCommands lists every hook command that is not ccmem's.
func foreignCommands(root *Value) []string {
	var out []string
	hooks := root.Get("hooks")
	if hooks == nil || hooks.Kind != Object {
		return nil
	}
	for i, ev := range hooks.Keys {
		groups := hooks.Vals[i]
		if groups.Kind != Array {
			continue
		}
		for _, g := range groups.Items {
			hs := g.Get("hooks")
			if hs == nil || hs.Kind != Array {
				continue
			}
			for _, e := range hs.Items {
				if c := commandOf(e); c == "" || !owned(c) {
					out = append(out, ev+" "+string(e.Marshal()))
				}
			}
		}
	}
	return out
}

// FuzzEnsure: merging ccmem's hooks into any settings file keeps every
// foreign key and every foreign hook, and removing them again restores a
// file that had none of ccmem's.
func FuzzEnsure(f *testing.F) {
	for _, s := range []string{
		`{}`, ``, `{"model":"opus"}`, `{"hooks":{}}`, `{"hooks":[]}`,
		`{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"other"}]}]},"statusLine":{"type":"command","command":"s"}}`,
		`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/o/lib/ccmem/sessionstart"},{"type":"command","command":"x"}]}]}}`,
		`{"hooks":{"Stop":[{"hooks":[]}],"SessionStart":[{}]},"a":[1,{"b":null}],"c":"\u00e9"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		root, err := Parse([]byte(data))
		if err != nil || root.Kind != Object {
			return
		}
		orig := root.Clone()
		keys := strings.Join(orig.Keys, "\x00")
		foreign := strings.Join(foreignCommands(orig), "\x00")
		hadOurs := len(foreignCommands(orig)) != countCommands(orig)
		for _, ev := range []string{"SessionStart", "Stop", "PreCompact"} {
			if _, err := Ensure(root, Hook{Event: ev, Command: "/p/lib/ccmem/" + map[string]string{"SessionStart": "sessionstart", "Stop": "stop", "PreCompact": "precompact"}[ev], Timeout: 5}, owned); err != nil {
				return // a shape ccmem refuses to edit; the caller leaves the file alone
			}
		}
		for _, k := range orig.Keys {
			if !strings.Contains("\x00"+strings.Join(root.Keys, "\x00")+"\x00", "\x00"+k+"\x00") {
				t.Fatalf("key %q lost", k)
			}
		}
		if got := strings.Join(foreignCommands(root), "\x00"); got != foreign {
			t.Fatalf("foreign hooks changed:\n got %q\nwant %q", got, foreign)
		}
		again, _ := Parse(root.Marshal())
		if !Equal(again, root) {
			t.Fatal("the merged file does not read back the same")
		}
		if _, err := RemoveOwned(root, owned); err != nil {
			t.Fatal(err)
		}
		if !hadOurs && strings.Join(root.Keys, "\x00") == keys && !Equal(root, orig) && !hasEmptyContainers(orig) {
			t.Fatalf("remove after ensure did not restore:\n%s\nwant\n%s", root.Marshal(), orig.Marshal())
		}
	})
}

func countCommands(root *Value) int {
	n := 0
	hooks := root.Get("hooks")
	if hooks == nil || hooks.Kind != Object {
		return 0
	}
	for _, groups := range hooks.Vals {
		if groups.Kind != Array {
			continue
		}
		for _, g := range groups.Items {
			if hs := g.Get("hooks"); hs != nil && hs.Kind == Array {
				n += len(hs.Items)
			}
		}
	}
	return n
}

// hasEmptyContainers tells whether the hooks hold empty groups or lists,
// which a removal may tidy away.
func hasEmptyContainers(root *Value) bool {
	hooks := root.Get("hooks")
	if hooks == nil || hooks.Kind != Object {
		return false
	}
	if len(hooks.Keys) == 0 {
		return true
	}
	for _, groups := range hooks.Vals {
		if groups.Kind != Array || len(groups.Items) == 0 {
			return true
		}
		for _, g := range groups.Items {
			if hs := g.Get("hooks"); hs == nil || hs.Kind != Array || len(hs.Items) == 0 {
				return true
			}
		}
	}
	return false
}
