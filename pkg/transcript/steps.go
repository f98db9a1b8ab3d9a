package transcript

import (
	"strings"
	"unicode"
)

// What a shell step of a session is, with what varies between runs taken
// out, so that the same step or the same failure in two sessions is one:
// a command's normal form (NormalCommand) and the key a fix is matched by
// (CommandKey), and an error's line and signature (ErrorLine,
// ErrorSignature). The session record, the lessons, the rules' hold and
// the earlier fix all compare steps by these.

// CommandKey is what makes two shell commands "the same command" for a
// fix: the step NormalCommand names ("go test", "make build", and a
// runner with its target, "npm run build", so that `npm run codegen`
// running between two `npm run build` is what fixed it, not the same
// command again), after any "cd dir &&" prefix; the program and its first
// word that is not an option when nothing is left of it.
func CommandKey(cmd string) string {
	if i := strings.LastIndex(cmd, "&& "); i >= 0 {
		cmd = cmd[i+3:]
	}
	if k := NormalCommand(cmd); k != "" {
		return k
	}
	var words []string
	for _, w := range strings.Fields(cmd) {
		if strings.HasPrefix(w, "-") || strings.Contains(w, "=") && len(words) == 0 {
			continue
		}
		words = append(words, w)
		if len(words) == 2 {
			break
		}
	}
	return strings.Join(words, " ")
}

// SameTarget tells whether two runs of one command (see CommandKey) ran it
// on the same things: the words of their last step that are not options
// are the same ("make codegen && make build" and "make build"; "go test
// -count=1 ./a" and "go test ./a"; not "go test ./a" and "go test ./b").
func SameTarget(a, b string) bool {
	args := func(cmd string) string {
		if i := strings.LastIndex(cmd, "&& "); i >= 0 {
			cmd = cmd[i+3:]
		}
		var words []string
		for _, w := range strings.Fields(cmd) {
			if !strings.HasPrefix(w, "-") && !(len(words) == 0 && strings.Contains(w, "=")) {
				words = append(words, w)
			}
		}
		return strings.Join(words, " ")
	}
	return args(a) == args(b)
}

// NormalCommand is a shell command with what varies between runs taken
// out, so that the same step in two sessions is one: the last step of a
// chain ("cd x && make build" → "make build"), the first of a pipe,
// without environment settings, sudo, options, paths, file names and
// numbers, in lower case; the program and its subcommand ("go test",
// "npm run build", "pytest"). "" when nothing is left.
func NormalCommand(cmd string) string {
	if strings.Contains(strings.TrimSpace(cmd), "\n") || strings.Contains(cmd, "<<") {
		return "" // a script (lines, a here-document), not a step
	}
	for _, sep := range []string{"&&", "||", ";"} {
		if i := strings.LastIndex(cmd, sep); i >= 0 {
			cmd = cmd[i+len(sep):]
		}
	}
	if i := strings.Index(cmd, "|"); i >= 0 {
		cmd = cmd[:i]
	}
	var words []string
	afterFlag, module, subst := false, false, false
	for _, w := range strings.Fields(strings.ToLower(cmd)) {
		// Inside a command substitution ("X=$(git rev-parse --show-toplevel)"):
		// its words are not the step's.
		if subst {
			subst = !strings.Contains(w, ")")
			continue
		}
		if strings.Contains(w, "$(") && !strings.Contains(w[strings.Index(w, "$("):], ")") {
			subst = true
			continue
		}
		if strings.Trim(w, "….") == "" {
			continue // what a shortened command ends with
		}
		if len(words) == 0 && strings.ContainsAny(w, "/\\") && !strings.ContainsAny(w, "=$`'\"") {
			w = w[strings.LastIndexAny(w, "/\\")+1:] // a program by its path: "./scripts/deploy.sh"
		}
		skip := afterFlag
		afterFlag = false
		switch {
		case len(words) == 0 && (strings.Contains(w, "=") || w == "sudo" || w == "env" || w == "time" || w == "(" || w == "exec"):
			continue
		case len(words) == 1 && w == "-m" && strings.HasPrefix(words[0], "python"):
			module = true // "python -m pytest" is pytest
			continue
		case strings.HasPrefix(w, "-"):
			afterFlag = len(w) == 2 // "-k expr", "-n prod": the next word is its value
			continue
		case skip || strings.ContainsAny(w, "=/\\'\"`$*<>(){}") || strings.Trim(w, "0123456789.:") == "" || w == "":
			continue
		case len(words) > 0 && strings.Contains(w, ".") && !strings.HasPrefix(w, "."):
			continue // a file name: "main.go", "a.test.ts"
		}
		if module {
			words, module = words[:0], false
		}
		if len(words) == 0 && shellKeywords[w] {
			return "" // a fragment of a loop or a condition, not a step
		}
		words = append(words, w)
		if len(words) == 3 || len(words) == 2 && !runners[words[0]+" "+words[1]] {
			break
		}
	}
	return strings.Join(words, " ")
}

// shellKeywords open a fragment of shell syntax, not a command.
var shellKeywords = map[string]bool{"for": true, "do": true, "done": true, "if": true, "then": true, "else": true, "elif": true, "fi": true,
	"while": true, "until": true, "case": true, "esac": true, "continue": true, "break": true, "function": true, "return": true, "in": true}

// runners are the commands whose next word, not theirs, names the step.
var runners = map[string]bool{"npm run": true, "yarn run": true, "pnpm run": true, "bun run": true, "npm exec": true,
	"uv run": true, "poetry run": true, "pipenv run": true, "bundle exec": true, "go run": true, "python -m": true}

// ErrorLine is the line of a failed command's output that says what went
// wrong: the first line that is not the client's "Exit code N" header nor
// blank, preferring one that names an error.
func ErrorLine(text string) string {
	var first, recap string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "Exit code ") || strings.HasPrefix(l, "Error: Exit code") {
			continue
		}
		low := strings.ToLower(l)
		if isRecap(low) {
			// make's "make: *** [Makefile:2: build] Error 2" says only
			// that something above failed.
			if recap == "" {
				recap = l
			}
			continue
		}
		for _, w := range errorWords {
			if strings.Contains(low, w) {
				return l
			}
		}
		if first == "" {
			first = l
		}
	}
	if first == "" {
		first = recap
	}
	if first == "" {
		return strings.TrimSpace(text)
	}
	return first
}

// errorWords mark the line of a command's output that says what failed.
var errorWords = []string{"error", "fail", "not found", "denied", "undefined", "cannot ", "no such", "panic:", "exception"}

// isRecap tells whether a lowercased output line only says that a step
// failed, not why: make's "*** … Error N", "exit status N".
func isRecap(low string) bool {
	return strings.HasPrefix(low, "make") && strings.Contains(low, ": ***") || strings.HasPrefix(low, "exit status ")
}

// ErrorSignature is what an error says with what varies between runs
// taken out: its error line (see ErrorLine), lowercased, without paths,
// numbers, hexadecimal ids and quoted names, as words — so the same
// failure in another checkout, on another line or with another temporary
// name has the same signature.
func ErrorSignature(text string) string {
	line := ErrorLine(text)
	var words []string
	for _, tok := range strings.Fields(strings.ToLower(line)) {
		if strings.ContainsAny(tok, `/\`) {
			continue // a path
		}
		for _, w := range strings.FieldsFunc(tok, func(r rune) bool {
			return !unicode.IsLetter(r) && r != '_'
		}) {
			if len(words) == maxSignatureWords {
				break
			}
			if len(w) < 2 || isHexID(w) {
				continue // what is left of a number or an id
			}
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// maxSignatureWords bounds an error signature.
const maxSignatureWords = 24

// isHexID tells whether w reads as an id (a hash, a uuid part): hex
// digits with at least one letter, 6 or more of them.
func isHexID(w string) bool {
	if len(w) < 6 {
		return false
	}
	for _, r := range w {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}
