package guard

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// Forbidding are the rules that forbid running command (see Forbids),
// whoever wrote them.
func (x *Index) Forbidding(command string) []Rule {
	step := transcript.NormalCommand(command)
	if !nameable(step) {
		return nil
	}
	var out []Rule
	for _, r := range x.Rules {
		if forbids(strings.ToLower(r.Text), step, command) {
			out = append(out, r)
		}
	}
	return out
}

// Holds tells whether a rule that forbids a command may hold it before
// it runs: the person's own (their feedback, their MEMORY.md lines, or
// what they accepted), not marked advisory. The repository's rules never
// hold: they are its authors' words.
func (r Rule) Holds() bool { return r.By == provenance.Person && !r.Advisory }

// Forbids tells whether a rule's text forbids running command: it names
// the command's step (see transcript.NormalCommand: "go test") in a clause
// that says not to ("never run go test directly", "instead of go test",
// "不要直接运行 go test") or that says what must come first ("run make
// codegen before make build" forbids make build until then). A command the
// rule prescribes ("run make test-payments") is not forbidden.
func Forbids(rule, command string) bool {
	step := transcript.NormalCommand(command)
	return nameable(step) && forbids(strings.ToLower(rule), step, command)
}

// nameable tells whether a step is specific enough for a rule to name:
// two words, or one of four letters or more that is not a common word.
func nameable(step string) bool {
	if strings.Contains(step, " ") {
		return true
	}
	return utf8.RuneCountInString(step) >= 4 && !commonWords()[step]
}

// forbids tells whether text (lower case) forbids the step of command; a
// command that runs what the rule says must come first ("make codegen &&
// make build") is not forbidden.
func forbids(text, step, command string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], step)
		if i < 0 {
			return false
		}
		i += from
		from = i + len(step)
		if !boundary(text, i-1, true) || !boundary(text, from, false) {
			continue
		}
		before := clauseBefore(text, i)
		if hasCue(before, negations) {
			return true
		}
		if pre, ok := prerequisite(before, firsts); ok && !runsFirst(command, pre) {
			return true
		}
		if _, ok := prerequisite(clauseAfter(text, from), laters); ok {
			return true
		}
	}
}

// boundary tells whether the byte at i (before or after a match) ends a
// word: the text's edge, a space, punctuation other than - _ . /, or a
// letter of a script without spaces.
func boundary(text string, i int, before bool) bool {
	if i < 0 || i >= len(text) {
		return true
	}
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(text[:i+1])
	} else {
		r, _ = utf8.DecodeRuneInString(text[i:])
	}
	if r == '-' || r == '_' || r == '.' || r == '/' {
		return false
	}
	return !(unicode.IsLetter(r) || unicode.IsDigit(r)) || r > 0x2e80
}

// clauseBefore is the part of the clause holding text[i:] that comes
// before it; clauseAfter the part after from.
func clauseBefore(text string, i int) string {
	start := 0
	for _, sep := range clauseSeps {
		if j := strings.LastIndex(text[:i], sep); j >= 0 && j+len(sep) > start {
			start = j + len(sep)
		}
	}
	return " " + text[start:i]
}

func clauseAfter(text string, from int) string {
	end := len(text)
	for _, sep := range clauseSeps {
		if j := strings.Index(text[from:], sep); j >= 0 && from+j < end {
			end = from + j
		}
	}
	return " " + text[from:end] + " "
}

// clauseSeps end a clause.
var clauseSeps = []string{"; ", ". ", ", ", ": ", "；", "。", "，", "：", " but ", " pero ", " aber ", " mais "}

// negations say not to do what follows, in the languages ccmem's users
// write; firsts say that something comes first ("before make build");
// laters follow a step that must wait ("make build 之前").
var (
	negations = []string{" never ", " don't ", " do not ", " not ", " avoid ", " no ", " instead of ", " rather than ", " stop ",
		"不要", "别", "禁止", "不得", "请勿", "不能", "勿", " nunca ", " no uses ", " evita ", " en lugar de ", " nie ", " niemals ",
		" kein ", " nicht ", " jamais ", " ne pas ", " n'utilise pas ", " não ", "しない", "ないこと"}
	firsts = []string{" before ", " antes de ", " vor ", " avant ", " prior to "}
	laters = []string{"之前", "前に", "以前"}
)

func hasCue(clause string, cues []string) bool {
	_, ok := prerequisite(clause, cues)
	return ok
}

// prerequisite finds a cue in clause and returns what comes before it
// ("run make codegen" of "run make codegen before "); quotes and code
// marks count as spaces.
func prerequisite(clause string, cues []string) (string, bool) {
	clause = strings.Map(func(r rune) rune {
		if r == '`' || r == '"' {
			return ' '
		}
		return r
	}, clause)
	for _, c := range cues {
		if i := strings.LastIndex(clause, c); i >= 0 {
			return clause[:i], true
		}
	}
	return "", false
}

// runsFirst tells whether command runs the prerequisite step pre (the
// words of a rule before "before") ahead of its own last step.
func runsFirst(command, pre string) bool {
	want := transcript.NormalCommand(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(pre), "run ")))
	if want == "" {
		return false
	}
	parts := strings.Split(strings.ToLower(command), "&&")
	for _, p := range parts[:len(parts)-1] {
		if transcript.NormalCommand(p) == want {
			return true
		}
	}
	return false
}

// Bears tells whether a rule's text bears on an action (a command, a file
// path) as Find would find it among the rules of an index holding it
// alone, or forbids it: what `ccmem friction` counts as the rule matching
// a call.
func Bears(rule, action string) bool {
	x := &Index{}
	x.add(KindFeedback, provenance.Person, rule, "", 0)
	x.count()
	return len(x.Find(action, 1)) > 0 || Forbids(rule, action)
}
