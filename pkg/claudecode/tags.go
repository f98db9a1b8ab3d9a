package claudecode

import "strings"

// Text ccmem injects is untrusted (a cloned repository's MEMORY.md, a
// session goal): it must not close the client's tags around it. The rule
// keeps the text byte-stable (same input, same bytes) and its length as
// the client counts it (it swaps one character for one).

// Neutralize makes tag-like markers in text inert: "<" becomes "‹" (U+2039,
// one UTF-16 unit, as "<" is), so "</system-reminder>" reads
// "‹/system-reminder>" and closes nothing. A marker is "<", optional
// white space and "/", then the name of a tag the client or the model
// gives meaning to (<system-reminder>, <command-name>, <function_calls>,
// <invoke> and their kin, in any case) ending at a word boundary. It is a
// scanner, not a regular expression: a hook would compile one on every
// run (FuzzNeutralizeMatchesRegexp holds the two the same).
func Neutralize(text string) string {
	i := strings.IndexByte(text, '<')
	if i < 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	for i >= 0 {
		if isClientTag(text[i+1:]) {
			b.WriteString(text[:i])
			b.WriteString("‹")
		} else {
			b.WriteString(text[:i+1])
		}
		text = text[i+1:]
		i = strings.IndexByte(text, '<')
	}
	b.WriteString(text)
	return b.String()
}

// Client tag names: the fixed ones, and the prefixes followed by a run of
// letters (and, for some, other characters).
var (
	tagNames = []string{"system-reminder", "system", "persisted-output", "user-prompt-submit-hook", "function_calls",
		"function_results", "invoke", "parameter", "tool_use", "tool_result", "task-notification", "user", "assistant", "human"}
	tagPrefixes = []struct {
		prefix string
		extra  string // characters besides letters in the run
	}{{"command-", ""}, {"local-command-", "-"}, {"antml:", "_:-"}, {"bash-", ""}}
)

// isClientTag tells whether s, the text after a "<", opens or closes a
// client tag.
func isClientTag(s string) bool {
	j := 0
	skip := func() {
		for j < len(s) && isSpace(s[j]) {
			j++
		}
	}
	skip()
	if j < len(s) && s[j] == '/' {
		j++
		skip()
	}
	s = s[j:]
	for _, n := range tagNames {
		if len(s) >= len(n) && strings.EqualFold(s[:len(n)], n) && (len(s) == len(n) || !isWord(s[len(n)])) {
			return true
		}
	}
	for _, p := range tagPrefixes {
		if len(s) <= len(p.prefix) || !strings.EqualFold(s[:len(p.prefix)], p.prefix) {
			continue
		}
		run := s[len(p.prefix):]
		// A run of at least one class character ending at a word boundary.
		for k := 1; k <= len(run); k++ {
			c := run[k-1]
			if !isLetter(c) && !strings.ContainsRune(p.extra, rune(c)) {
				break
			}
			if k == len(run) {
				return isWord(c) // the end of the text is a boundary after a word character
			}
			if isWord(c) != isWord(run[k]) {
				return true
			}
		}
	}
	return false
}

func isSpace(c byte) bool  { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isWord(c byte) bool   { return isLetter(c) || c >= '0' && c <= '9' || c == '_' }
