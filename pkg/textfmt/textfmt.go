// Package textfmt holds ccmem's one copy of each rule for text shown to people
// or the model: how length is counted, how whitespace is folded, and how a
// string is shortened.
package textfmt

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Chars counts s as Claude Code counts string length (JavaScript's
// String.length): UTF-16 code units, so a rune outside the Basic
// Multilingual Plane counts two.
func Chars(s string) int {
	n := 0
	for len(s) > 0 {
		// Eight ASCII bytes at a time: most memory is ASCII.
		if len(s) >= 8 && (s[0]|s[1]|s[2]|s[3]|s[4]|s[5]|s[6]|s[7])&0x80 == 0 {
			n, s = n+8, s[8:]
			continue
		}
		if s[0] < utf8.RuneSelf {
			n, s = n+1, s[1:]
			continue
		}
		r, size := utf8.DecodeRuneInString(s)
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		s = s[size:]
	}
	return n
}

// Prefix is the longest prefix of s of at most n characters (as Chars
// counts them), cut at a rune boundary.
func Prefix(s string, n int) string {
	c := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if c+w > n {
			return s[:i]
		}
		c += w
	}
	return s
}

// OneLine folds every run of whitespace, newlines included, into one space
// and trims both ends.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Shorten folds s onto one line and cuts it to at most n runes, the last
// being "…" when anything was cut. Redact before you shorten: a secret cut
// in half no longer matches its rule.
func Shorten(s string, n int) string {
	s = OneLine(s)
	if n < 1 {
		return ""
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// ValidUTF8 returns b as a string with invalid bytes replaced by U+FFFD.
func ValidUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}
