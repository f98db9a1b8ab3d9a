package transcript

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// The encoding/json decoding that the hand-written one replaced, kept as
// the oracle: the same line decoded with encoding/json and passed through
// the same build.

var jsonCodec = codec{
	text:   func(raw []byte, s *string) error { return json.Unmarshal(raw, s) },
	blocks: func(raw []byte) []block { var b []block; _ = json.Unmarshal(raw, &b); return b },
	head:   func(raw []byte, n int) (string, error) { var s string; err := json.Unmarshal(raw, &s); return s, err },
}

func oracleParse(line []byte) (Entry, bool) {
	// Useful: a wanted mark comes before any progress mark (bytes.Index,
	// not the one-pass scan).
	first := -1
	for _, w := range wanted {
		if i := bytes.Index(line, w); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	useful := first >= 0
	if p := bytes.Index(line, progress); p >= 0 && p < first {
		useful = false
	}
	if !useful && bytes.Contains(line, compactType) {
		return Entry{}, false
	}
	var r rawLine
	if err := json.Unmarshal(line, &r); err != nil {
		return Entry{}, false
	}
	return build(r, jsonCodec)
}

// oracleInputs is ToolUse.Inputs with encoding/json.
func oracleInputs(t ToolUse) Input {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Path         string `json:"path"`
		Command      string `json:"command"`
		Skill        string `json:"skill"`
	}
	if json.Unmarshal(t.Input, &in) != nil {
		return Input{}
	}
	return Input{File: firstOf(in.FilePath, in.NotebookPath, in.Path), Command: in.Command, Skill: in.Skill}
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
		`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"mcp__acp__Edit","input":{"file_path":"/z.go","command":5,"skill":"x","path":"/p"}}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"go test ./..."}}]}}`,
		`{"parentUuid":"p","type":"progress","data":{"message":{"type":"user","message":{"content":"nested"}}}}`,
		`{"type":"user","message":{"content":"x"},"x":{"type":"progress","data":1}}`,
		`{"type":"user","sessionId":"s","entrypoint":"sdk-cli","promptSource":"sdk","turnOrigin":"sdk","message":{"content":"/review <command-args>a</command-args>"}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":"The user doesn't want to proceed with this tool use."}]}}`,
		`{"type":"user","message":{"content":"[Request interrupted by user for tool use]"}}`,
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
			if a, b := u.Inputs(), oracleInputs(want.Tools[i]); a != b {
				t.Fatalf("Inputs of %q: hand %+v, json %+v", u.Input, a, b)
			}
		}
	})
}
