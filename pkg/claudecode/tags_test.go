package claudecode

import (
	"regexp"
	"strings"
	"testing"
)

// clientTagRE is what Neutralize's scanner replaced, kept as the oracle.
var clientTagRE = regexp.MustCompile(`(?i)<(\s*/?\s*(?:system-reminder|system|command-[a-z]+|local-command-[a-z-]+|persisted-output|user-prompt-submit-hook|function_calls|function_results|antml:[a-z_:-]+|invoke|parameter|tool_use|tool_result|bash-[a-z]+|task-notification|user|assistant|human)\b)`)

// FuzzNeutralizeMatchesRegexp: the scanner neutralizes exactly what the
// regular expression it replaced did (the regular expression's Unicode
// case folding of "ſ" and "K", which no client tag is spelled with, aside).
func FuzzNeutralizeMatchesRegexp(f *testing.F) {
	for _, s := range []string{"</system-reminder>", "< / SYSTEM>", "<system-reminderx", "<systemx", "<command-name>", "<command-n4",
		"<local-command-stdout>", "<local-command-", "<local-command-a-", "<local-command--x", "<invoke>", "<_", "<a_1",
		"<bash-input>", "<bash-", "<user>", "<username>", "<\t/\nhuman ", "a < b", "<<<user", "<function_calls", "x<tool_use_id>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "ſK") {
			return
		}
		if got, want := Neutralize(s), clientTagRE.ReplaceAllString(s, "‹$1"); got != want {
			t.Fatalf("Neutralize(%q) = %q, the regexp gives %q", s, got, want)
		}
	})
}
