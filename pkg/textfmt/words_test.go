package textfmt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNearest(t *testing.T) {
	cmds := []string{"show", "search", "status", "episodes", "learn", "remember", "record", "help"}
	for _, c := range []struct{ word, want string }{
		{"shwo", "show"},        // a swap is one edit
		{"sho", "show"},         // a deletion
		{"serach", "search"},    // swap
		{"remeber", "remember"}, // missing letter
		{"enabeld", ""},         // nothing near in this list
		{"xyz", ""},             // too far from everything
		{"show", ""},            // an exact name is no suggestion
		{"st", ""},              // two letters suggest nothing
		{"Stauts", "status"},    // case does not count
		{"records", "record"},   // plural
		{"learnings", ""},       // four edits
	} {
		if got := Nearest(c.word, cmds); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if got := Nearest("enabeld", []string{"enabled", "budget_chars", "recall"}); got != "enabled" {
		t.Errorf("Nearest(enabeld) = %q, want enabled", got)
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 silos", 1: "1 silo", 2: "2 silos"} {
		if got := Plural(n, "silo", "silos"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestWrap(t *testing.T) {
	text := `Copies ccmem to DIR/bin and its hook binaries to DIR/lib/ccmem (DIR defaults
to ~/.local), then merges ccmem's hook registrations into settings.json.   
Running it again changes nothing.

- With no argument: lists the feedback memories awaiting review, at a terminal
  asking about each.
- With --all: accepts them all.

  ccmem learn review --accept a b --reject c --reason "not true"
A-very-long-word-that-cannot-be-broken-anywhere-at-all-because-it-is-one-token-only.`
	for _, width := range []int{40, 60, 80, 120} {
		got := Wrap(text, width, 2)
		for _, line := range strings.Split(got, "\n") {
			if strings.HasSuffix(line, " ") {
				t.Errorf("width %d: trailing space in %q", width, line)
			}
			if utf8.RuneCountInString(line) > width && !strings.Contains(line, "A-very-long") && !strings.Contains(line, "ccmem learn review") {
				t.Errorf("width %d: line longer than the width: %q", width, line)
			}
			if line != "" && !strings.HasPrefix(line, "  ") {
				t.Errorf("width %d: line not indented: %q", width, line)
			}
		}
		// Words and their order survive; the example keeps its line; list
		// items start lines and their continuations hang under the text.
		if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(text), " ") {
			t.Errorf("width %d: words changed:\n%s", width, got)
		}
		if !strings.Contains(got, "\n    ccmem learn review --accept a b --reject c --reason \"not true\"\n") {
			t.Errorf("width %d: the example lost its line:\n%s", width, got)
		}
		if !strings.Contains(got, "\n  - With --all: accepts them all.\n") {
			t.Errorf("width %d: a list item does not start its line:\n%s", width, got)
		}
		if width == 40 && !strings.Contains(got, "\n    memories awaiting") {
			t.Errorf("width 40: a list item's continuation does not hang:\n%s", got)
		}
	}
	if got := Wrap("a b c", 80, 0); got != "a b c" {
		t.Errorf("short text: %q", got)
	}
}
