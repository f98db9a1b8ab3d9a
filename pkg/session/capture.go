// Package session records sessions: a checkpoint per live session,
// brought up to date from the transcript's new bytes by the Stop and
// PreCompact hooks (Claude Code's, and Codex's rollouts through the same
// binaries), and, once the session is over, an episode with a line in the
// project's INDEX.md menu. It also applies episode retention. Sessions no
// hook recorded are found by pkg/importer and read whole here (ReadWhole).
package session

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/redact"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
	"github.com/ccmem/ccmem/pkg/transcript"
	"github.com/ccmem/ccmem/pkg/triage"
)

// The agents whose sessions ccmem reads beside Claude Code's
// (Checkpoint.Agent): OpenAI's Codex CLI, Google's Gemini CLI.
const (
	AgentCodex    = "codex"
	AgentGemini   = "gemini"
	AgentOpencode = "opencode"
)

// IsRollout tells whether path is a Codex CLI session file:
// .../sessions/YYYY/MM/DD/rollout-*.jsonl.
func IsRollout(path string) bool {
	base := filepath.Base(path)
	if !strings.HasPrefix(base, "rollout-") || !strings.HasSuffix(base, ".jsonl") {
		return false
	}
	d := filepath.Dir(path)
	for range 3 {
		if strings.Trim(filepath.Base(d), "0123456789") != "" {
			return false
		}
		d = filepath.Dir(d)
	}
	return filepath.Base(d) == "sessions"
}

// Checkpoint is the record of one session (checkpoint.Record) as capture
// keeps it: live in checkpoints/ while the session runs, then archived
// unchanged (plus archived_at) as its episode.
type Checkpoint struct {
	checkpoint.Record

	// Triage lists the categories this run's triage fired (not saved).
	Triage []triage.Hit `json:"-"`
	// collecting gathers the new turns for triage while reading.
	collecting bool
	newMsgs    []triage.Message
	newText    int
	newAct     triage.Activity
	newTools   map[string]bool
	// lastText is the newest assistant text read in this run.
	lastText string
	// capture is what the record keeps (config capture).
	capture config.Capture
	// importing is set in an import: the shell calls that started a
	// headless client are noted (State.Spawned).
	importing bool
	// answer is the turn's latest assistant text, not yet in the digest.
	answer *checkpoint.Note
	// turnStarts are when the turns begun in this run began (Unix ms;
	// the first is turn firstTurn, the next firstTurn+1, …): a subagent's
	// transcript is read after the session's, and its notes go to the
	// turn it worked in (turnAt), not the last one read. Kept small and
	// free of pointers: a first pass over a long session has thousands.
	turnStarts []int64
	firstTurn  int
	// held is the raw note text read since the digest was last fitted.
	held int
}

// startTurn notes that turn c.Turns began at the entry's time.
func (c *Checkpoint) startTurn(ts string) {
	ms, ok := unixMilli(ts)
	if !ok || len(c.turnStarts) >= 1<<16 {
		return
	}
	if len(c.turnStarts) == 0 || c.firstTurn+len(c.turnStarts) != c.Turns {
		c.turnStarts, c.firstTurn = c.turnStarts[:0], c.Turns // (a reset)
	}
	c.turnStarts = append(c.turnStarts, ms)
}

// turnAt is the turn open at time ts: the last turn begun at or before
// it in this run, the one open before the run when ts is earlier, or the
// current turn when ts or this run's turns have no time.
func (c *Checkpoint) turnAt(ts string) int {
	if len(c.turnStarts) == 0 {
		return c.Turns
	}
	ms, ok := unixMilli(ts)
	if !ok {
		return c.Turns
	}
	i := sort.Search(len(c.turnStarts), func(i int) bool { return c.turnStarts[i] > ms })
	return max(c.firstTurn+i-1, 1)
}

func unixMilli(ts string) (int64, bool) {
	t, err := time.Parse(time.RFC3339Nano, ts)
	return t.UnixMilli(), err == nil
}

// restBound is more than a record without its digest takes but for a
// session of unusual breadth (hundreds of tools or files): below the cap
// by more than this, the digest fits without measuring the rest.
const restBound = 12 << 10

// configure sets what the record keeps (nil: the defaults).
func (c *Checkpoint) configure(cc *config.Capture) {
	if cc == nil {
		c.capture = config.Default().Capture
		return
	}
	c.capture = *cc
}

// Text limits for what a checkpoint keeps of the conversation.
const (
	goalChars    = 200
	outcomeChars = 300
	maxPending   = 1000
	maxSkills    = 50
)

// newCheckpoint starts the record of a session.
func newCheckpoint(sid string, p store.Project) *Checkpoint {
	return &Checkpoint{Record: checkpoint.Record{SessionID: sid, ProjectRoot: p.Root, Tools: map[string]int{}, FilesChanged: []string{}}}
}

// reset forgets everything read from the transcript (it was replaced or
// truncated) but keeps who and where.
func (c *Checkpoint) reset() {
	fresh := newCheckpoint(c.SessionID, store.Project{Root: c.ProjectRoot})
	fresh.Process, fresh.Agent = c.Process, c.Agent
	fresh.State.PreCompacts = c.State.PreCompacts
	fresh.State.CompactTrigger = c.State.CompactTrigger
	fresh.State.TriageFired = c.State.TriageFired
	fresh.State.TriagePending = c.State.TriagePending
	fresh.State.Shown = c.State.Shown
	fresh.State.Guarded = c.State.Guarded
	fresh.collecting, fresh.newTools = c.collecting, map[string]bool{}
	// What the record keeps, and how it is being made, stay as set.
	fresh.capture, fresh.importing = c.capture, c.importing
	fresh.Parent, fresh.State.ForkedAt = c.Parent, c.State.ForkedAt
	*c = *fresh
}

// apply folds one transcript entry into the checkpoint.
func (c *Checkpoint) apply(e transcript.Entry) {
	if e.Kind == transcript.Dequeued {
		// Before the first prompt: the prompt came with the command.
		if c.Turns == 0 && c.Goal == "" && c.State.CommandOpen == "" && !e.Sidechain {
			c.PromptQueued = true
		}
		return
	}
	if c.inherited(e) {
		return
	}
	friction.Tracker{S: &c.State.Friction}.Observe(e)
	if e.Timestamp != "" {
		if c.StartedAt == "" {
			c.StartedAt = e.Timestamp
		}
		c.EndedAt = e.Timestamp
	}
	if e.Version != "" {
		c.ClientVersion = e.Version
	}
	if e.GitBranch != "" && e.GitBranch != c.GitBranch {
		var n int
		c.GitBranch, n = redact.String(e.GitBranch)
		c.State.OtherRedactions += n
	}
	if e.Sidechain {
		return // a subagent's work is not the session's turns
	}
	switch e.Kind {
	case transcript.Prompt:
		if e.Command != "" {
			// A slash command: its arguments can hold the whole request,
			// and it is a turn once the model answers it (a project's
			// command, a skill), not when the client alone does (/model).
			c.notePrompt(e)
			if args := strings.TrimSpace(strings.TrimPrefix(e.Text, e.Command)); args != "" {
				c.considerTitle(args)
			}
			c.State.CommandOpen, _ = redact.Shorten(e.Text, goalChars)
			if c.Entrypoint == "" && e.Entrypoint != "" {
				c.Entrypoint, _ = redact.Shorten(textfmt.Line(e.Entrypoint), 40)
			}
			return
		}
		c.State.CommandOpen = ""
		c.collect("user", e.Text)
		if c.collecting {
			c.newAct.Exchanges++
		}
		c.Turns++
		c.startTurn(e.Timestamp)
		if c.Goal == "" {
			c.Goal, c.State.GoalRedactions = redact.Shorten(e.Text, goalChars)
		}
		if c.Entrypoint == "" && e.Entrypoint != "" {
			c.Entrypoint, _ = redact.Shorten(textfmt.Line(e.Entrypoint), 40)
		}
		c.notePrompt(e)
		c.considerTitle(e.Text)
	case transcript.Assistant:
		if e.Model != "" && e.Model != "<synthetic>" {
			c.Model = e.Model
		}
		if c.State.CommandOpen != "" && e.Model != "<synthetic>" {
			// The model answers a slash command: the command was a turn.
			c.collect("user", c.State.CommandOpen)
			if c.collecting {
				c.newAct.Exchanges++
			}
			c.Turns++
			c.startTurn(e.Timestamp)
			if c.Goal == "" {
				c.Goal = c.State.CommandOpen
			}
			c.State.CommandOpen = ""
		}
		c.collect("assistant", e.Text)
		if strings.TrimSpace(e.Text) != "" || len(e.Tools) > 0 {
			c.State.TitleOpen = false // the request was answered
		}
		for _, u := range e.Tools {
			if c.collecting {
				c.newAct.ToolUses++
				if !c.newTools[u.Name] {
					c.newTools[u.Name] = true
					c.newAct.DistinctTools++
				}
			}
			c.Tools[u.Name]++
			if sk := u.Skill(); sk != "" && len(c.SkillsUsed) < maxSkills && !slices.Contains(c.SkillsUsed, sk) {
				sk, _ = redact.Shorten(textfmt.Line(sk), 80)
				c.SkillsUsed = append(c.SkillsUsed, sk)
			}
			if ps := u.FilePaths(); len(ps) > 0 && len(c.State.PendingFiles) < maxPending {
				if c.State.PendingFiles == nil {
					c.State.PendingFiles = map[string]string{}
				}
				c.State.PendingFiles[u.ID] = strings.Join(ps, "\n") // a patch's files, one a line
			}
		}
		c.noteCalls(e)
		if strings.TrimSpace(e.Text) != "" {
			c.lastText = e.Text // the outcome, redacted once the run read its last reply
			c.noteAnswer(e)
		}
	case transcript.ToolResults:
		c.applyResults(e.Results, e.Timestamp)
	case transcript.Meta:
		if e.Interrupted && c.State.TitleOpen {
			// Aborted before any answer: not what the session is about.
			c.Title, c.State.TitleOpen = "", false
		}
	case transcript.Compaction:
		c.State.Boundaries++
		if e.Trigger != "" {
			c.State.CompactTrigger = e.Trigger
		}
	}
}

// inherited tells whether a forked session's entry is the parent's: from
// before the fork, copied into the new transcript. It names the parent.
func (c *Checkpoint) inherited(e transcript.Entry) bool {
	if c.State.ForkedAt == "" || e.Timestamp == "" {
		return false
	}
	fork, err1 := time.Parse(time.RFC3339Nano, c.State.ForkedAt)
	t, err2 := time.Parse(time.RFC3339Nano, e.Timestamp)
	if err1 != nil || err2 != nil || !t.Before(fork) {
		return false
	}
	if c.Parent == "" && e.SessionID != "" && e.SessionID != c.SessionID {
		c.Parent, _ = redact.String(e.SessionID)
	}
	return true
}

// considerTitle makes a substantive request the session's title while it
// has none (see titleOf).
func (c *Checkpoint) considerTitle(text string) {
	if c.Title != "" || !substantive(text) {
		return
	}
	red, _ := redact.String(text) // counted once, for the prompt's note
	c.Title, c.State.TitleOpen = titleOf(red, c.ProjectRoot), true
}

// applyResults counts tool errors and refusals and records the files
// whose edits succeeded.
func (c *Checkpoint) applyResults(results []transcript.ToolResult, ts string) {
	for _, r := range results {
		switch {
		case r.Declined:
			c.Declined++
		case r.IsError:
			c.ToolErrors++
		}
		c.noteResult(r, ts)
		p, ok := c.State.PendingFiles[r.ID]
		if !ok {
			continue
		}
		delete(c.State.PendingFiles, r.ID)
		if !r.IsError && !r.Cancelled {
			for _, f := range strings.Split(p, "\n") {
				c.addFile(f)
			}
		}
	}
}

// collect keeps the new turns' text for triage, the newest it scores.
func (c *Checkpoint) collect(role, text string) {
	if !c.collecting || strings.TrimSpace(text) == "" {
		return
	}
	c.newMsgs = append(c.newMsgs, triage.Message{Role: role, Text: text})
	c.newText += len(text)
	for c.newText > triage.MaxText && len(c.newMsgs) > 1 {
		c.newText -= len(c.newMsgs[0].Text)
		c.newMsgs = c.newMsgs[1:]
	}
}

// addFile records a changed file, relative to the project root when inside it.
func (c *Checkpoint) addFile(p string) {
	if c.ProjectRoot != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(c.ProjectRoot, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		}
	}
	p = filepath.ToSlash(p)
	i := sort.SearchStrings(c.FilesChanged, p)
	if i < len(c.FilesChanged) && c.FilesChanged[i] == p {
		return
	}
	red, n := redact.String(p)
	c.State.OtherRedactions += n
	c.FilesChanged = append(c.FilesChanged, "")
	copy(c.FilesChanged[i+1:], c.FilesChanged[i:])
	c.FilesChanged[i] = red
	c.noteChanged(red)
}

// finish recomputes the derived fields; final is set when archiving.
func (c *Checkpoint) finish(final bool) {
	c.Digest.Order()
	c.flushAnswer()
	if final && c.State.ForkedAt != "" && c.Parent == "" && c.Transcript.Path != "" {
		// A fork whose copied lines did not name the parent (2.1.x writes
		// the fork's own id into them): found by its first message.
		// At most half a second: this runs in a hook.
		ff := forkFamilies{until: time.Now().Add(500 * time.Millisecond)}
		c.Parent, _ = ff.parentOf(c.Transcript.Path, c.SessionID, true)
	}
	if c.Title == "" && final {
		// No request stood out: the first prompt a person wrote, as it
		// was — never the client's own message or a pasted blob.
		for _, n := range c.Digest.Notes {
			if n.Kind == NotePrompt && personal(n.Text) {
				c.Title = titleOf(n.Text, c.ProjectRoot)
				break
			}
		}
		if c.Title == "" && personal(c.Goal) {
			c.Title = titleOf(c.Goal, c.ProjectRoot)
		}
		if c.Title == "" && c.Turns > 0 {
			c.Title = untitled
		}
	}
	if c.capture.DigestBytes == 0 && c.capture.Automation == "" {
		c.configure(nil) // a record made outside Capture: the defaults
	}
	// The record's other fields first: the cap bounds the whole of it,
	// and the digest gets what they leave.
	c.Compactions = max(c.State.Boundaries, c.State.PreCompacts)
	if a, err1 := time.Parse(time.RFC3339Nano, c.StartedAt); err1 == nil {
		if b, err2 := time.Parse(time.RFC3339Nano, c.EndedAt); err2 == nil && b.After(a) {
			c.DurationSeconds = int64(b.Sub(a).Seconds())
		}
	}
	c.Friction = friction.Tracker{S: &c.State.Friction}.Score(c.Turns, c.Compactions, final)
	if c.lastText != "" {
		c.Outcome, c.State.OutcomeRedactions = redact.Shorten(c.lastText, outcomeChars)
		c.lastText = ""
	}
	switch {
	case c.capture.DigestBytes == 0:
		c.Digest = checkpoint.Digest{}
	case c.Digest.Size()+restBound < c.capture.DigestBytes:
		c.keepNotes() // far from the cap: nothing gives way
	default:
		// The cap is the whole record's: the digest gets what the rest
		// leaves.
		d := c.Digest
		c.Digest = checkpoint.Digest{}
		rest, _ := checkpoint.Marshal(&c.Record)
		c.Digest = d
		room := c.capture.DigestBytes - len(rest) - 64
		c.Digest.Fit(room) // what this run read is redacted only if it stays
		c.keepNotes()
		c.Digest.Fit(room)
	}
	c.Redactions = c.State.GoalRedactions + c.State.OutcomeRedactions + c.State.OtherRedactions
}

// Turn is what a hook says of the turn it runs after, as the hook input
// and the client's process gave it: the one value that travels from a
// hook's input through pkg/memory to Capture.
type Turn struct {
	SessionID      string
	TranscriptPath string
	Cwd            string
	Process        proc.Info
	// PreCompact is set when the PreCompact hook runs; Trigger is its
	// "manual" or "auto".
	PreCompact bool
	Trigger    string
	// StopHookActive is set when the model already continues because of a
	// Stop hook (another's): triage does not score that turn.
	StopHookActive bool
	// LastAssistantMessage is the reply the Stop hook was given; triage
	// reads it too, since the transcript can lag behind.
	LastAssistantMessage string
	// Automation, when set, says what other program started the session
	// ("" for a person); it is asked once per session.
	Automation func() string
}

// CaptureRequest is one hook's view of a session: its turn, and what the
// caller decided for it.
type CaptureRequest struct {
	Turn
	// Triage, when enabled, scores the turns read in this run; a category
	// over its threshold that has not fired in this session fires (see
	// Checkpoint.Triage). Never when StopHookActive.
	Triage *config.Triage
	// NewSession is set by a startup session start: its id has no earlier
	// record to re-open.
	NewSession bool
	// Project, when the caller resolved it already, saves doing it again.
	Project *store.Project
	// Shown, with SetShown, replaces what the session was shown of memory:
	// the refs of a session start's block.
	Shown    []string
	SetShown bool
	// Capture is what the record keeps (nil: the defaults).
	Capture *config.Capture
	// Fork is set by a session start with source "fork": what the
	// transcript holds from before now is the parent session's.
	Fork bool
}

// sessionProject is the project the session started in: p, unless the
// session's checkpoint is not there but in the project of a folder above
// p's root — a working directory that drifted into a subfolder of a
// folder that is not a git repository (each such folder is a project of
// its own) is still the session's project. One stat when the checkpoint
// is where it should be.
func sessionProject(e store.Env, p store.Project, sid string) store.Project {
	if p.Root == "" || fileExists(e.CheckpointPath(p.Key, sid)) {
		return p
	}
	for d := filepath.Dir(p.Root); d != filepath.Dir(d); d = filepath.Dir(d) {
		key := store.Slug(d)
		if !fileExists(e.CheckpointPath(key, sid)) {
			continue
		}
		if q, err := store.ResolveProject(e, d); err == nil && q.Key == key {
			return q
		}
	}
	return p
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// sessionFile is a session's id as a safe file name part.
func sessionFile(sid string) (string, error) {
	if sid == "" {
		return "", errors.New("no session_id in the hook input")
	}
	if !store.ValidID(sid, 128, false) {
		return "", fmt.Errorf("session_id %q is not a safe file name", textfmt.Shorten(sid, 40))
	}
	return sid, nil
}

// Capture brings a session's checkpoint up to date with its transcript,
// reading only what was appended since the last run. It stops reading when
// ctx is done, at a line boundary, and saves how far it got.
func Capture(ctx context.Context, e store.Env, req CaptureRequest) (*Checkpoint, error) {
	sid, err := sessionFile(req.SessionID)
	if err != nil {
		return nil, err
	}
	var p store.Project
	if req.Project != nil {
		p = *req.Project
	} else if p, err = store.ResolveProject(e, req.Cwd); err != nil {
		return nil, err
	}
	if !req.NewSession {
		p = sessionProject(e, p, sid)
	}
	if p, err = store.ClaimProject(e, p); err != nil {
		return nil, err
	}
	unlock, err := store.Lock(e.ProjectDir(p.Key))
	if err != nil {
		return nil, err
	}
	defer unlock()
	path := e.CheckpointPath(p.Key, sid)
	c, err := loadSession(e, p, sid, req.NewSession)
	if err != nil {
		return nil, err
	}
	if req.Process.PID != 0 {
		c.Process = req.Process
	}
	if p.Remote != "" {
		c.GitRemote = store.PublicRemote(p.Remote)
	}
	c.configure(req.Capture)
	if req.Fork && c.State.ForkedAt == "" && c.Turns == 0 {
		c.State.ForkedAt = e.Time().UTC().Format(time.RFC3339Nano)
	}
	if !c.State.Checked && req.Automation != nil && c.capture.Automation != "off" {
		c.State.Checked = true
		if by := req.Automation(); by != "" {
			c.Automated, c.AutomatedBy = true, by
		}
	}
	if req.SetShown {
		c.State.Shown = shownKeys(nil, req.Shown)
	}
	if req.PreCompact {
		c.State.PreCompacts++
		if req.Trigger != "" {
			c.State.CompactTrigger = req.Trigger
		}
	}
	doTriage := req.Triage != nil && req.Triage.Enabled && !req.StopHookActive
	if doTriage {
		c.collecting, c.newTools = true, map[string]bool{}
	}
	readErr := c.catchUp(ctx, req.TranscriptPath)
	if doTriage {
		if m := req.LastAssistantMessage; strings.TrimSpace(m) != "" &&
			(len(c.newMsgs) == 0 || c.newMsgs[len(c.newMsgs)-1].Text != m) {
			c.newMsgs = append(c.newMsgs, triage.Message{Role: "assistant", Text: m})
		}
		for _, h := range triage.Score(c.newMsgs, c.newAct, req.Triage.Thresholds) {
			if !slices.Contains(c.State.TriageFired, h.Category) {
				c.noteTriage(h.Category, h.Excerpt, c.EndedAt)
				c.Triage = append(c.Triage, h)
				c.State.TriageFired = append(c.State.TriageFired, h.Category)
				c.State.TriagePending = append(c.State.TriagePending, h)
			}
		}
	}
	c.finish(false)
	c.UpdatedAt = e.Time().UTC().Format(time.RFC3339)
	// Atomic but not forced to disk: a checkpoint is rebuilt from its
	// transcript when it is lost or damaged (see loadSession); episodes,
	// INDEX.md, learned entries and records are written durably.
	if err := writeCheckpoint(e.ProjectDir(p.Key), path, c, false); err != nil {
		return c, err
	}
	return c, readErr
}

// Prompted is what a prompt's hook needs of the session: what triage found
// that no prompt has carried yet, and what the model was shown of memory.
type Prompted struct {
	Triage  []triage.Hit
	shown   []byte
	guarded []byte
}

// WasGuarded tells whether the point-of-action hooks gave the model the
// memory ref names in the session.
func (p Prompted) WasGuarded(ref string) bool { return hasKey(p.guarded, store.RefKey(ref)) }

// WasShownKey tells whether the memory of a store.RefKey was shown in
// the session.
func (p Prompted) WasShownKey(k [shownKeyLen]byte) bool { return hasKey(p.shown, k) }

// hasKey tells whether the sorted keys hold k.
func hasKey(keys []byte, k [shownKeyLen]byte) bool {
	n := len(keys) / shownKeyLen
	i := sort.Search(n, func(i int) bool { return string(keys[i*shownKeyLen:(i+1)*shownKeyLen]) >= string(k[:]) })
	return i < n && string(keys[i*shownKeyLen:(i+1)*shownKeyLen]) == string(k[:])
}

// NewShown is what a session starting now has been shown: the memories its
// start-up block shows (refs), and nothing else yet; ccmem show --recall
// asks with it what the prompt hook would skip.
func NewShown(refs []string) Prompted { return Prompted{shown: shownKeys(nil, refs)} }

// ShownCount is how many memories the session was shown.
func (p Prompted) ShownCount() int { return len(p.shown) / shownKeyLen }

// shownKeyLen is the size of a key of what was shown (a store.RefKey).
const shownKeyLen = 8

// shownKeys adds the keys of refs to the sorted keys, sorted and once each.
func shownKeys(keys []byte, refs []string) []byte {
	all := make([]string, 0, len(keys)/shownKeyLen+len(refs))
	for i := 0; i+shownKeyLen <= len(keys); i += shownKeyLen {
		all = append(all, string(keys[i:i+shownKeyLen]))
	}
	for _, r := range refs {
		k := store.RefKey(r)
		all = append(all, string(k[:]))
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) > maxShown {
		all = all[len(all)-maxShown:]
	}
	out := make([]byte, 0, len(all)*shownKeyLen)
	for _, k := range all {
		out = append(out, k...)
	}
	return out
}

// maxShown bounds how many memories a checkpoint remembers as shown.
const maxShown = 4096

// ReadPrompted reads what a prompt's hook needs of the session, without a
// lock; a session without a checkpoint has nothing.
func ReadPrompted(e store.Env, p store.Project, sessionID string) (Prompted, error) {
	sid, err := sessionFile(sessionID)
	if err != nil {
		return Prompted{}, err
	}
	early := readGuardedEarly(e, p, sid)
	c, err := readCheckpoint(e.ProjectDir(p.Key), e.CheckpointPath(p.Key, sid))
	if errors.Is(err, fs.ErrNotExist) {
		return Prompted{guarded: early}, nil
	}
	if err != nil {
		return Prompted{}, err
	}
	guarded := c.State.Guarded
	if len(early) > 0 {
		guarded = mergeKeys(guarded, early)
	}
	return Prompted{Triage: c.State.TriagePending, shown: c.State.Shown, guarded: guarded}, nil
}

// guardedEarlyPath keeps what the point-of-action hooks gave a session
// before it has a checkpoint (its first turn: the Stop hook makes the
// checkpoint), so that a rule is given, or a call held, once a session
// from the first call on. Beside the checkpoints: one machine's own.
func guardedEarlyPath(e store.Env, key, sid string) string {
	return filepath.Join(e.CheckpointsDir(key), sid+".guarded")
}

// maxGuardedEarly bounds the early record (keys of shownKeyLen bytes).
const maxGuardedEarly = 64 * shownKeyLen

// readGuardedEarly reads the early record of the session (nil for none).
func readGuardedEarly(e store.Env, p store.Project, sid string) []byte {
	data, err := store.ReadFileIn(e.ProjectDir(p.Key), guardedEarlyPath(e, p.Key, sid), maxGuardedEarly)
	if err != nil || len(data)%shownKeyLen != 0 {
		return nil
	}
	return data
}

// mergeKeys is two sets of sorted keys as one.
func mergeKeys(a, b []byte) []byte {
	var all []string
	for _, keys := range [][]byte{a, b} {
		for i := 0; i+shownKeyLen <= len(keys); i += shownKeyLen {
			all = append(all, string(keys[i:i+shownKeyLen]))
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	return []byte(strings.Join(all, ""))
}

// CommitGuard records the memories a point-of-action hook gave the model,
// so the session is not given them again. A session without a checkpoint
// is left so.
func CommitGuard(e store.Env, p store.Project, sessionID string, refs []string) error {
	if len(refs) == 0 {
		return nil
	}
	sid, err := sessionFile(sessionID)
	if err != nil {
		return err
	}
	unlock, err := store.Lock(e.ProjectDir(p.Key))
	if err != nil {
		return err
	}
	defer unlock()
	path := e.CheckpointPath(p.Key, sid)
	c, err := readCheckpoint(e.ProjectDir(p.Key), path)
	if errors.Is(err, fs.ErrNotExist) {
		// The session's first turn: kept beside, until its checkpoint.
		keys := shownKeys(readGuardedEarly(e, p, sid), refs)
		if len(keys) > maxGuardedEarly {
			keys = keys[len(keys)-maxGuardedEarly:]
		}
		if err := os.MkdirAll(e.CheckpointsDir(p.Key), 0o700); err != nil {
			return err
		}
		return store.WriteFileAtomic(guardedEarlyPath(e, p.Key, sid), keys)
	}
	if err != nil {
		return err
	}
	c.State.Guarded = shownKeys(c.State.Guarded, refs)
	if early := readGuardedEarly(e, p, sid); len(early) > 0 {
		c.State.Guarded = mergeKeys(c.State.Guarded, early)
	}
	return writeCheckpoint(e.ProjectDir(p.Key), path, c, false)
}

// CommitPrompt records what a prompt carried to the model: triage's
// findings (given once: they are no longer pending) and the memories
// recalled (not shown again). A session without a checkpoint is left so:
// its next Stop makes one.
func CommitPrompt(e store.Env, p store.Project, sessionID string, tookTriage bool, recalled []string, kind string) error {
	if !tookTriage && len(recalled) == 0 {
		return nil
	}
	sid, err := sessionFile(sessionID)
	if err != nil {
		return err
	}
	unlock, err := store.Lock(e.ProjectDir(p.Key))
	if err != nil {
		return err
	}
	defer unlock()
	path := e.CheckpointPath(p.Key, sid)
	c, err := readCheckpoint(e.ProjectDir(p.Key), path)
	if errors.Is(err, fs.ErrNotExist) {
		// The session's first prompt: what it was given is kept beside,
		// for its use to be told (see Use).
		return addGivenEarly(e, p, sid, givenOf(recalled, kind, 0))
	}
	if err != nil {
		return err
	}
	if tookTriage {
		c.State.TriagePending = nil
	}
	c.State.Shown = shownKeys(c.State.Shown, recalled)
	c.State.Given = appendGiven(c.State.Given, givenOf(recalled, kind, c.Turns))
	// Not forced to disk: a prompt's hook must be quick, and a checkpoint
	// lost to a power cut only forgets what was shown.
	return writeCheckpoint(e.ProjectDir(p.Key), path, c, false)
}

// loadSession returns the session's checkpoint; a session archived earlier
// and now resumed re-opens its episode; else a new record.
func loadSession(e store.Env, p store.Project, sid string, fresh bool) (*Checkpoint, error) {
	c, err := readCheckpoint(e.ProjectDir(p.Key), e.CheckpointPath(p.Key, sid))
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		// A damaged checkpoint is rebuilt from the transcript.
		return newCheckpoint(sid, p), nil
	}
	if fresh {
		return newCheckpoint(sid, p), nil
	}
	if ep := findEpisode(e, p.Key, sid); ep != "" {
		if c, err := readCheckpoint(e.ProjectDir(p.Key), ep); err == nil {
			c.ArchivedAt = ""
			return c, nil
		}
	}
	return newCheckpoint(sid, p), nil
}

// errDamaged marks a checkpoint or episode that is not a record's JSON (a
// power cut may leave a checkpoint empty: it is not forced to disk).
var errDamaged = errors.New("damaged record")

// writeCheckpoint writes a checkpoint, or with durable an episode, into the
// project folder pdir, following no symlink.
func writeCheckpoint(pdir, path string, c *Checkpoint, durable bool) error {
	data, err := checkpoint.Marshal(&c.Record)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if durable {
		return store.WriteFileAtomicIn(pdir, path, data)
	}
	return store.WriteCacheFileIn(pdir, path, data)
}

// readCheckpoint reads a checkpoint or an episode of the project folder
// pdir, following no symlink.
func readCheckpoint(pdir, path string) (*Checkpoint, error) {
	data, err := store.ReadFileIn(pdir, path, 16<<20)
	if err != nil {
		return nil, err
	}
	var c Checkpoint
	if err := checkpoint.Unmarshal(data, &c.Record); err != nil {
		return nil, fmt.Errorf("%s: %w (%w)", path, errDamaged, err)
	}
	if c.Tools == nil {
		c.Tools = map[string]int{}
	}
	if c.FilesChanged == nil {
		c.FilesChanged = []string{}
	}
	return &c, nil
}

// catchUp reads the transcript from the saved offset to its last complete
// line, then the new lines of the session's subagent transcripts. A
// transcript that shrank or was replaced is read again from 0.
func (c *Checkpoint) catchUp(ctx context.Context, path string) error {
	if path == "" {
		path = c.Transcript.Path
	}
	if path == "" {
		return nil
	}
	if _, ok := transcript.GeminiRecording(path); ok && c.Agent == "" && c.Turns == 0 {
		c.Agent = AgentGemini // a Gemini CLI session's hook (AfterAgent) names its recording
	}
	if c.Agent == AgentGemini {
		return c.catchUpWhole(ctx, path)
	}
	if _, _, ok := opencodeDBSession(path); ok && c.Agent == "" && c.Turns == 0 {
		c.Agent = AgentOpencode // ccmem's opencode plugin names the session of opencode's database
	}
	if c.Agent == AgentOpencode {
		if _, _, ok := opencodeDBSession(path); ok {
			if storeReader == nil && c.Transcript.Path != path {
				// A hook, which does not read the database: ccmem reads
				// it at the turn's end (import --session).
				c.Transcript = checkpoint.TranscriptPos{Path: path}
			}
			return c.catchUpOpencodeStore(ctx, path)
		}
		return c.catchUpOpencode(ctx, path)
	}
	if c.Agent == "" && c.Turns == 0 && IsRollout(path) {
		c.Agent = AgentCodex // a Codex session's hook (Stop) names its rollout
	}
	parse := transcript.Parse
	if c.Agent == AgentCodex {
		parse = transcript.CodexParser()
	}
	pos, err := readNew(ctx, path, c.Transcript, c.reset, c.apply, parse)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// The client has not written it yet (a session just starting):
			// remember where it will be.
			if c.Transcript.Path != path {
				c.Transcript = checkpoint.TranscriptPos{Path: path}
			}
			return nil
		}
		return fmt.Errorf("transcript: %w", err)
	}
	c.Transcript = pos
	if err := c.catchUpSubagents(ctx, path); err != nil {
		return fmt.Errorf("subagent transcript: %w", err)
	}
	return nil
}

// readNew reads a transcript's lines after pos into apply, and returns the
// new position; reset is called first when the file shrank or was replaced
// (it is then read from 0).
func readNew(ctx context.Context, path string, pos checkpoint.TranscriptPos, reset func(), apply func(transcript.Entry), parse func([]byte) (transcript.Entry, bool)) (checkpoint.TranscriptPos, error) {
	f, fi, err := store.OpenRegular(path)
	if err != nil {
		return pos, err
	}
	defer f.Close()
	ino := store.FileID(f, fi)
	if pos.Path != path || (pos.Inode != 0 && pos.Inode != ino) || fi.Size() < pos.Offset+pos.Skip ||
		pos.Tail != 0 && tailSum(f, pos.Offset) != pos.Tail {
		if pos.Path != "" || pos.Offset != 0 {
			reset()
		}
		pos = checkpoint.TranscriptPos{}
	}
	if fi.Size() == pos.Offset+pos.Skip && pos.Path == path {
		pos.Size, pos.Inode = fi.Size(), ino
		return pos, nil // nothing new
	}
	if _, err := f.Seek(pos.Offset+pos.Skip, io.SeekStart); err != nil {
		return pos, err
	}
	stop := func() bool { return ctx.Err() != nil }
	n, skip, err := transcript.ScanFromWith(parse, f, fi.Size()-pos.Offset-pos.Skip, pos.Skip, apply, stop)
	return checkpoint.TranscriptPos{Path: path, Offset: pos.Offset + n, Skip: skip, Size: fi.Size(), Inode: ino, Tail: tailSum(f, pos.Offset+n)}, err
}

// tailSum is a checksum of the (up to) 64 bytes of f before off, never 0;
// 0 when off is 0 or they cannot be read.
func tailSum(f *os.File, off int64) uint64 {
	if off <= 0 {
		return 0
	}
	b := make([]byte, min(off, 64))
	if _, err := f.ReadAt(b, off-int64(len(b))); err != nil {
		return 0
	}
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64() | 1
}

// maxSubagents is the most subagent transcripts one session follows.
const maxSubagents = 500

// SubagentsDir is where the client writes a session's subagent
// transcripts: <session-id>/subagents/ beside the session's transcript.
func SubagentsDir(transcriptPath string) string {
	return filepath.Join(filepath.Dir(transcriptPath), strings.TrimSuffix(filepath.Base(transcriptPath), ".jsonl"), "subagents")
}

// catchUpSubagents reads what the session's subagents (the Agent tool)
// wrote since the last run: their file changes, tool errors and tool
// counts belong to the session, their turns do not. Like the session's
// own transcript, each is read only from where the last run stopped.
func (c *Checkpoint) catchUpSubagents(ctx context.Context, path string) error {
	dir := SubagentsDir(path)
	ents, err := store.ReadDirIn(filepath.Dir(path), dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, de := range ents {
		name := de.Name()
		if ctx.Err() != nil {
			break
		}
		if !de.Type().IsRegular() || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		old, known := c.State.Subagents[name]
		if !known && len(c.State.Subagents) >= maxSubagents {
			continue
		}
		pos, err := readNew(ctx, filepath.Join(dir, name), old, func() {}, c.applySubagent, transcript.Parse)
		if err != nil {
			errs = append(errs, err)
		}
		if c.State.Subagents == nil {
			c.State.Subagents = map[string]checkpoint.TranscriptPos{}
		}
		c.State.Subagents[name] = pos
	}
	return errors.Join(errs...)
}

// applySubagent folds one entry of a subagent's transcript into the
// checkpoint: tool uses (counted apart, in SubagentTools), tool errors and
// the files its edits changed.
func (c *Checkpoint) applySubagent(e transcript.Entry) {
	// Its notes belong to the turn it worked in, which may be earlier
	// than the last one read (an import reads the whole session first).
	if t := c.turnAt(e.Timestamp); t != c.Turns {
		defer func(turns int) { c.Turns = turns }(c.Turns)
		c.Turns = t
	}
	switch e.Kind {
	case transcript.Assistant:
		for _, u := range e.Tools {
			if c.SubagentTools == nil {
				c.SubagentTools = map[string]int{}
			}
			c.SubagentTools[u.Name]++
			if ps := u.FilePaths(); len(ps) > 0 && len(c.State.PendingFiles) < maxPending {
				if c.State.PendingFiles == nil {
					c.State.PendingFiles = map[string]string{}
				}
				c.State.PendingFiles[u.ID] = strings.Join(ps, "\n") // a patch's files, one a line
			}
		}
		c.noteCalls(e) // its commands and files read are the session's too
	case transcript.ToolResults:
		c.applyResults(e.Results, e.Timestamp)
	}
}

// MaxWhole bounds a session file read whole (a Gemini CLI recording).
const MaxWhole = 64 << 20

// catchUpWhole brings the record up to date with a session file that is
// not a log of moments but a state, rewritten as the session goes (a
// Gemini CLI recording): unchanged, nothing is read; changed, it is read
// whole and the record rebuilt from it.
func (c *Checkpoint) catchUpWhole(ctx context.Context, path string) error {
	f, fi, err := store.OpenRegular(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("session file: %w", err)
	}
	defer f.Close()
	if c.Transcript.Path == path && c.Transcript.Size == fi.Size() {
		return nil
	}
	if fi.Size() > MaxWhole {
		return fmt.Errorf("session file: %s is over %d MB", path, MaxWhole>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxWhole))
	if err != nil {
		return fmt.Errorf("session file: %w", err)
	}
	s := transcript.ReadGemini(data, strings.HasSuffix(path, ".jsonl"))
	c.reset()
	for _, e := range s.Entries {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.apply(e)
	}
	c.Transcript = checkpoint.TranscriptPos{Path: path, Offset: fi.Size(), Size: fi.Size()}
	return nil
}

// maxOpencodeFiles bounds the files of one opencode session read.
const maxOpencodeFiles = transcript.MaxOpencodeFiles

// catchUpOpencode rebuilds the record of an opencode session of its JSON
// storage (path: its session's file, in either layout) from its message
// and part files when any of them changed, as for a recording read whole.
func (c *Checkpoint) catchUpOpencode(ctx context.Context, path string) error {
	stamp, messages, parts, err := transcript.ReadOpencodeStorage(ctx, path, maxOpencodeFiles)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("opencode session: %w", err)
	}
	return c.rebuildOpencode(ctx, path, stamp, messages, parts)
}

// rebuildOpencode rebuilds the record of an opencode session from its
// messages and parts (their JSON) unless their stamp is the one read last.
func (c *Checkpoint) rebuildOpencode(ctx context.Context, path string, stamp int64, messages [][]byte, parts map[string][][]byte) error {
	if c.Transcript.Path == path && c.Transcript.Size == stamp {
		return nil
	}
	entries := transcript.OpencodeEntries(messages, parts)
	c.reset()
	for _, e := range entries {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.apply(e)
	}
	c.Transcript = checkpoint.TranscriptPos{Path: path, Offset: stamp, Size: stamp}
	return nil
}
