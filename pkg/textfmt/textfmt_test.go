package textfmt

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// FuzzChars: Chars counts as JavaScript's String.length does, for any
// bytes (an invalid byte counts as the one U+FFFD it decodes to).
func FuzzChars(f *testing.F) {
	for _, s := range []string{"", "plain ascii text, longer than eight", "é", "😀 emoji", "日本語のテキスト", "\xff\xfe bad", "abcdefg\xf0\x9f\x98", "12345678😀12345678"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Chars(s), len(utf16.Encode([]rune(s))); got != want {
			t.Fatalf("Chars(%q) = %d, want %d", s, got, want)
		}
	})
}

// FuzzLine: Line leaves no character that breaks a line or controls a
// terminal, counts as many UTF-16 units as its input, and changes nothing
// in text that has none.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "plain", "a\nb", "a\rb", "a\u2028b\u2029c", "\x1b[31mred\x07\x00", "tab\there", "\u0085nel\u009b", "bidi \u202eevil\u202c", "日本語 ok", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Line(s)
		for _, r := range out {
			if r != '\t' && (r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069) {
				t.Fatalf("Line(%q) = %q keeps %U", s, out, r)
			}
		}
		if Chars(out) != Chars(s) {
			t.Fatalf("Line(%q) = %q: %d UTF-16 units, input %d", s, out, Chars(out), Chars(s))
		}
		if firstUnsafe(s) < 0 && out != s {
			t.Fatalf("Line(%q) changed safe text to %q", s, out)
		}
	})
}

func TestLineDiff(t *testing.T) {
	var got []string
	for _, d := range LineDiff([]string{"a", "b", "c", "d"}, []string{"a", "c", "x", "d", "e"}) {
		got = append(got, string(d.Op)+d.Line)
	}
	if want := " a -b  c +x  d +e"; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
	if d := LineDiff(nil, nil); len(d) != 0 {
		t.Errorf("two empty: %v", d)
	}
}
