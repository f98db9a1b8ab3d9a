package session

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/checkpoint"
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
	n := checkpoint.Note{Turn: turn, At: at(e.Timestamp), Kind: NotePrompt, Text: redact.Window(text, promptChars), Limit: promptChars}
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
	c.Digest.Fit(c.capture.DigestBytes)
	c.keepNotes()
	c.Digest.Fit(c.capture.DigestBytes)
}

// keepNotes redacts and cuts the notes read in this run (see Note.limit).
func (c *Checkpoint) keepNotes() {
	for i := range c.Digest.Notes {
		if n := &c.Digest.Notes[i]; n.Limit > 0 {
			n.Text, n.Limit = c.keep(n.Text, n.Limit), 0
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
	c.answer = &checkpoint.Note{Turn: c.Turns, At: at(e.Timestamp), Kind: kind, Text: e.Text}
}

// flushAnswer puts the turn's pending conclusion into the digest.
func (c *Checkpoint) flushAnswer() {
	if c.answer == nil {
		return
	}
	n := *c.answer
	c.answer = nil
	n.Text, n.Limit = redact.Window(n.Text, answerChars), answerChars
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
	key := transcript.CommandKey(cmd)
	d := &c.State
	if r.IsError {
		c.Digest.Notes = append(c.Digest.Notes, checkpoint.Note{Turn: c.Turns, At: at(ts), Kind: NoteFailure, Cmd: cmd, Text: c.keep(transcript.ErrorLine(r.Text), errorChars)})
		if _, seen := d.Failing[key]; !seen && len(d.Failing) < maxFailing {
			if d.Failing == nil {
				d.Failing = map[string]*checkpoint.Failing{}
			}
			d.Failing[key] = &checkpoint.Failing{Turn: c.Turns, Cmd: cmd}
		}
		return
	}
	f, ok := d.Failing[key]
	if !ok || !transcript.SameTarget(f.Cmd, cmd) {
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
	c.Digest.Notes = append(c.Digest.Notes, checkpoint.Note{Turn: c.Turns, At: at(ts), Kind: NoteFix, Cmd: cmd,
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

// noteTriage adds what triage found.
func (c *Checkpoint) noteTriage(category, excerpt string, ts string) {
	if c.capture.DigestBytes == 0 {
		return
	}
	c.Digest.Notes = append(c.Digest.Notes, checkpoint.Note{Turn: c.Turns, At: at(ts), Kind: NoteTriage, Text: c.keep(category+": "+excerpt, errorChars)})
}
