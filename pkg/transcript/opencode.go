package transcript

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// opencode (before its SQLite store, read through OpencodeRow) keeps a
// session in JSON files under
// ~/.local/share/opencode/storage/: session/<project>/ses_<id>.json (its
// folder, title and times), message/ses_<id>/msg_*.json (each message's
// role and time) and part/msg_<id>/prt_*.json (a message's parts: text,
// and tool calls with their input, output and status). OpencodeEntries
// reads them, already read, into the entries a Claude Code transcript
// would give.

// OpencodeSession is a session file's part ccmem reads.
type OpencodeSession struct {
	ID        string `json:"id"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	ParentID  string `json:"parentID"`
	Time      struct {
		Created int64 `json:"created"`
	} `json:"time"`
}

type opencodeMessage struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	Time struct {
		Created int64 `json:"created"`
	} `json:"time"`
	ModelID string `json:"modelID"`
}

type opencodePart struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Text   string `json:"text"`
	Tool   string `json:"tool"`
	CallID string `json:"callID"`
	State  struct {
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output string          `json:"output"`
		Error  string          `json:"error"`
	} `json:"state"`
	Synthetic bool `json:"synthetic"`
}

// OpencodeRow is a message's or a part's row of opencode's SQLite store
// (its id, and its data column: the JSON its file held, less the ids the
// row's other columns hold) as the JSON its file held; nil when data is no
// JSON object.
func OpencodeRow(id, data string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(data), &m) != nil || m == nil {
		return nil
	}
	m["id"], _ = json.Marshal(id)
	b, _ := json.Marshal(m)
	return b
}

// OpencodeEntries reads a session's messages (their files' contents) and
// each message's parts (by message id) into entries, in time order. A
// file that is not JSON is passed over.
func OpencodeEntries(messages [][]byte, parts map[string][][]byte) []Entry {
	var msgs []opencodeMessage
	for _, data := range messages {
		var m opencodeMessage
		if json.Unmarshal(data, &m) == nil && m.ID != "" {
			msgs = append(msgs, m)
		}
	}
	slices.SortStableFunc(msgs, func(a, b opencodeMessage) int {
		return cmp.Or(cmp.Compare(a.Time.Created, b.Time.Created), strings.Compare(a.ID, b.ID))
	})
	var out []Entry
	for _, m := range msgs {
		var ps []opencodePart
		for _, data := range parts[m.ID] {
			var p opencodePart
			if json.Unmarshal(data, &p) == nil {
				ps = append(ps, p)
			}
		}
		slices.SortStableFunc(ps, func(a, b opencodePart) int { return strings.Compare(a.ID, b.ID) })
		ts := ""
		if m.Time.Created > 0 {
			ts = time.UnixMilli(m.Time.Created).UTC().Format(time.RFC3339Nano)
		}
		var texts []string
		for _, p := range ps {
			if p.Type == "text" && !p.Synthetic && strings.TrimSpace(p.Text) != "" {
				texts = append(texts, p.Text)
			}
		}
		text := strings.Join(texts, "\n")
		switch m.Role {
		case "user":
			if text != "" {
				out = append(out, Entry{Kind: Prompt, Timestamp: ts, Text: text, Entrypoint: "opencode", PromptSource: "typed", TurnOrigin: "human"})
			}
		case "assistant":
			e := Entry{Kind: Assistant, Timestamp: ts, Text: text, MessageID: m.ID, Model: m.ModelID}
			res := Entry{Kind: ToolResults, Timestamp: ts}
			for _, p := range ps {
				if p.Type != "tool" {
					continue
				}
				e.Tools = append(e.Tools, opencodeTool(p))
				switch p.State.Status {
				case "completed", "error":
					out := p.State.Output
					if p.State.Status == "error" {
						out = p.State.Error + out
					}
					res.Results = append(res.Results, ToolResult{ID: p.CallID, IsError: p.State.Status == "error", Text: clipResult(out)})
				}
			}
			out = append(out, e)
			if len(res.Results) > 0 {
				out = append(out, res)
			}
		}
	}
	return out
}

// opencodeTool is an opencode tool call as the Claude Code tool it stands
// for: bash is Bash, read/write/edit the file tools.
func opencodeTool(p opencodePart) ToolUse {
	var in struct {
		Command  string `json:"command"`
		FilePath string `json:"filePath"`
	}
	_ = json.Unmarshal(p.State.Input, &in)
	mk := func(m map[string]string) json.RawMessage { b, _ := json.Marshal(m); return b }
	switch p.Tool {
	case "bash":
		if in.Command != "" {
			return ToolUse{ID: p.CallID, Name: "Bash", Input: mk(map[string]string{"command": in.Command})}
		}
	case "read":
		return ToolUse{ID: p.CallID, Name: "Read", Input: mk(map[string]string{"file_path": in.FilePath})}
	case "write":
		return ToolUse{ID: p.CallID, Name: "Write", Input: mk(map[string]string{"file_path": in.FilePath})}
	case "edit":
		return ToolUse{ID: p.CallID, Name: "Edit", Input: mk(map[string]string{"file_path": in.FilePath})}
	}
	input := p.State.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	return ToolUse{ID: p.CallID, Name: p.Tool, Input: input}
}
