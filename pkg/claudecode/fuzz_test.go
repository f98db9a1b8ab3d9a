package claudecode

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzDecode: any stdin decodes to an Input or an error, never a panic, and
// the strings it yields are what JSON can carry.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/claude-code-2.1.328/hook-input/*.json")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{"", "[]", "{", `{"cwd":42}`, `{"session_id":"\ud800"}`, "null", `{"cwd":"a","cwd":"b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := Decode(data)
		if err != nil {
			if !reflect.DeepEqual(in, Input{}) {
				t.Fatalf("error %v with a non-empty input %+v", err, in)
			}
			return
		}
		for _, s := range []string{in.SessionID, in.Cwd, in.Source, in.TranscriptPath, in.ToolName, in.Error, in.AgentType, in.ToolString("command")} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in %q", s)
			}
		}
	})
}
