package session

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/redact"
	"github.com/ccmem/ccmem/pkg/textfmt"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// A session's digest is what was said in it, bounded and redacted: every
// prompt a person typed (slash commands' arguments too), each turn's
// conclusion (its last assistant text), the shell commands that failed with
// their error line and, when a later run of the same command succeeded,
// what changed in between, the distinct commands run and the files read.
// Stop builds it from what the transcript gained, with no model calls.
//
// It lives inside the session's checkpoint and then its episode, not beside
// them: the digest and the transcript offset it was read to are written in
// one atomic replace, so a kill can never leave one ahead of the other (an
// entry read twice, or lost), and retention, import and sync move one file
// per session. It is never injected whole: search indexes its entries as
// passages, per-prompt recall quotes the matching one, and people read it
// with `ccmem episodes show`.

// Digest is what a session said (see above).
type Digest struct {
	Notes []Note `json:"notes,omitempty"`
	// Commands are the distinct shell commands run, in the order first run.
	Commands []string `json:"commands,omitempty"`
	// Read are the files read, relative to the project root when inside it.
	Read []string `json:"files_read,omitempty"`
	// Dropped counts the notes that gave way to the size cap, and Cut the
	// characters cut from notes that were kept shorter.
	Dropped int `json:"dropped,omitempty"`
	Cut     int `json:"cut,omitempty"`
}

// Note is one entry of a digest.
type Note struct {
	Turn int    `json:"turn"`
	At   string `json:"at,omitempty"`
	// Kind is prompt (what a person typed), answer (a turn's conclusion),
	// failure (a command that failed, Cmd, and its error line), fix (a later
	// run of a failed command that succeeded, and what changed in between)
	// or triage (what triage found worth saving).
	Kind string `json:"kind"`
	Cmd  string `json:"cmd,omitempty"`
	Text string `json:"text"`
	// After, on a fix, are the other commands that succeeded between the
	// failure and the fix (the last few, oldest first): what may have
	// made it pass ("make codegen" before "make build").
	After []string `json:"after,omitempty"`

	// limit, while set, marks a note read in this run and not yet kept:
	// its text is as the transcript had it (a window of it), to be
	// redacted and cut to limit by keepNotes. A long first pass drops
	// most of its notes to the cap, and only those kept are redacted.
	limit int
}

// The kinds of Note (the record's read view, pkg/episode, owns them).
const (
	NotePrompt  = episode.NotePrompt
	NoteAnswer  = episode.NoteAnswer
	NoteFailure = episode.NoteFailure
	NoteFix     = episode.NoteFix
	NoteTriage  = episode.NoteTriage
	// NoteOpening is what the assistant said before the session's first
	// prompt (a session it opens, a resumed one whose first line is its):
	// turn 0.
	NoteOpening = episode.NoteOpening
)

// Limits of what one note keeps, before the whole digest is fitted to its
// cap (see fit).
const (
	promptChars  = 4000
	answerChars  = 1500
	errorChars   = 300
	commandChars = 200
	maxCommands  = 100
	maxRead      = 200
	maxFailing   = 50
)

// DefaultDigestBytes is the default cap of a digest (config digest.max_bytes).
const DefaultDigestBytes = 32 << 10

// failing is a shell command that failed, kept until a later run of the
// same command succeeds: its turn, and the files changed since (for the
// fix's note).
type failing struct {
	Turn    int      `json:"turn"`
	Cmd     string   `json:"cmd"`
	Changed []string `json:"changed,omitempty"`
	// Ran are the other commands that succeeded since (the last maxRan).
	Ran []string `json:"ran,omitempty"`
}

// maxRan is how many of the commands run between a failure and its fix a
// fix's note keeps.
const maxRan = 4

// maxRanChars is the longest command a fix's note keeps as one that ran
// before it.
const maxRanChars = 80

// at is a transcript timestamp to the second, or "".
func at(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// notePrompt adds a prompt a person typed.
func (c *Checkpoint) notePrompt(e transcript.Entry) {
	c.flushAnswer()
	if !c.capture.Prompts || c.capture.DigestBytes == 0 {
		return
	}
	text := e.Text
	if e.Command != "" && !strings.ContainsRune(strings.TrimSpace(text), ' ') {
		return // a bare slash command (/compact, /clear): no request in it
	}
	turn := c.Turns
	if e.Command != "" {
		turn++ // the turn it opens when the model answers it
	}
	n := Note{Turn: turn, At: at(e.Timestamp), Kind: NotePrompt, Text: redact.Window(text, promptChars), limit: promptChars}
	c.Digest.Notes = append(c.Digest.Notes, n)
	c.hold(len(n.Text))
}

// heldMax is how much raw note text one run holds before it fits the
// digest midway. A first pass over a long session (an import, a first
// Stop) would otherwise hold every prompt and conclusion until the end:
// tens of MB, near the hook's memory limit, where the collector runs
// without pause. Live capture fits after every run anyway.
const heldMax = 1 << 20

// hold counts n bytes of raw note text read in this run and fits the
// digest to the cap when the run holds more than heldMax. The cap is the
// whole record's, so the final fit (finish) may cut further; fitting to
// the cap here never cuts what that one would keep.
func (c *Checkpoint) hold(n int) {
	if c.held += n; c.held <= heldMax {
		return
	}
	c.held = 0
	c.Digest.fit(c.capture.DigestBytes)
	c.keepNotes()
	c.Digest.fit(c.capture.DigestBytes)
}

// keepNotes redacts and cuts the notes read in this run (see Note.limit).
func (c *Checkpoint) keepNotes() {
	for i := range c.Digest.Notes {
		if n := &c.Digest.Notes[i]; n.limit > 0 {
			n.Text, n.limit = c.keep(n.Text, n.limit), 0
		}
	}
}

// keep is text as a note keeps it: redacted first, then cut to n
// characters at most, on several lines folded into one.
func (c *Checkpoint) keep(text string, n int) string {
	s, k := redact.String(redact.Window(text, n))
	c.State.OtherRedactions += k
	s = textfmt.Line(textfmt.OneLine(s))
	if r := []rune(s); len(r) > n {
		c.Digest.Cut += len(r) - n
		s = strings.TrimSpace(string(r[:n-1])) + "…"
	}
	return s
}

// noteAnswer takes the turn's latest assistant text as its conclusion: a
// later text of the same turn replaces it. Only the last of a turn's texts
// is redacted and kept (flushAnswer), when the next prompt comes or the
// run ends. Text before the first prompt is the session's opening.
func (c *Checkpoint) noteAnswer(e transcript.Entry) {
	if !c.capture.Answers || c.capture.DigestBytes == 0 || strings.TrimSpace(e.Text) == "" {
		return
	}
	kind := NoteAnswer
	if c.Turns == 0 {
		kind = NoteOpening
	}
	c.answer = &Note{Turn: c.Turns, At: at(e.Timestamp), Kind: kind, Text: e.Text}
}

// flushAnswer puts the turn's pending conclusion into the digest.
func (c *Checkpoint) flushAnswer() {
	if c.answer == nil {
		return
	}
	n := *c.answer
	c.answer = nil
	n.Text, n.limit = redact.Window(n.Text, answerChars), answerChars
	// The notes are in order here (finish orders them before the last
	// flush, and a run reads the session's lines before its subagents'):
	// the turn's answer, if it has one, is in the tail.
	notes := c.Digest.Notes
	for i := len(notes) - 1; i >= 0 && notes[i].Turn >= n.Turn; i-- {
		if notes[i].Turn == n.Turn && notes[i].Kind == n.Kind {
			notes[i] = n
			return
		}
	}
	c.Digest.Notes = append(notes, n)
	c.hold(len(n.Text))
}

// order puts the notes in the order of the session, whatever order they
// were read in: by turn, each turn's prompt first and its conclusion
// last, the rest as they came. A subagent's transcript is read after the
// session's (and, live, sometimes in a later hook run), so without this
// its failures would land after the turn's answer, or in another turn's
// place, depending on when the client wrote them.
func (d *Digest) order() {
	rank := func(n Note) int {
		switch n.Kind {
		case NotePrompt:
			return 0
		case NoteAnswer:
			return 2
		}
		return 1
	}
	slices.SortStableFunc(d.Notes, func(a, b Note) int {
		if a.Turn != b.Turn {
			return a.Turn - b.Turn
		}
		return rank(a) - rank(b)
	})
}

// noteCalls records the shell commands and the files read of an assistant
// message's tool calls.
func (c *Checkpoint) noteCalls(e transcript.Entry) {
	if c.capture.DigestBytes == 0 || !c.capture.Commands && !c.capture.Failures {
		return
	}
	for _, u := range e.Tools {
		if cmd := u.Command(); cmd != "" {
			c.noteSpawn(cmd, e.Timestamp)
			cmd = c.keep(cmd, commandChars)
			if len(c.State.Calls) < maxPending {
				if c.State.Calls == nil {
					c.State.Calls = map[string]string{}
				}
				c.State.Calls[u.ID] = cmd
			}
			if c.capture.Commands && len(c.Digest.Commands) < maxCommands && !slices.Contains(c.Digest.Commands, cmd) {
				c.Digest.Commands = append(c.Digest.Commands, cmd)
			}
		}
		if p := u.ReadPath(); p != "" && c.capture.Commands && len(c.Digest.Read) < maxRead {
			p = c.keep(c.relative(p), commandChars)
			if !slices.Contains(c.Digest.Read, p) {
				c.Digest.Read = append(c.Digest.Read, p)
			}
		}
	}
}

// noteResult records a shell command's failure, or the success that fixed
// an earlier failure of the same command.
func (c *Checkpoint) noteResult(r transcript.ToolResult, ts string) {
	cmd, ok := c.State.Calls[r.ID]
	if !ok {
		return
	}
	delete(c.State.Calls, r.ID)
	if r.Declined || r.Cancelled || !c.capture.Failures {
		return
	}
	key := commandKey(cmd)
	d := &c.State
	if r.IsError {
		c.Digest.Notes = append(c.Digest.Notes, Note{Turn: c.Turns, At: at(ts), Kind: NoteFailure, Cmd: cmd, Text: c.keep(errorLine(r.Text), errorChars)})
		if _, seen := d.Failing[key]; !seen && len(d.Failing) < maxFailing {
			if d.Failing == nil {
				d.Failing = map[string]*failing{}
			}
			d.Failing[key] = &failing{Turn: c.Turns, Cmd: cmd}
		}
		return
	}
	f, ok := d.Failing[key]
	if !ok || !sameTarget(f.Cmd, cmd) {
		// "go test ./b" passing fixes no failure of "go test ./a".
		c.ranSince(key, cmd)
		return
	}
	delete(d.Failing, key)
	what := "after changes to " + strings.Join(f.Changed, ", ")
	switch {
	case len(f.Changed) == 0 && f.Cmd != cmd:
		what = "run as `" + cmd + "` instead of `" + f.Cmd + "`"
	case len(f.Changed) == 0:
		what = "run again"
	case f.Cmd != cmd:
		what += "; run as `" + cmd + "`"
	}
	if len(f.Ran) > 0 && len(f.Changed) == 0 && f.Cmd == cmd {
		what = "after `" + strings.Join(f.Ran, "`, `") + "` ran"
	}
	c.Digest.Notes = append(c.Digest.Notes, Note{Turn: c.Turns, At: at(ts), Kind: NoteFix, Cmd: cmd,
		Text: c.keep("failed at turn "+strconv.Itoa(f.Turn)+"; succeeded "+what, errorChars), After: slices.Clone(f.Ran)})
	c.ranSince(key, cmd)
}

// ranSince tells the open failures (other than the command's own, key)
// that cmd succeeded: it may be what makes one of them pass. Only a step
// (a short command) is kept: a long one is a script, never a lesson's fix,
// and a fix's note must not grow at the cost of what the digest keeps of
// the conversation (answers give way first when it is full).
func (c *Checkpoint) ranSince(key, cmd string) {
	if utf8.RuneCountInString(cmd) > maxRanChars {
		return
	}
	for k, f := range c.State.Failing {
		if k == key || f == nil || slices.Contains(f.Ran, cmd) {
			continue
		}
		if len(f.Ran) == maxRan {
			f.Ran = f.Ran[1:]
		}
		f.Ran = append(f.Ran, cmd)
	}
}

// noteChanged tells the open failures a file changed.
func (c *Checkpoint) noteChanged(rel string) {
	for _, f := range c.State.Failing {
		if len(f.Changed) < 8 && !slices.Contains(f.Changed, rel) {
			f.Changed = append(f.Changed, rel)
		}
	}
}

// relative is p relative to the project root when inside it, with
// forward slashes.
func (c *Checkpoint) relative(p string) string {
	if c.ProjectRoot != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(c.ProjectRoot, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		}
	}
	return filepath.ToSlash(p)
}

// commandKey is what makes two shell commands "the same command" for a
// fix: the step NormalCommand names ("go test", "make build", and a
// runner with its target, "npm run build", so that `npm run codegen`
// running between two `npm run build` is what fixed it, not the same
// command again), after any "cd dir &&" prefix; the program and its first
// word that is not an option when nothing is left of it.
func commandKey(cmd string) string {
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

// sameTarget tells whether two runs of one command (see commandKey) ran it
// on the same things: the words of their last step that are not options
// are the same ("make codegen && make build" and "make build"; "go test
// -count=1 ./a" and "go test ./a"; not "go test ./a" and "go test ./b").
func sameTarget(a, b string) bool {
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

// errorLine is the line of a failed command's output that says what went
// wrong: the first line that is not the client's "Exit code N" header nor
// blank, preferring one that names an error.
func errorLine(text string) string {
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

// noteTriage adds what triage found.
func (c *Checkpoint) noteTriage(category, excerpt string, ts string) {
	if c.capture.DigestBytes == 0 {
		return
	}
	c.Digest.Notes = append(c.Digest.Notes, Note{Turn: c.Turns, At: at(ts), Kind: NoteTriage, Text: c.keep(category+": "+excerpt, errorChars)})
}

// size is what the note takes in the episode's JSON, as the codec writes
// it (indented, escaped).
func (x Note) size() int {
	if x.limit > 0 && len(x.Text) > x.limit {
		// A raw note keeps at most limit of its characters.
		if r := utf8.RuneCountInString(x.Text); r > x.limit {
			x.Text = x.Text[:len(x.Text)*x.limit/r]
		}
	}
	n := len("      {\n        \"turn\": ,\n        \"kind\": \"\",\n        \"text\": \n      },\n") + len(strconv.Itoa(x.Turn)) + len(x.Kind) + jsonLen(x.Text)
	if x.At != "" {
		n += len("        \"at\": ,\n") + jsonLen(x.At)
	}
	if x.Cmd != "" {
		n += len("        \"cmd\": ,\n") + jsonLen(x.Cmd)
	}
	if len(x.After) > 0 {
		n += len("        \"after\": [\n        ],\n")
		for _, a := range x.After {
			n += 12 + jsonLen(a)
		}
	}
	return n
}

// size is what the digest takes in the episode's JSON.
func (d *Digest) size() int {
	n := 64
	for _, x := range d.Notes {
		n += x.size()
	}
	for _, s := range d.Commands {
		n += 8 + jsonLen(s)
	}
	for _, s := range d.Read {
		n += 8 + jsonLen(s)
	}
	return n
}

// jsonLen is the length of s as a JSON string, as appendJSONString writes
// it, counted without writing it.
func jsonLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// fit brings the digest under max bytes. What gives way, in order, until
// it fits: (1) answers but the last three are cut to 300 characters, (2)
// then dropped, oldest first; (3) prompts but the first and the last three
// are cut to 600 characters (their start is kept); (4) failures and fixes
// but the last five are dropped, oldest first; (5) the command and file
// lists keep their first 20 and last 30; (6) every prompt is cut to 200
// characters, then 80, and the last answers to 300; (7) only then are
// prompts dropped, from the middle, keeping the first ten and the last
// ten. So the start of every prompt and the latest conclusions stay
// longest.
func (d *Digest) fit(max int) {
	total := d.size()
	if max <= 0 || total <= max {
		return
	}
	lastOf := func(kind string, n int) map[int]bool { // indices of the last n notes of kind
		out := map[int]bool{}
		for i := len(d.Notes) - 1; i >= 0 && len(out) < n; i-- {
			if d.Notes[i].Kind == kind {
				out[i] = true
			}
		}
		return out
	}
	cut := func(i, n int) {
		if x := &d.Notes[i]; x.limit > 0 {
			// Not redacted yet: it is cut after (redact before you
			// shorten), to n characters at most.
			if n < x.limit {
				before := x.size()
				x.limit = n
				total -= before - x.size()
			}
			return
		}
		if r := []rune(d.Notes[i].Text); len(r) > n {
			before := d.Notes[i].size()
			d.Cut += len(r) - n
			d.Notes[i].Text = strings.TrimSpace(string(r[:n-1])) + "…"
			total -= before - d.Notes[i].size()
		}
	}
	drop := func(keep func(i int, x Note) bool) {
		out := make([]Note, 0, len(d.Notes))
		for i, x := range d.Notes {
			if !keep(i, x) && total > max {
				total -= x.size()
				d.Dropped++
				continue
			}
			out = append(out, x)
		}
		d.Notes = out
	}
	// (1) and (2)
	last := lastOf(NoteAnswer, 3)
	for i, x := range d.Notes {
		if x.Kind == NoteAnswer && !last[i] && total > max {
			cut(i, 300)
		}
	}
	drop(func(i int, x Note) bool { return x.Kind != NoteAnswer || last[i] })
	if total <= max {
		return
	}
	// (3)
	lastP, firstP := lastOf(NotePrompt, 3), -1
	for i, x := range d.Notes {
		if x.Kind == NotePrompt {
			if firstP < 0 {
				firstP = i
				continue
			}
			if !lastP[i] && total > max {
				cut(i, 600)
			}
		}
	}
	// (4)
	lastF := map[int]bool{}
	for i := len(d.Notes) - 1; i >= 0 && len(lastF) < 5; i-- {
		if k := d.Notes[i].Kind; k == NoteFailure || k == NoteFix {
			lastF[i] = true
		}
	}
	drop(func(i int, x Note) bool { return x.Kind != NoteFailure && x.Kind != NoteFix || lastF[i] })
	// (5)
	if total > max {
		d.Commands = headTail(d.Commands, 20, 30)
		d.Read = headTail(d.Read, 20, 30)
		total = d.size()
	}
	// (6)
	for _, n := range []int{200, 80} {
		for i, x := range d.Notes {
			if total <= max {
				return
			}
			if x.Kind == NotePrompt || x.Kind == NoteTriage {
				cut(i, n)
			}
		}
	}
	for i, x := range d.Notes {
		if x.Kind == NoteAnswer && total > max {
			cut(i, 300)
		}
	}
	// (7): prompts from the middle outwards, keeping the first and the
	// last ten; then, if even that is not enough, the oldest notes.
	var prompts []int
	for i, x := range d.Notes {
		if x.Kind == NotePrompt {
			prompts = append(prompts, i)
		}
	}
	gone := make([]bool, len(d.Notes))
	// From the middle prompt outwards: m, m+1, m-1, m+2, m-2, …
	m := len(prompts) / 2
	for k := 0; total > max && k < len(prompts); k++ {
		j := m + (k+1)/2
		if k%2 == 0 {
			j = m - k/2
		}
		if j < 10 || j >= len(prompts)-10 {
			continue
		}
		i := prompts[j]
		gone[i] = true
		total -= d.Notes[i].size()
		d.Dropped++
	}
	for i := 0; total > max && i < len(d.Notes)-1; i++ {
		if !gone[i] {
			gone[i] = true
			total -= d.Notes[i].size()
			d.Dropped++
		}
	}
	out := d.Notes[:0]
	for i, x := range d.Notes {
		if !gone[i] {
			out = append(out, x)
		}
	}
	d.Notes = out
}

// headTail keeps the first h and the last t of list.
func headTail(list []string, h, t int) []string {
	if len(list) <= h+t {
		return list
	}
	return append(slices.Clone(list[:h]), list[len(list)-t:]...)
}

// CommandKey is what makes two shell commands "the same command" for a
// fix (see commandKey).
func CommandKey(cmd string) string { return commandKey(cmd) }

// ErrorSignature is what an error says with what varies between runs
// taken out: its error line (see errorLine), lowercased, without paths,
// numbers, hexadecimal ids and quoted names, as words — so the same
// failure in another checkout, on another line or with another temporary
// name has the same signature.
func ErrorSignature(text string) string {
	line := errorLine(text)
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
