package transcript

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The encoding/json decoding that the hand-written one replaced, kept as
// the oracle.

func oracleParse(line []byte) (Entry, bool) {
	useful := false
	for _, w := range wanted {
		if bytes.Contains(line, w) {
			useful = true
			break
		}
	}
	// The byte match assumes Claude Code's compact JSON. A line that does
	// not match but is not compact either (`"type": "user"`, written with
	// spaces) is decoded in full rather than dropped.
	if !useful && bytes.Contains(line, compactType) {
		return Entry{}, false
	}
	var r rawLine
	if err := json.Unmarshal(line, &r); err != nil {
		return Entry{}, false
	}
	e := Entry{Timestamp: r.Timestamp, GitBranch: r.GitBranch, Version: r.Version, Cwd: r.Cwd, Sidechain: r.IsSidechain}
	switch r.Type {
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
		var blocks []block
		_ = json.Unmarshal(r.Message.Content, &blocks)
		var texts []string
		for _, b := range blocks {
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
		return oracleUserEntry(e, r), true
	}
	return Entry{}, false
}

func oracleUserEntry(e Entry, r rawLine) Entry {
	content := r.Message.Content
	var text string
	if json.Unmarshal(content, &text) != nil {
		var blocks []block
		_ = json.Unmarshal(content, &blocks)
		var texts []string
		for _, b := range blocks {
			switch b.Type {
			case "tool_result":
				e.Results = append(e.Results, ToolResult{ID: b.ToolUseID, IsError: b.IsError, Text: oracleResultText(b.Content)})
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
	case strings.HasPrefix(trimmed, "[Request interrupted by user"):
		e.Kind, e.Interrupted = Meta, true
	case r.IsCompactSummary, strings.HasPrefix(trimmed, "This session is being continued from a previous conversation"):
		e.Kind = Meta
	case strings.HasPrefix(trimmed, "<command-name>"):
		e.Kind = Prompt
		e.Command = between(trimmed, "<command-name>", "</command-name>")
		e.Text = strings.TrimSpace(e.Command + " " + between(trimmed, "<command-args>", "</command-args>"))
	case r.IsMeta, trimmed == "", r.PromptSource == "system",
		strings.HasPrefix(trimmed, "<task-notification>"),
		strings.HasPrefix(trimmed, "<local-command-"),
		strings.HasPrefix(trimmed, "<system-reminder>"),
		strings.HasPrefix(trimmed, "<command-message>"),
		strings.HasPrefix(trimmed, "<bash-"),
		strings.HasPrefix(trimmed, "Caveat: "):
		e.Kind = Meta
	default:
		e.Kind = Prompt
	}
	return e
}

func oracleResultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var blocks []block
		_ = json.Unmarshal(raw, &blocks)
		for _, b := range blocks {
			if b.Type == "text" {
				s = b.Text
				break
			}
		}
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

func oracleFilePath(t ToolUse) string {
	switch t.Name {
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
	default:
		return ""
	}
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if json.Unmarshal(t.Input, &in) != nil {
		return ""
	}
	if in.FilePath != "" {
		return in.FilePath
	}
	return in.NotebookPath
}

// FuzzParseMatchesEncodingJSON: Parse (hand-written decoding) gives what
// the encoding/json decoding it replaced gave, for any line, tool inputs
// and results included.
func FuzzParseMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"type":"user","message":{"role":"user","content":"hi"},"timestamp":"t","gitBranch":"main","version":"2.1.328","cwd":"/x","isSidechain":true}`,
		`{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/a.go"}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"boom"}]}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","content":"plain"},5,null,"s",{"type":5,"text":"x"}]}}`,
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto"}}`,
		`{"type":"system","subtype":"compact_boundary","compactMetadata":null}`,
		`{"Type":"user","MESSAGE":{"Content":"case"},"isMeta":true}`,
		`{"type":"user","message":null}`, `{"type":"user","message":"x"}`, `{"type":"user","message":{"content":null}}`,
		`{"type":"assistant","message":{"content":{"not":"a list"}}}`, `{"type":"user","isMeta":"yes","message":{"content":"x"}}`,
		`{"type": "user", "message": {"content": "spaced"}}`, `{"type":"user","message":{"content":"\u003ccommand-name\u003e/x\u003c/command-name\u003e"}}`,
		`null`, `[]`, `{"type":"user"} trailing`, `{"type":"user","message":{"content":"a"},"type":"assistant"}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"file_path":5,"notebook_path":"/n"}}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"NotebookEdit","input":{"notebook_path":"/n.ipynb"}}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, gok := Parse(line)
		want, wok := oracleParse(line)
		if gok != wok || !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse(%q):\nhand %v %+v\njson %v %+v", line, gok, got, wok, want)
		}
		for i, u := range got.Tools {
			if a, b := u.FilePath(), oracleFilePath(want.Tools[i]); a != b {
				t.Fatalf("FilePath of %q: hand %q, json %q", u.Input, a, b)
			}
		}
	})
}
