package transcript

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
)

// Gemini CLI records a session under ~/.gemini/tmp/<project>/chats/, as
// session-<time>-<id>.json (older: one ConversationRecord, the whole
// session) or .jsonl (newer: an operation log — a metadata line, then
// message records rewritten in full by id as their tool calls progress,
// {"$set": {…}} patches of the metadata, whose "messages" replaces the
// whole list, and {"$rewindTo": id}, which drops that message and every
// one after it). A record is not a moment of the session, so a file is
// read whole and replayed: ReadGemini gives the entries its final state
// holds, as a Claude Code transcript's would be.

// GeminiRecording tells whether path is a Gemini CLI recording,
// …/tmp/<project>/chats/session-*.json or .jsonl, and gives the name
// ccmem knows its session by: the file's name without its extension
// ("session-2026-11-28T03-37-96ccf475"), whether ccmem met the session in
// Gemini's hooks or imported it later (the hooks' session_id is not in
// the file's name).
func GeminiRecording(path string) (name string, ok bool) {
	base := filepath.Base(path)
	name = strings.TrimSuffix(strings.TrimSuffix(base, ".jsonl"), ".json")
	dir := filepath.Dir(path)
	if name == base || !strings.HasPrefix(name, "session-") || len(name) == len("session-") || filepath.Base(dir) != "chats" ||
		filepath.Base(filepath.Dir(filepath.Dir(dir))) != "tmp" {
		return "", false
	}
	return name, true
}

// GeminiSession is what a Gemini CLI recording holds.
type GeminiSession struct {
	SessionID   string
	ProjectHash string
	StartTime   string
	// Directories are the session's workspace folders (the first is
	// where it ran), when the recording names them.
	Directories []string
	Entries     []Entry
}

// geminiMeta is a recording's metadata (and, in a .json, its messages).
type geminiMeta struct {
	SessionID   string            `json:"sessionId"`
	ProjectHash string            `json:"projectHash"`
	StartTime   string            `json:"startTime"`
	Directories []string          `json:"directories"`
	Messages    []json.RawMessage `json:"messages"`
}

// geminiMessage is one message record.
type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	// DisplayContent is what the client showed of a user message: the
	// prompt without what a BeforeAgent hook added.
	DisplayContent json.RawMessage `json:"displayContent"`
	Model          string          `json:"model"`
	ToolCalls      []struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Result json.RawMessage `json:"result"`
		Status string          `json:"status"`
	} `json:"toolCalls"`
}

// ReadGemini replays a recording: jsonl for the operation log, else a
// whole ConversationRecord. A line that is not JSON (a torn last line)
// and a record of a shape it does not know are passed over.
func ReadGemini(data []byte, jsonl bool) GeminiSession {
	var meta geminiMeta
	var order []string
	msgs := map[string]json.RawMessage{}
	setAll := func(list []json.RawMessage) {
		order, msgs = nil, map[string]json.RawMessage{}
		for _, raw := range list {
			upsert(&order, msgs, raw)
		}
	}
	if !jsonl {
		if json.Unmarshal(data, &meta) == nil {
			setAll(meta.Messages)
		}
	} else {
		first := true
		for _, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			var rec map[string]json.RawMessage
			if json.Unmarshal(line, &rec) != nil {
				continue
			}
			switch {
			case rec["$rewindTo"] != nil:
				var id string
				_ = json.Unmarshal(rec["$rewindTo"], &id)
				for i, o := range order {
					if o == id {
						for _, gone := range order[i:] {
							delete(msgs, gone)
						}
						order = order[:i]
						break
					}
				}
			case rec["$set"] != nil:
				var patch geminiMeta
				if json.Unmarshal(rec["$set"], &patch) == nil {
					mergeMeta(&meta, patch)
					var has map[string]json.RawMessage
					if json.Unmarshal(rec["$set"], &has) == nil && has["messages"] != nil {
						setAll(patch.Messages)
					}
				}
			case rec["id"] != nil && rec["type"] != nil:
				upsert(&order, msgs, line)
			case first:
				var m geminiMeta
				if json.Unmarshal(line, &m) == nil {
					mergeMeta(&meta, m)
					if len(m.Messages) > 0 {
						setAll(m.Messages)
					}
				}
			}
			first = false
		}
	}
	s := GeminiSession{SessionID: meta.SessionID, ProjectHash: meta.ProjectHash, StartTime: meta.StartTime, Directories: meta.Directories}
	for _, id := range order {
		var m geminiMessage
		if json.Unmarshal(msgs[id], &m) != nil {
			continue
		}
		s.Entries = append(s.Entries, geminiEntries(m)...)
	}
	return s
}

func mergeMeta(meta *geminiMeta, p geminiMeta) {
	if p.SessionID != "" {
		meta.SessionID = p.SessionID
	}
	if p.ProjectHash != "" {
		meta.ProjectHash = p.ProjectHash
	}
	if p.StartTime != "" {
		meta.StartTime = p.StartTime
	}
	if len(p.Directories) > 0 {
		meta.Directories = p.Directories
	}
}

// upsert keeps a message record by its id: a new id goes last, a known
// one is replaced where it is.
func upsert(order *[]string, msgs map[string]json.RawMessage, raw json.RawMessage) {
	var head struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(raw, &head) != nil || head.ID == "" {
		return
	}
	if _, ok := msgs[head.ID]; !ok {
		*order = append(*order, head.ID)
	}
	msgs[head.ID] = raw
}

// geminiText is a message's content: a string, or parts with text.
func geminiText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// geminiTyped is what the person typed of a user message's text: not the
// client's <session_context> block, not context a hook added before the
// prompt (<hook_context>…</hook_context>), not the contents of the files
// an @file reference pulled in.
func geminiTyped(text string) string {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "<session_context>") {
		return ""
	}
	for strings.HasPrefix(t, "<hook_context>") {
		_, rest, ok := strings.Cut(t, "</hook_context>")
		if !ok {
			return ""
		}
		t = strings.TrimSpace(rest)
	}
	if before, _, ok := strings.Cut(t, "--- Content from referenced files ---"); ok {
		t = strings.TrimSpace(before)
	}
	return t
}

// geminiEntries are the entries of one message: a prompt, or a reply with
// its tool calls and then their results.
func geminiEntries(m geminiMessage) []Entry {
	text := geminiText(m.Content)
	switch m.Type {
	case "user":
		if len(m.DisplayContent) > 0 {
			if d := geminiText(m.DisplayContent); strings.TrimSpace(d) != "" {
				text = d
			}
		}
		text = geminiTyped(text)
		if strings.TrimSpace(text) == "" {
			return nil
		}
		e := Entry{Kind: Prompt, Timestamp: m.Timestamp, Text: text, Entrypoint: "gemini", PromptSource: "typed", TurnOrigin: "human"}
		if strings.HasPrefix(text, "/") {
			e.Command, _, _ = strings.Cut(text, " ")
		}
		return []Entry{e}
	case "gemini", "model", "assistant":
		e := Entry{Kind: Assistant, Timestamp: m.Timestamp, Text: text, MessageID: m.ID, Model: m.Model}
		res := Entry{Kind: ToolResults, Timestamp: m.Timestamp}
		for _, tc := range m.ToolCalls {
			e.Tools = append(e.Tools, geminiTool(tc.ID, tc.Name, tc.Args))
			if tc.Status != "" || len(tc.Result) > 0 {
				out := geminiResult(tc.Result)
				res.Results = append(res.Results, ToolResult{ID: tc.ID, IsError: tc.Status == "error" || tc.Status == "cancelled", Text: out})
			}
		}
		if len(res.Results) > 0 {
			return []Entry{e, res}
		}
		return []Entry{e}
	}
	return nil // info, error, warning: the client's own
}

// geminiTool is a Gemini CLI tool call as the Claude Code tool it stands
// for: run_shell_command is Bash, the file tools Read, Write and Edit.
func geminiTool(id, name string, args json.RawMessage) ToolUse {
	var a struct {
		Command      string `json:"command"`
		FilePath     string `json:"file_path"`
		AbsolutePath string `json:"absolute_path"`
	}
	_ = json.Unmarshal(args, &a)
	path := a.FilePath
	if path == "" {
		path = a.AbsolutePath
	}
	in := func(m map[string]string) json.RawMessage { b, _ := json.Marshal(m); return b }
	switch name {
	case "run_shell_command":
		if a.Command != "" {
			return ToolUse{ID: id, Name: "Bash", Input: in(map[string]string{"command": a.Command})}
		}
	case "read_file":
		return ToolUse{ID: id, Name: "Read", Input: in(map[string]string{"file_path": path})}
	case "write_file":
		return ToolUse{ID: id, Name: "Write", Input: in(map[string]string{"file_path": path})}
	case "replace", "edit":
		return ToolUse{ID: id, Name: "Edit", Input: in(map[string]string{"file_path": path})}
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return ToolUse{ID: id, Name: name, Input: args}
}

// geminiResult is a tool result's text: a string, or the output a
// function response holds.
func geminiResult(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return clipResult(s)
	}
	// [{"functionResponse": {"response": {"output": "…"}}}]
	var parts []struct {
		FunctionResponse struct {
			Response struct {
				Output string `json:"output"`
				Error  string `json:"error"`
			} `json:"response"`
		} `json:"functionResponse"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			out = append(out, p.FunctionResponse.Response.Output+p.FunctionResponse.Response.Error)
		}
		return clipResult(strings.Join(out, "\n"))
	}
	return ""
}

// clipResult is a tool's output as kept: without the context a hook
// appended to it ("\n\n<hook_context>…"), at most 4 KB.
func clipResult(s string) string {
	if before, _, ok := strings.Cut(s, "\n\n<hook_context>"); ok {
		s = before
	}
	if len(s) > 4096 {
		s = s[:4096]
	}
	return strings.ToValidUTF8(s, "")
}
