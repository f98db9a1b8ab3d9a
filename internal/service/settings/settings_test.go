package settings

import (
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

var owned = claudecode.OwnedBy("ccmem", "sessionstart", "stop", "precompact")

func TestParseKeepsOrderAndText(t *testing.T) {
	in := `{
  "z": 1.50,
  "a": "caf\u00e9 \/ x",
  "m": [
    true,
    null,
    {
      "k": []
    },
    {}
  ],
  "dup": 1,
  "dup": 2
}
`
	v, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(v.Marshal()); got != in {
		t.Fatalf("round trip changed the file:\n%s\nwant\n%s", got, in)
	}
	if v.Get("dup").Raw != "2" {
		t.Fatal("Get should return the last of repeated keys, as the client does")
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1,}`:            "invalid JSON at line 1",
		"{\n\n  \"a\": tru\n}": "invalid JSON at line 3",
		`{"a": 1} {"b": 2}`:    "invalid JSON at line 1",
		`{"a": 1`:              "unexpected end of JSON input",
	} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
	if v, err := Parse([]byte("  \n")); err != nil || v.Kind != Object {
		t.Fatalf("blank file: %v %v", v, err)
	}
}

func TestEnsureAndRemove(t *testing.T) {
	in := `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "other-tool"}]}], "Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}, "statusLine": {"type": "command", "command": "s"}}`
	root, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	orig := root.Clone()
	h := Hook{Event: "SessionStart", Command: "/p/lib/ccmem/sessionstart", Timeout: 5}
	ch, err := Ensure(root, h, owned)
	if err != nil || len(ch) != 1 || ch[0].Action != "add" {
		t.Fatalf("first Ensure: %v %v", ch, err)
	}
	groups := root.Get("hooks").Get("SessionStart").Items
	if len(groups) != 2 || commandOf(groups[0].Get("hooks").Items[0]) != "other-tool" {
		t.Fatal("another tool's SessionStart hook was disturbed")
	}
	again, err := Ensure(root, h, owned)
	if err != nil || len(again) != 0 {
		t.Fatalf("second Ensure changed %v", again)
	}
	// A new prefix moves the entry instead of adding another.
	h2 := h
	h2.Command = "/q/lib/ccmem/sessionstart"
	if ch, _ := Ensure(root, h2, owned); len(ch) != 1 || ch[0].Action != "update" {
		t.Fatalf("moving prefix: %v", ch)
	}
	if n := len(root.Get("hooks").Get("SessionStart").Items); n != 2 {
		t.Fatalf("%d groups after moving, want 2", n)
	}
	removed, err := RemoveOwned(root, owned)
	if err != nil || len(removed) != 1 {
		t.Fatalf("RemoveOwned: %v %v", removed, err)
	}
	if !Equal(root, orig) {
		t.Fatalf("remove after ensure did not restore the settings:\n%s", root.Marshal())
	}
}

func TestRemoveDropsContainersOnlyCcmemFilled(t *testing.T) {
	root := NewObject()
	if _, err := Ensure(root, Hook{Event: "SessionStart", Command: "/p/lib/ccmem/sessionstart", Timeout: 5}, owned); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveOwned(root, owned); err != nil {
		t.Fatal(err)
	}
	if string(root.Marshal()) != "{}\n" {
		t.Fatalf("left behind: %s", root.Marshal())
	}
}

func TestShapeErrors(t *testing.T) {
	for _, in := range []string{`{"hooks": []}`, `{"hooks": {"SessionStart": {}}}`, `{"hooks": {"SessionStart": [1]}}`, `{"hooks": {"SessionStart": [{"hooks": {}}]}}`} {
		root, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Ensure(root, Hook{Event: "SessionStart", Command: "/p/lib/ccmem/sessionstart", Timeout: 5}, owned); err == nil {
			t.Errorf("Ensure accepted %s", in)
		}
	}
}
