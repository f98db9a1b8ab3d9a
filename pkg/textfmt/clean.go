package textfmt

import (
	"strings"
	"unicode/utf8"
)

// Line makes text from a file, a transcript or a hook's input safe to show
// as one line of the memory block, of recalled context or of a terminal
// table: it is the one sanitiser for text that leaves ccmem. Whatever ends
// or breaks a line for some reader — CR, LF, vertical tab, form feed, NEL
// (U+0085), the line and paragraph separators (U+2028, U+2029) — becomes a
// space; a tab stays; every other control character (NUL, BEL, ESC and the
// rest of C0, DEL, C1) and the bidirectional overrides and isolates
// (U+202A–U+202E, U+2066–U+2069, which reorder what a terminal shows)
// becomes U+FFFD. Each replaced character counts one UTF-16 unit, as the one
// it replaces, so a budget measured with Chars is the same before and after.
// Text with none of these is returned as it is, without a copy.
func Line(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		switch {
		case r == '\t':
			b.WriteByte('\t')
		case r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029:
			b.WriteByte(' ')
		case unsafeRune(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafeRune is a rune Line replaces with U+FFFD.
func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// firstUnsafe is the index of the first byte of s that starts a character
// Line changes, or -1: a byte scan, since almost all text has none.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 && c != '\t' || c == 0x7f:
			return i
		case c == 0xc2: // U+0080–U+00BF: C1 controls are U+0080–U+009F
			if i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f {
				return i
			}
		case c == 0xe2: // U+2000–U+2FFF
			if i+2 < len(s) {
				r, _ := utf8.DecodeRuneInString(s[i:])
				if r == 0x2028 || r == 0x2029 || unsafeRune(r) {
					return i
				}
			}
		}
	}
	return -1
}
