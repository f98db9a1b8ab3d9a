package transcript

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: any line decodes to an entry ccmem uses or is skipped; never a
// panic. Seeds are the lines of a real 2.1.328 transcript.
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("../../testdata/claude-code-2.1.328/transcripts/97c977a4-c5ad-4502-9c0f-3964b4a04282.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f.Add(append([]byte(nil), sc.Bytes()...))
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"x"}]}]}}`))
	f.Add([]byte(`{"type":"assistant","message":{"content":"not a list"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, ok := Parse(line)
		if !ok {
			return
		}
		if e.Kind == Other {
			t.Fatal("a used entry has no kind")
		}
		if !utf8.ValidString(e.Text) && utf8.Valid(line) {
			t.Fatalf("text %q is not valid UTF-8", e.Text)
		}
		for _, u := range e.Tools {
			_ = u.FilePath()
		}
		// Scanning the line (with and without its newline) agrees with Parse.
		n := 0
		consumed, err := Scan(strings.NewReader(string(line)+"\n"), func(Entry) { n++ }, nil)
		if err != nil || consumed != int64(len(line)+1) || (n == 1) != ok && !bytes.Contains(line, []byte("\n")) {
			t.Fatalf("Scan consumed %d of %d, saw %d entries, err %v", consumed, len(line)+1, n, err)
		}
	})
}

// FuzzParseCodex: any line of a Codex rollout decodes to an Entry or to
// nothing, never a panic; a shell call is always Bash with a command.
func FuzzParseCodex(f *testing.F) {
	for _, s := range []string{
		`{"timestamp":"2026-11-20T10:00:00Z","type":"session_meta","payload":{"session_id":"x","cwd":"/r","cli_version":"0.169.0"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}],"internal_chat_message_metadata_passthrough":{"content_item_kinds":["user.text"]}}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"make\"}","call_id":"c"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\": [\"bash\",\"-lc\",\"ls\"]}","call_id":"c"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"Process exited with code 7\nOutput:\nboom"}}`,
		`{"type":"compacted","payload":{"message":"summary"}}`, `{"type":"response_item","payload":{"type":"mess`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, ok := ParseCodex(line)
		if !ok {
			return
		}
		for _, u := range e.Tools {
			if u.Name == "Bash" && u.Command() == "" {
				t.Fatalf("a Bash call without a command from %q", line)
			}
		}
		for _, r := range e.Results {
			if !utf8.ValidString(r.Text) {
				t.Fatalf("a result that is not UTF-8 from %q", line)
			}
		}
	})
}
