package transcript

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Codex CLI (0.169.0) writes a session as a rollout file,
// ${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl,
// one JSON object a line: {"timestamp", "ordinal", "type", "payload"}.
// The conversation is in the response_item lines, in the Responses API's
// item format; ParseCodex reads them into the Entry the same moment of a
// Claude Code transcript would be, so everything ccmem does with a session
// (its record, digest, friction, search) works on Codex's unchanged.

// codexLine is a rollout line's envelope.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// codexItem is the part of a payload ParseCodex reads.
type codexItem struct {
	Type       string `json:"type"`
	ID         string `json:"id"`
	SessionID  string `json:"session_id"`
	Cwd        string `json:"cwd"`
	CLIVersion string `json:"cli_version"`
	Role       string `json:"role"`
	Content    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Meta struct {
		Kinds []string `json:"content_item_kinds"`
	} `json:"internal_chat_message_metadata_passthrough"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Input is a custom tool call's input (apply_patch's patch).
	Input  string `json:"input"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
	Git    struct {
		Branch string `json:"branch"`
	} `json:"git"`
}

// codexBoilerplate opens the user-role messages that are Codex's own
// (its environment and AGENTS.md notes, a Stop hook's continuation), for a
// rollout older than the content kinds that tell them apart.
var codexBoilerplate = []string{"<environment_context>", "# AGENTS.md instructions", "<hook_prompt", "<user_instructions>", "<turn_aborted>"}

// codexNotes open the user-role messages Codex writes for itself whatever
// their content kinds say: the note that a turn was interrupted.
var codexNotes = []string{"<turn_aborted>"}

// ParseCodex decodes one line of a Codex rollout; ok is false for a line
// ccmem does not use (settings, token counts, UI events, developer
// messages — among them ccmem's own injected context) and for one that
// is not JSON (a torn last line).
func ParseCodex(line []byte) (Entry, bool) {
	var l codexLine
	if json.Unmarshal(bytes.TrimSpace(line), &l) != nil || len(l.Payload) == 0 {
		return Entry{}, false
	}
	var it codexItem
	if json.Unmarshal(l.Payload, &it) != nil {
		return Entry{}, false
	}
	e := Entry{Timestamp: l.Timestamp}
	switch l.Type {
	case "session_meta":
		e.Kind, e.Cwd, e.SessionID, e.GitBranch = Meta, it.Cwd, it.SessionID, it.Git.Branch
		if it.CLIVersion != "" {
			e.Version = "codex " + it.CLIVersion
		}
		return e, true
	case "compacted":
		e.Kind = Compaction
		return e, true
	case "response_item":
	default:
		return Entry{}, false
	}
	switch it.Type {
	case "message":
		var texts []string
		for _, c := range it.Content {
			if c.Type == "input_text" || c.Type == "output_text" || c.Type == "text" {
				texts = append(texts, c.Text)
			}
		}
		text := strings.Join(texts, "\n")
		switch it.Role {
		case "user":
			if !codexPrompt(it.Meta.Kinds, text) {
				return Entry{}, false
			}
			e.Kind, e.Text, e.Entrypoint, e.PromptSource, e.TurnOrigin = Prompt, text, "codex", "typed", "human"
			return e, true
		case "assistant":
			e.Kind, e.Text, e.MessageID = Assistant, text, it.ID
			return e, true
		}
	case "function_call", "custom_tool_call", "local_shell_call":
		e.Kind, e.MessageID = Assistant, it.ID
		e.Tools = []ToolUse{codexTool(it)}
		return e, true
	case "function_call_output", "custom_tool_call_output":
		e.Kind = ToolResults
		code, out := codexOutput(it.Output)
		e.Results = []ToolResult{{ID: it.CallID, IsError: code != 0, Text: out}}
		return e, true
	}
	return Entry{}, false
}

// codexPrompt tells whether a user-role message is what the person typed:
// its content kinds say user.text, or, without kinds, it is none of
// Codex's own notes.
func codexPrompt(kinds []string, text string) bool {
	for _, n := range codexNotes {
		if strings.HasPrefix(strings.TrimSpace(text), n) {
			return false
		}
	}
	if len(kinds) > 0 {
		return len(kinds) == 1 && kinds[0] == "user.text"
	}
	t := strings.TrimSpace(text)
	for _, b := range codexBoilerplate {
		if strings.HasPrefix(t, b) {
			return false
		}
	}
	return t != ""
}

// codexTool is a Codex tool call as the Claude Code tool it stands for: a
// shell command (exec_command's cmd, shell's argv) is Bash's command;
// another tool keeps its name and arguments.
func codexTool(it codexItem) ToolUse {
	if it.Type == "custom_tool_call" && it.Name == "apply_patch" {
		// The patch names the files it changes: "*** Update File: a.go".
		input, _ := json.Marshal(map[string][]string{"files": patchFiles(it.Input)})
		return ToolUse{ID: it.CallID, Name: "apply_patch", Input: input}
	}
	var args struct {
		Cmd     json.RawMessage `json:"cmd"`
		Command json.RawMessage `json:"command"`
	}
	_ = json.Unmarshal([]byte(it.Arguments), &args)
	cmd := ""
	for _, raw := range []json.RawMessage{args.Cmd, args.Command} {
		var s string
		var argv []string
		switch {
		case json.Unmarshal(raw, &s) == nil && s != "":
			cmd = s
		case json.Unmarshal(raw, &argv) == nil && len(argv) > 0:
			// ["bash", "-lc", "make build"]: the script is the command.
			if len(argv) >= 3 && (argv[1] == "-lc" || argv[1] == "-c") {
				cmd = argv[2]
			} else {
				cmd = strings.Join(argv, " ")
			}
		}
		if cmd != "" {
			break
		}
	}
	if patch, ok := shellPatch(cmd); ok {
		// A patch given to the shell ("apply_patch <<'EOF' …", which Codex
		// runs as its own apply_patch): the files it names changed.
		input, _ := json.Marshal(map[string][]string{"files": patchFiles(patch)})
		return ToolUse{ID: it.CallID, Name: "apply_patch", Input: input}
	}
	if cmd != "" {
		input, _ := json.Marshal(map[string]string{"command": cmd})
		return ToolUse{ID: it.CallID, Name: "Bash", Input: input}
	}
	return ToolUse{ID: it.CallID, Name: it.Name, Input: json.RawMessage(strconv.Quote(it.Arguments))}
}

// shellPatch is the patch of a shell command that is an apply_patch call
// (the command apply_patch or applypatch, its patch an argument or a
// heredoc), as Codex's shell tool intercepts it.
func shellPatch(cmd string) (string, bool) {
	t := strings.TrimSpace(cmd)
	for _, name := range []string{"apply_patch", "applypatch"} {
		rest, ok := strings.CutPrefix(t, name)
		if ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t' || rest[0] == '<' || rest[0] == '\n') && strings.Contains(rest, "*** Begin Patch") {
			return rest, true
		}
	}
	return "", false
}

// patchFiles are the files an apply_patch patch adds, updates, deletes
// or moves to, in order, each once.
func patchFiles(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		for _, head := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), head); ok && strings.TrimSpace(f) != "" && !slices.Contains(out, strings.TrimSpace(f)) {
				out = append(out, strings.TrimSpace(f))
			}
		}
	}
	return out
}

// codexOutput reads a shell call's output as Codex writes it ("Process
// exited with code N", then "Output:" and what the command printed): its
// exit code (0 when it says none) and its output.
func codexOutput(s string) (int, string) {
	// A custom tool's output (apply_patch's) may be JSON: its text, and
	// its exit code in metadata.
	var js struct {
		Output   string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(strings.TrimSpace(s), "{") && json.Unmarshal([]byte(s), &js) == nil && js.Metadata.ExitCode != nil {
		s = fmt.Sprintf("Process exited with code %d\nOutput:\n%s", *js.Metadata.ExitCode, js.Output)
	}
	code := 0
	if _, rest, ok := strings.Cut(s, "Process exited with code "); ok {
		n, _, _ := strings.Cut(rest, "\n")
		code, _ = strconv.Atoi(strings.TrimSpace(n))
	}
	if _, out, ok := strings.Cut(s, "\nOutput:\n"); ok {
		s = out
	}
	if len(s) > 4096 {
		s = s[:4096]
	}
	return code, strings.ToValidUTF8(s, "")
}

// replayGap is how long after the last copied line of a resumed session
// the first line of its own comes, at least: Codex copies the earlier
// session's lines in one go (hundreds in a fraction of a second), and a
// person types the next prompt after that.
const replayGap = time.Second

// CodexParser is ParseCodex for one reading of one rollout, from its
// start: a rollout that Codex (0.36 and others of its age) began by
// resuming another session holds, after its own session_meta, the earlier
// session's session_meta and a copy of all its lines, written at once;
// they are that session's, recorded in its own rollout, and are passed
// over here (else each prompt of it would be recorded twice). A line
// without a time ends the copy.
func CodexParser() func([]byte) (Entry, bool) {
	var first string
	var last time.Time
	copying := false
	return func(line []byte) (Entry, bool) {
		if !copying && !bytes.Contains(line, []byte(`"session_meta"`)) {
			return ParseCodex(line)
		}
		var l struct {
			Timestamp string `json:"timestamp"`
			Type      string `json:"type"`
			Payload   struct {
				ID        string `json:"id"`
				SessionID string `json:"session_id"`
			} `json:"payload"`
		}
		if json.Unmarshal(bytes.TrimSpace(line), &l) != nil {
			return ParseCodex(line)
		}
		at, _ := time.Parse(time.RFC3339Nano, l.Timestamp)
		if l.Type == "session_meta" {
			id := cmp.Or(l.Payload.SessionID, l.Payload.ID)
			switch {
			case first == "":
				first = id
			case id != "" && id != first:
				copying, last = true, at // another session's lines follow
				return Entry{}, false
			}
			if !copying {
				return ParseCodex(line)
			}
		}
		if at.IsZero() || at.Sub(last) > replayGap {
			copying = false
			return ParseCodex(line)
		}
		last = at
		return Entry{}, false
	}
}
