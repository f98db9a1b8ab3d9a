package inject

import (
	"strings"

	"github.com/ccmem/ccmem/internal/lazyregexp"
)

// Memory files are untrusted input (a cloned repository's MEMORY.md, a
// session goal): their text must not close the client's tags around the
// block nor forge ccmem's own section headers. Both rules keep the block
// byte-stable (same files, same bytes) and its length as the client
// counts it (the tag rule swaps one character for one).

// clientTag matches the opening of a tag the client or the model gives
// meaning to: <system-reminder>, </system-reminder>, <command-name>,
// <function_calls>, <invoke> and their kin.
var clientTag = lazyregexp.New(`(?i)<(\s*/?\s*(?:system-reminder|system|command-[a-z]+|local-command-[a-z-]+|persisted-output|user-prompt-submit-hook|function_calls|function_results|antml:[a-z_:-]+|invoke|parameter|tool_use|tool_result|bash-[a-z]+|task-notification|user|assistant|human)\b)`)

// Neutralize makes tag-like markers in text inert: "<" becomes "‹" (U+2039,
// one UTF-16 unit, as "<" is), so "</system-reminder>" reads
// "‹/system-reminder>" and closes nothing.
func Neutralize(text string) string {
	if !strings.Contains(text, "<") {
		return text
	}
	return clientTag.ReplaceAllString(text, "‹$1")
}

// escapeHeader keeps a line of file content from passing for one of the
// block's own section headers ("# …"): a Markdown level-1 header is
// escaped ("\# …"); deeper headers ("## Build") stay as they are.
func escapeHeader(line string) string {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if strings.HasPrefix(line[i:], "# ") || line[i:] == "#" {
		return line[:i] + `\` + line[i:]
	}
	return line
}
