// Package transcript reads the sessions of the agents ccmem serves into
// one shape (Entry): Claude Code's transcripts (JSONL, one object per
// line, appended) incrementally, from a byte offset to the last complete
// line, skipping the many kinds of line ccmem does not use without
// decoding them; and Codex CLI's rollouts, Gemini CLI's recordings and
// opencode's messages, each in its own file of this package.
package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/pkg/jsonread"
)

// Kind is what a line means to ccmem.
type Kind int

// The kinds of line ccmem uses; every other line is Other.
const (
	Other Kind = iota
	// Prompt is a real user prompt, or a slash command's echo (Command set).
	Prompt
	// ToolResults is a user line carrying tool results.
	ToolResults
	// Assistant is (part of) an assistant message.
	Assistant
	// Compaction is a compact_boundary system line.
	Compaction
	// Meta is a user line that is not a prompt: compaction summaries,
	// local command output, caveats, system reminders.
	Meta
	// Dequeued is the client taking a queued prompt up: a transcript that
	// opens with one (before its first prompt) had its prompt come with
	// the command (`claude -p "…"`), not typed by a person; clients from
	// before the entrypoint field say it no other way.
	Dequeued
)

// ToolUse is one tool call of an assistant message.
type ToolUse struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// Base is the tool's name without an MCP server's prefix: Claude Code in
// an editor (Zed's mcp__acp__Edit) and other hosts expose the same tools
// under mcp__<server>__<name>.
func (t ToolUse) Base() string {
	if rest, ok := strings.CutPrefix(t.Name, "mcp__"); ok {
		if i := strings.LastIndex(rest, "__"); i >= 0 {
			return rest[i+2:]
		}
	}
	return t.Name
}

// writeTools and readTools are the tools (by Base name) that change and
// read a file named in their input.
var (
	writeTools = []string{"Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "edit_file", "create_file", "str_replace_editor", "apply_patch"}
	readTools  = []string{"Read", "read_file", "view_file", "NotebookRead"}
	shellTools = []string{"Bash", "bash", "shell", "run_terminal_cmd", "execute_command", "PowerShell"}
)

// Input is what ccmem reads of a tool call's input.
type Input struct {
	File    string // file_path, notebook_path or path
	Command string // a shell tool's command
	Skill   string // the Skill tool's skill
}

// Input reads the tool call's input: the file it names, its command.
func (t ToolUse) Inputs() Input {
	var in Input
	var filePath, notebookPath, path string
	d := jsonread.New(t.Input)
	d.Value(func() {
		d.Object(func(k string) {
			switch d.Field(k, inputKeys) {
			case "file_path":
				d.Str(&filePath)
			case "notebook_path":
				d.Str(&notebookPath)
			case "path":
				d.Str(&path)
			case "command":
				d.Str(&in.Command)
			case "skill":
				d.Str(&in.Skill)
			default:
				d.Skip()
			}
		})
	})
	if d.End() != nil {
		return Input{}
	}
	in.File = firstOf(filePath, notebookPath, path)
	return in
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// FilePath is the file a call changes — Write, Edit, MultiEdit,
// NotebookEdit and their kin under any MCP server's prefix — or "".
func (t ToolUse) FilePath() string {
	if !slices.Contains(writeTools, t.Base()) {
		return ""
	}
	return t.Inputs().File
}

// FilePaths are the files a call changes: FilePath's, or the files a
// patch names (Codex's apply_patch, whose input lists them as "files").
func (t ToolUse) FilePaths() []string {
	if p := t.FilePath(); p != "" {
		return []string{p}
	}
	if t.Base() != "apply_patch" {
		return nil
	}
	var in struct {
		Files []string `json:"files"`
	}
	if json.Unmarshal(t.Input, &in) != nil {
		return nil
	}
	return in.Files
}

// ReadPath is the file a call reads (Read and its kin, and ccmem's own
// MCP get), or "".
func (t ToolUse) ReadPath() string {
	if !slices.Contains(readTools, t.Base()) && !(t.Base() == "get" && strings.Contains(t.Name, "ccmem")) {
		return ""
	}
	return t.Inputs().File
}

// Command is the command a shell tool call runs, or "".
func (t ToolUse) Command() string {
	if !slices.Contains(shellTools, t.Base()) {
		return ""
	}
	return t.Inputs().Command
}

// Skill is the skill a Skill tool call runs, or "".
func (t ToolUse) Skill() string {
	if t.Name != "Skill" {
		return ""
	}
	return t.Inputs().Skill
}

// ToolResult is the outcome of one tool call.
type ToolResult struct {
	ID      string
	IsError bool
	// Declined is set when the call never ran because the user said no,
	// a permission was denied or a hook blocked it: not an error of the
	// work.
	Declined bool
	// Cancelled is set when the call never ran because another call of
	// the same batch failed: neither a failure nor a refusal.
	Cancelled bool
	// Text is the start of the result's text (for error classification).
	Text string
}

// declinedMarks are what the client writes as the result of a call it did
// not run because the user or a rule said no (read from the client's own
// messages, 2.1.x).
var declinedMarks = []string{
	"The user doesn't want to proceed with this tool use",
	"The user doesn't want to take this action",
	"but you haven't granted it yet",
	"has been denied",
	"Blocked by hook",
	"hook blocking error",
	"hook error:",
	"User rejected",
}

// cancelledMark is the client's result for a call it did not run
// because a sibling call of the same batch errored (2.1.x).
const cancelledMark = "Cancelled: parallel tool call"

// isDeclined tells whether an error result is a refusal, not a failure.
func isDeclined(text string) bool {
	for _, m := range declinedMarks {
		if strings.Contains(text, m) {
			return m != "has been denied" || strings.Contains(text, "Permission to use")
		}
	}
	return false
}

// Entry is one decoded line.
type Entry struct {
	Kind      Kind
	Timestamp string
	GitBranch string
	Version   string
	Cwd       string
	Sidechain bool
	// SessionID is the line's session (a forked session's transcript
	// starts with lines of the session it was forked from).
	SessionID string
	// Prompt: the user's text. Command is the slash command ("/compact")
	// when the line is a command echo.
	Text    string
	Command string
	// Prompt: where it came from — Entrypoint (cli, sdk-cli, claude-vscode,
	// sdk-ts…), PromptSource (typed, sdk, system) and TurnOrigin (human,
	// sdk), as the client records them.
	Entrypoint, PromptSource, TurnOrigin string
	// Interrupted is set on the client's "[Request interrupted by user]"
	// line; Declined on "[Request interrupted by user for tool use]", the
	// user's "no" to a tool call.
	Interrupted bool
	Declined    bool
	// Assistant.
	MessageID string
	Model     string
	Tools     []ToolUse
	// ToolResults.
	Results []ToolResult
	// Compaction.
	Trigger string
}

// wanted are byte patterns one of which every useful line contains; a line
// without any is skipped without being decoded (most bytes of a transcript
// are api-request blobs, attachments and snapshots).
var compactType = []byte(`"type":"`)

var wanted = [][]byte{[]byte(`"type":"user"`), []byte(`"type":"assistant"`), []byte(`"compact_boundary"`), []byte(`"type":"queue-operation"`)}

// progress opens the lines older clients (2.1.x before about 2.1.100)
// wrote for hook, shell and subagent progress, a quarter of a real
// transcript's bytes: their data holds whole nested user and assistant
// messages, which would pass for wanted. Its type key comes before its
// data, so the scan meets it first.
var progress = []byte(`"type":"progress","data":`)

// containsWanted tells whether line contains one of wanted before any
// progress mark, in one pass: each begins with a quote, and most bytes of
// a skipped line are long strings with few quotes in them.
func containsWanted(line []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(line[i:], '"')
		if j < 0 {
			return false
		}
		rest := line[i+j:]
		if len(rest) > 7 && rest[1] == 't' {
			for _, w := range [...][]byte{wanted[0], wanted[1], wanted[3]} {
				if bytes.HasPrefix(rest, w) {
					return true
				}
			}
			if bytes.HasPrefix(rest, progress) {
				return false
			}
		} else if len(rest) > 7 && rest[1] == 'c' && bytes.HasPrefix(rest, wanted[2]) {
			return true
		}
		i += j + 1
	}
}

type rawLine struct {
	Type             string `json:"type"`
	Subtype          string `json:"subtype"`
	Timestamp        string `json:"timestamp"`
	GitBranch        string `json:"gitBranch"`
	Version          string `json:"version"`
	Cwd              string `json:"cwd"`
	SessionID        string `json:"sessionId"`
	Entrypoint       string `json:"entrypoint"`
	TurnOrigin       string `json:"turnOrigin"`
	IsMeta           bool   `json:"isMeta"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	IsSidechain      bool   `json:"isSidechain"`
	// PromptSource is "system" on a user line the client wrote itself
	// (a background task's notification), not the user.
	PromptSource string `json:"promptSource"`
	// Operation is a queue-operation line's: enqueue, dequeue, remove.
	Operation       string           `json:"operation"`
	Message         *rawMessage      `json:"message"`
	CompactMetadata *compactMetadata `json:"compactMetadata"`
}

type compactMetadata struct {
	Trigger string `json:"trigger"`
}

type rawMessage struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

// Transcript lines are decoded by hand (pkg/jsonread): a hook decodes
// thousands on a first pass, and encoding/json's reflective set-up for
// these types costs a short-lived process more than the lines do.
// FuzzParseMatchesEncodingJSON holds the two the same.
var (
	lineKeys     = []string{"type", "subtype", "timestamp", "gitBranch", "version", "cwd", "sessionId", "entrypoint", "turnOrigin", "isMeta", "isCompactSummary", "isSidechain", "promptSource", "operation", "message", "compactMetadata"}
	messageKeys  = []string{"id", "model", "content"}
	metadataKeys = []string{"trigger"}
	blockKeys    = []string{"type", "text", "id", "name", "input", "tool_use_id", "is_error", "content"}
	inputKeys    = []string{"file_path", "notebook_path", "path", "command", "skill"}
)

// decodeLine is json.Unmarshal(line, r).
func decodeLine(line []byte, r *rawLine) error {
	d := jsonread.New(line)
	d.Value(func() {
		d.Object(func(k string) {
			switch d.Field(k, lineKeys) {
			case "type":
				d.Str(&r.Type)
			case "subtype":
				d.Str(&r.Subtype)
			case "timestamp":
				d.Str(&r.Timestamp)
			case "gitBranch":
				d.Str(&r.GitBranch)
			case "version":
				d.Str(&r.Version)
			case "cwd":
				d.Str(&r.Cwd)
			case "sessionId":
				d.Str(&r.SessionID)
			case "entrypoint":
				d.Str(&r.Entrypoint)
			case "turnOrigin":
				d.Str(&r.TurnOrigin)
			case "isMeta":
				d.Bool(&r.IsMeta)
			case "isCompactSummary":
				d.Bool(&r.IsCompactSummary)
			case "isSidechain":
				d.Bool(&r.IsSidechain)
			case "promptSource":
				d.Str(&r.PromptSource)
			case "operation":
				d.Str(&r.Operation)
			case "message":
				// A value of another type fails the line, as in
				// encoding/json: what it left allocated is not used.
				d.Nullable(func() { r.Message = nil }, func() {
					if r.Message == nil {
						r.Message = &rawMessage{}
					}
					m := r.Message
					d.Object(func(k string) {
						switch d.Field(k, messageKeys) {
						case "id":
							d.Str(&m.ID)
						case "model":
							d.Str(&m.Model)
						case "content":
							m.Content = d.Raw()
						default:
							d.Skip()
						}
					})
				})
			case "compactMetadata":
				d.Nullable(func() { r.CompactMetadata = nil }, func() {
					if r.CompactMetadata == nil {
						r.CompactMetadata = &compactMetadata{}
					}
					cm := r.CompactMetadata
					d.Object(func(k string) {
						if d.Field(k, metadataKeys) == "trigger" {
							d.Str(&cm.Trigger)
						} else {
							d.Skip()
						}
					})
				})
			default:
				d.Skip()
			}
		})
	})
	return d.End()
}

// decodeText is json.Unmarshal(raw, &s) for a string.
func decodeText(raw []byte, s *string) error {
	d := jsonread.New(raw)
	d.Str(s)
	return d.End()
}

// decodeBlocks is json.Unmarshal(raw, &blocks), whose error the callers
// ignore: like encoding/json it fills what it can around values of the
// wrong type.
func decodeBlocks(raw []byte) []block {
	var blocks []block
	d := jsonread.New(raw)
	d.Nullable(func() {}, func() {
		d.Array(func() {
			var b block
			d.Value(func() {
				d.Object(func(k string) {
					switch d.Field(k, blockKeys) {
					case "type":
						d.Str(&b.Type)
					case "text":
						d.Str(&b.Text)
					case "id":
						d.Str(&b.ID)
					case "name":
						d.Str(&b.Name)
					case "input":
						b.Input = d.Raw()
					case "tool_use_id":
						d.Str(&b.ToolUseID)
					case "is_error":
						d.Bool(&b.IsError)
					case "content":
						b.Content = d.Raw()
					default:
						d.Skip()
					}
				})
			})
			blocks = append(blocks, b)
		})
	})
	if d.End(); d.SyntaxError() != nil {
		return nil
	}
	return blocks
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// Parse decodes one line; ok is false for lines ccmem does not use and for
// lines that are not valid JSON.
func Parse(line []byte) (Entry, bool) {
	useful := containsWanted(line)
	// The byte match assumes Claude Code's compact JSON. A line that does
	// not match but is not compact either (`"type": "user"`, written with
	// spaces) is decoded in full rather than dropped.
	if !useful && bytes.Contains(line, compactType) {
		return Entry{}, false
	}
	var r rawLine
	if err := decodeLine(line, &r); err != nil {
		return Entry{}, false
	}
	return build(r, handCodec)
}

// codec decodes the parts of a line Parse reads lazily: message content
// as a string or as blocks. Parse decodes by hand; its fuzz test passes
// encoding/json's decoding through the same build.
type codec struct {
	text   func(raw []byte, s *string) error
	blocks func(raw []byte) []block
	// head decodes a string's first n bytes (at least).
	head func(raw []byte, n int) (string, error)
}

var handCodec = codec{text: decodeText, blocks: decodeBlocks, head: jsonread.TextPrefix}

// build makes the Entry of a decoded line.
func build(r rawLine, dec codec) (Entry, bool) {
	e := Entry{Timestamp: r.Timestamp, GitBranch: r.GitBranch, Version: r.Version, Cwd: r.Cwd, Sidechain: r.IsSidechain, SessionID: r.SessionID}
	switch r.Type {
	case "queue-operation":
		if r.Operation != "dequeue" {
			return Entry{}, false
		}
		e.Kind = Dequeued
		return e, true
	case "system":
		if r.Subtype != "compact_boundary" {
			return Entry{}, false
		}
		e.Kind = Compaction
		if r.CompactMetadata != nil {
			e.Trigger = r.CompactMetadata.Trigger
		}
		return e, true
	case "assistant":
		if r.Message == nil {
			return Entry{}, false
		}
		e.Kind, e.MessageID, e.Model = Assistant, r.Message.ID, r.Message.Model
		var texts []string
		for _, b := range dec.blocks(r.Message.Content) {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "tool_use":
				e.Tools = append(e.Tools, ToolUse{ID: b.ID, Name: b.Name, Input: b.Input})
			}
		}
		e.Text = strings.Join(texts, "\n")
		return e, true
	case "user":
		if r.Message == nil {
			return Entry{}, false
		}
		return userEntry(e, r, dec), true
	}
	return Entry{}, false
}

func userEntry(e Entry, r rawLine, dec codec) Entry {
	content := r.Message.Content
	var text string
	if dec.text(content, &text) != nil {
		var texts []string
		for _, b := range dec.blocks(content) {
			switch b.Type {
			case "tool_result":
				res := ToolResult{ID: b.ToolUseID, IsError: b.IsError, Text: resultText(b.Content, dec)}
				res.Declined = res.IsError && isDeclined(res.Text)
				if res.IsError && strings.Contains(res.Text, cancelledMark) {
					// Never ran: another call of the same batch failed.
					res.IsError, res.Cancelled = false, true
				}
				e.Results = append(e.Results, res)
			case "text":
				texts = append(texts, b.Text)
			}
		}
		if len(e.Results) > 0 {
			e.Kind = ToolResults
			return e
		}
		text = strings.Join(texts, "\n")
	}
	e.Text = text
	trimmed := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(trimmed, "[Request interrupted by user for tool use"):
		e.Kind, e.Declined = Meta, true
	case strings.HasPrefix(trimmed, "[Request interrupted by user"):
		e.Kind, e.Interrupted = Meta, true
	case r.IsCompactSummary, strings.HasPrefix(trimmed, "This session is being continued from a previous conversation"):
		e.Kind = Meta
	case strings.HasPrefix(trimmed, "<command-name>"),
		// 2.1.330 puts the command's message first.
		strings.HasPrefix(trimmed, "<command-message>") && strings.Contains(trimmed, "<command-name>"):
		e.Kind = Prompt
		e.Command = between(trimmed, "<command-name>", "</command-name>")
		e.Text = strings.TrimSpace(e.Command + " " + between(trimmed, "<command-args>", "</command-args>"))
	case r.IsMeta, trimmed == "", r.PromptSource == "system",
		strings.HasPrefix(trimmed, "<task-notification>"),
		strings.HasPrefix(trimmed, "<local-command-"),
		strings.HasPrefix(trimmed, "<system-reminder>"),
		strings.HasPrefix(trimmed, "<command-message>"),
		strings.HasPrefix(trimmed, "<bash-"),
		strings.HasPrefix(trimmed, "Caveat: "),
		// The client's answer to a slash command it does not know, written
		// as a user line: nobody typed it (issue 51, finding 6).
		strings.HasPrefix(trimmed, "Unknown skill: "), strings.HasPrefix(trimmed, "Unknown command: "),
		strings.HasPrefix(trimmed, "Unknown slash command"):
		e.Kind = Meta
	default:
		e.Kind = Prompt
	}
	if e.Kind == Prompt {
		e.Entrypoint, e.PromptSource, e.TurnOrigin = r.Entrypoint, r.PromptSource, r.TurnOrigin
	}
	return e
}

func between(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	s = s[i+len(open):]
	if j := strings.Index(s, close); j >= 0 {
		s = s[:j]
	}
	return strings.TrimSpace(s)
}

// resultLen is how much of a tool result's text an Entry keeps: enough
// for an error's first lines.
const resultLen = 400

// resultText returns the first resultLen bytes of a tool result's
// content, which is a string or a list of text blocks.
func resultText(raw []byte, dec codec) string {
	s, err := dec.head(raw, resultLen)
	if err != nil {
		s = ""
		for _, b := range dec.blocks(raw) {
			if b.Type == "text" {
				s = b.Text
				break
			}
		}
	}
	if len(s) > resultLen {
		s = s[:resultLen]
	}
	return s
}

// MaxLine is the longest line Scan decodes; a longer one (a pasted file,
// a huge tool result) is skipped without being held in memory.
const MaxLine = 8 << 20

// Scan reads r from its current position and calls fn for every useful
// complete line. It returns how many bytes it consumed: through the last
// newline, so an incomplete last line (the client may be mid-write) is left
// for the next scan. stop is polled every so often; when it returns true the
// scan ends early, at a line boundary.
func Scan(r io.Reader, fn func(Entry), stop func() bool) (consumed int64, err error) {
	consumed, _, err = ScanFrom(r, -1, 0, fn, stop)
	return consumed, err
}

// ScanFrom is Scan for a reader known to hold about size bytes (-1:
// unknown: a small catch-up then reads through a small buffer, which a
// short-lived hook process need not allocate and fault in a megabyte for),
// positioned skip bytes into a line already known to be longer than
// MaxLine (0: at a line's start). It returns the bytes consumed through the
// last complete line, counted from that line's start, and, when the scan
// ends inside a line longer than MaxLine, how much of it was read: a later
// scan resumes there instead of reading it again. stop is polled every 256
// lines and every 16 MB of one long line.
func ScanFrom(r io.Reader, size, skip int64, fn func(Entry), stop func() bool) (consumed, skipped int64, err error) {
	return ScanFromWith(Parse, r, size, skip, fn, stop)
}

// ScanFromWith is ScanFrom with the reader of one line: Parse for a
// Claude Code transcript, ParseCodex for a Codex rollout.
func ScanFromWith(parse func([]byte) (Entry, bool), r io.Reader, size, skip int64, fn func(Entry), stop func() bool) (consumed, skipped int64, err error) {
	bufSize := 1 << 20
	if size >= 0 && size+4096 < int64(bufSize) {
		bufSize = max(4096, int(size)+4096)
	}
	br := bufio.NewReaderSize(r, bufSize)
	var long []byte
	longLen := skip // bytes of the current overlong line, kept or not
	polls, chunks := 0, 0
	inLong := func() int64 {
		if longLen > MaxLine {
			return longLen
		}
		return 0 // short enough to read again next time
	}
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			line := chunk
			whole := true // the line was kept entire
			if longLen > 0 {
				whole = longLen == int64(len(long))
				line = append(long, chunk...)
				consumed += longLen - int64(len(long))
				long, longLen = nil, 0
			}
			consumed += int64(len(line))
			if whole && len(line) <= MaxLine {
				if e, ok := parse(line); ok {
					fn(e)
				}
			}
			if polls++; polls%256 == 0 && stop != nil && stop() {
				return consumed, 0, nil
			}
		case errors.Is(err, bufio.ErrBufferFull):
			// A line longer than the buffer: gather it, up to MaxLine;
			// beyond that it is only counted and then skipped.
			if longLen == int64(len(long)) && len(long)+len(chunk) <= MaxLine {
				long = append(long, chunk...)
			}
			longLen += int64(len(chunk))
			if chunks++; chunks%16 == 0 && stop != nil && stop() {
				return consumed, inLong(), nil
			}
		case errors.Is(err, io.EOF):
			if len(chunk) > 0 {
				longLen += int64(len(chunk))
			}
			return consumed, inLong(), nil
		default:
			return consumed, inLong(), err
		}
	}
}
