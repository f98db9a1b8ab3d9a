package str

import (
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
