package transcript

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A line written with spaces after its colons (valid JSON, though not how
// Claude Code writes) means the same as the compact line: the fast path
// must not drop it.
func TestParseSpacedJSON(t *testing.T) {
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"add retry to the client"},"timestamp":"2026-11-21T10:00:00Z","gitBranch":"main"}`,
		`{"type":"assistant","message":{"id":"m1","model":"claude-x","content":[{"type":"text","text":"done"},{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/r/a.go"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":true}]}}`,
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual"}}`,
	}
	for _, compact := range lines {
		var v any
		if err := json.Unmarshal([]byte(compact), &v); err != nil {
			t.Fatal(err)
		}
		var spaced bytes.Buffer
		enc := json.NewEncoder(&spaced)
		enc.SetIndent("", " ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		line := bytes.ReplaceAll(spaced.Bytes(), []byte("\n"), []byte(" "))
		if !bytes.Contains(line, []byte(`"type": "`)) {
			t.Fatalf("not spaced: %s", line)
		}
		want, okWant := Parse([]byte(compact))
		got, okGot := Parse(line)
		if !okWant || !okGot || !reflect.DeepEqual(normal(got), normal(want)) {
			t.Errorf("spaced line %s\n got %+v (%v)\nwant %+v (%v)", line, got, okGot, want, okWant)
		}
	}
	// Lines of kinds ccmem does not use are still skipped, compact or not.
	for _, l := range []string{`{"type":"attachment","x":1}`, `{"type": "attachment", "x": 1}`} {
		if e, ok := Parse([]byte(l)); ok {
			t.Errorf("%s parsed as %+v", l, e)
		}
	}
}

// normal drops the raw tool input, whose bytes differ by spacing.
func normal(e Entry) Entry {
	for i := range e.Tools {
		e.Tools[i].Input = json.RawMessage(strings.Join(strings.Fields(string(e.Tools[i].Input)), ""))
	}
	return e
}

// TestClientWrittenPromptsAreNotTurns: a background task's notification
// (2.1.328 writes it as a user line with promptSource "system") is not
// something the user said.
func TestClientWrittenPromptsAreNotTurns(t *testing.T) {
	for _, line := range []string{
		`{"type":"user","promptSource":"system","message":{"role":"user","content":"<task-notification>\n<task-id>a6e3</task-id>\n<status>completed</status>\n</task-notification>"}}`,
		`{"type":"user","message":{"role":"user","content":"<task-notification><status>completed</status></task-notification>"}}`,
		// The client's answer to a slash command it does not know (issue
		// 51, finding 6: it became a session's title).
		`{"type":"user","message":{"role":"user","content":"Unknown skill: deploy-prod"}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Unknown command: /frobnicate"}]}}`,
	} {
		e, ok := Parse([]byte(line))
		if !ok || e.Kind != Meta {
			t.Fatalf("%s: kind %v, want Meta", line, e.Kind)
		}
	}
	if e, _ := Parse([]byte(`{"type":"user","promptSource":"typed","message":{"role":"user","content":"fix the bug"}}`)); e.Kind != Prompt {
		t.Fatalf("a typed prompt is a turn: %v", e.Kind)
	}
}

// TestProgressLinesAreNotDecoded (issue 21, finding 8): the progress lines
// clients before about 2.1.100 wrote — a quarter of a real transcript's
// bytes, their data holding whole nested user and assistant messages — are
// turned away by the byte prefilter, never decoded; the lines capture uses
// still pass it.
func TestProgressLinesAreNotDecoded(t *testing.T) {
	common := `"parentUuid":"p","isSidechain":false,"userType":"external","cwd":"/home/dev/shop","sessionId":"s1","version":"2.1.80","gitBranch":"main","slug":"a"`
	for _, line := range []string{
		`{` + common + `,"type":"progress","data":{"message":{"type":"user","message":{"role":"user","content":[{"type":"text","text":"nested prompt"}]}},"type":"agent_progress"},"toolUseID":"t","timestamp":"2026-11-02T10:01:00.000Z"}`,
		`{` + common + `,"type":"progress","data":{"message":{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"x","name":"Edit","input":{}}]}},"type":"agent_progress"},"toolUseID":"t","timestamp":"2026-11-02T10:01:00.000Z"}`,
		`{` + common + `,"type":"progress","data":{"type":"hook_progress","hookEvent":"Stop","hookName":"Stop","command":"x"},"toolUseID":"h","timestamp":"2026-11-02T10:01:01.000Z"}`,
		`{` + common + `,"type":"progress","data":{"type":"bash_progress","output":"compact_boundary \"type\":\"user\"","elapsedTimeSeconds":3},"toolUseID":"b","timestamp":"2026-11-02T10:01:02.000Z"}`,
	} {
		if containsWanted([]byte(line)) {
			t.Errorf("the prefilter lets a progress line through to be decoded: %.120s…", line)
		}
	}
	for _, line := range []string{
		`{` + common + `,"type":"user","message":{"role":"user","content":"run the tests"},"timestamp":"2026-11-02T10:00:00.000Z"}`,
		`{` + common + `,"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"ok"}]},"timestamp":"2026-11-02T10:00:05.000Z"}`,
		`{` + common + `,"type":"system","subtype":"compact_boundary","timestamp":"2026-11-02T10:00:06.000Z"}`,
	} {
		if !containsWanted([]byte(line)) {
			t.Errorf("the prefilter turns away a line capture uses: %.120s…", line)
		}
	}
}

// TestSlashCommandEchoes: the line a slash command leaves is a prompt
// with its command and arguments, in the order older clients wrote its
// tags and in 2.1.330's (whose expansion follows as a meta line).
func TestSlashCommandEchoes(t *testing.T) {
	for _, content := range []string{
		`<command-name>/plan</command-name>\n<command-message>plan</command-message>\n<command-args>move the billing cron</command-args>`,
		`<command-message>plan</command-message>\n<command-name>/plan</command-name>\n<command-args>move the billing cron</command-args>`,
	} {
		e, ok := Parse([]byte(`{"type":"user","message":{"role":"user","content":"` + content + `"},"turnOrigin":"sdk","entrypoint":"sdk-cli","timestamp":"2026-11-24T01:46:02.444Z"}`))
		if !ok || e.Kind != Prompt || e.Command != "/plan" || e.Text != "/plan move the billing cron" {
			t.Errorf("%s: kind %v, command %q, text %q", content, e.Kind, e.Command, e.Text)
		}
	}
	e, ok := Parse([]byte(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Make a short plan for this change: move the billing cron\n"}]},"isMeta":true,"turnCompanion":true,"timestamp":"2026-11-24T01:46:02.444Z"}`))
	if ok && e.Kind == Prompt {
		t.Errorf("the command's expansion was taken for a prompt: %+v", e)
	}
	e, ok = Parse([]byte(`{"type":"user","message":{"role":"user","content":"<command-message>a bare message</command-message>"},"timestamp":"2026-11-24T01:46:02.444Z"}`))
	if ok && e.Kind == Prompt {
		t.Errorf("a command message without a command was taken for a prompt: %+v", e)
	}
}
