package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
)

// toolResults counts the tool results a request carries: how far a
// scripted turn has gone.
func toolResults(r scriptapi.MessagesRequest) int {
	n := 0
	for _, m := range r.Messages {
		for _, b := range m.Blocks() {
			if b.Type == "tool_result" {
				n++
			}
		}
	}
	return n
}

// isCompaction tells the client's summarising request from a turn.
func isCompaction(r scriptapi.MessagesRequest) bool {
	texts := r.Texts()
	return len(texts) > 0 && strings.Contains(texts[len(texts)-1], "summary")
}

// runJSON runs one headless turn with JSON output and returns its session id.
func (w *world) runJSON(args ...string) string {
	w.t.Helper()
	out := w.claude(append([]string{"--output-format", "json"}, args...)...)
	var r struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || r.SessionID == "" {
		w.t.Fatalf("claude --output-format json printed %q: %v", out, err)
	}
	return r.SessionID
}

func (w *world) projectDir() string {
	w.t.Helper()
	out, err := w.ccmem("paths", "--cwd", w.project, "project_dir")
	if err != nil {
		w.t.Fatalf("ccmem paths: %v\n%s", err, out)
	}
	return strings.TrimSpace(out)
}

// record is the part of a checkpoint or episode the tests read.
type record struct {
	SessionID    string         `json:"session_id"`
	Goal         string         `json:"goal"`
	Turns        int            `json:"turns"`
	Tools        map[string]int `json:"tools"`
	ToolErrors   int            `json:"tool_errors"`
	FilesChanged []string       `json:"files_changed"`
	Compactions  int            `json:"compactions"`
	ArchivedAt   string         `json:"archived_at"`
}

func readRecord(t *testing.T, path string) record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// episodesOf lists the episode files of one session.
func (w *world) episodesOf(sid string) []string {
	m, _ := filepath.Glob(filepath.Join(w.projectDir(), "episodes", "*-"+sid+".json"))
	return m
}

// TestSessionBecomesEpisode: a session that writes, edits and runs a failing
// command becomes exactly one episode at the next session start, with its
// line in INDEX.md and in the next session's injected block.
func TestSessionBecomesEpisode(t *testing.T) {
	w := newWorld(t, nil)
	// The script needs the project path, known only now.
	plan := filepath.Join(w.project, "notes", "plan.md")
	w.api.SetScript(func(r scriptapi.MessagesRequest) scriptapi.Reply {
		switch toolResults(r) {
		case 0:
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Write", Input: map[string]any{"file_path": plan, "content": "# Plan\n- step one\n"}}}}
		case 1:
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Edit", Input: map[string]any{"file_path": plan, "old_string": "step one", "new_string": "step one done"}}}}
		case 2:
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": "false", "description": "a failing check"}}}}
		}
		return scriptapi.Reply{Text: "Wrote and edited notes/plan.md; the check failed."}
	})
	const goal = "write the plan, edit it, then run the check"
	first := w.runJSON("-p", goal)
	if data, err := os.ReadFile(plan); err != nil || string(data) != "# Plan\n- step one done\n" {
		t.Fatalf("the client did not run the scripted tools: %q %v", data, err)
	}

	w.api.SetScript(func(scriptapi.MessagesRequest) scriptapi.Reply { return scriptapi.Reply{Text: "ok"} })
	n := len(w.api.MessageRequests())
	w.claude("-p", "what did we do last time?")

	eps := w.episodesOf(first)
	if len(eps) != 1 {
		t.Fatalf("episodes of the first session: %v, want exactly one", eps)
	}
	ep := readRecord(t, eps[0])
	if ep.Goal != goal || ep.ToolErrors != 1 || !reflect.DeepEqual(ep.FilesChanged, []string{"notes/plan.md"}) ||
		!reflect.DeepEqual(ep.Tools, map[string]int{"Write": 1, "Edit": 1, "Bash": 1}) || ep.ArchivedAt == "" {
		t.Fatalf("episode %+v", ep)
	}
	if _, err := os.Stat(filepath.Join(w.projectDir(), "checkpoints", first+".json")); err == nil {
		t.Fatal("the archived session's checkpoint is still there")
	}
	index, err := os.ReadFile(filepath.Join(w.projectDir(), "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(index), "\n") {
		if strings.Contains(l, first) {
			line = l
		}
	}
	if line == "" || !strings.Contains(line, `"`+goal+`"`) || !strings.Contains(line, "notes/plan.md") {
		t.Fatalf("INDEX.md has no line for the first session:\n%s", index)
	}
	if block := w.onlyInjection(n); !strings.Contains(block, line) {
		t.Fatalf("the second session's block lacks the episode line %q:\n%s", line, block)
	}
}

// TestKilledSessionIsArchived: a session killed with SIGKILL while the model
// is still replying is archived at the next session start.
func TestKilledSessionIsArchived(t *testing.T) {
	w := newWorld(t, func(r scriptapi.MessagesRequest) scriptapi.Reply {
		return scriptapi.Reply{Text: "too late", Delay: time.Minute}
	})
	const goal = "a long task that will never finish"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claudeBin, "--permission-mode", "acceptEdits", "-p", goal)
	cmd.Env, cmd.Dir = w.env(), w.project
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the turn reached the model, then kill the client.
	deadline := time.Now().Add(60 * time.Second)
	for len(w.api.MessageRequests()) == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the client never called the API; stderr: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Kill only once the client wrote the prompt to its transcript.
	w.waitForTranscript(goal, 10*time.Second)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	checkpoints, _ := filepath.Glob(filepath.Join(w.projectDir(), "checkpoints", "*.json"))
	if len(checkpoints) != 1 {
		t.Fatalf("checkpoints after the kill: %v, want the killed session's", checkpoints)
	}
	killed := strings.TrimSuffix(filepath.Base(checkpoints[0]), ".json")

	w.api.SetScript(func(scriptapi.MessagesRequest) scriptapi.Reply { return scriptapi.Reply{Text: "ok"} })
	w.claude("-p", "hello")
	eps := w.episodesOf(killed)
	if len(eps) != 1 {
		t.Fatalf("episodes of the killed session: %v, want one", eps)
	}
	if ep := readRecord(t, eps[0]); ep.Goal != goal || ep.Turns != 1 {
		t.Fatalf("episode of the killed session: %+v", ep)
	}
}

// TestCompactionCountedAndInstructed: /compact increments the session's
// compactions, and the preserve-instructions reach the compaction request.
func TestCompactionCountedAndInstructed(t *testing.T) {
	w := newWorld(t, func(r scriptapi.MessagesRequest) scriptapi.Reply {
		if isCompaction(r) {
			return scriptapi.Reply{Text: "<summary>We said hello.</summary>"}
		}
		return scriptapi.Reply{Text: "hello"}
	})
	sid := w.runJSON("-p", "say hello")
	n := len(w.api.MessageRequests())
	w.claude("-p", "/compact", "--resume", sid)

	const marker = "every decision with its reason"
	found := false
	for _, r := range w.api.MessageRequests()[n:] {
		for _, text := range r.Texts() {
			if strings.Contains(text, marker) {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("no request after /compact carried the preserve-instructions (%q)", marker)
	}
	cp := readRecord(t, filepath.Join(w.projectDir(), "checkpoints", sid+".json"))
	if cp.Compactions != 1 {
		t.Fatalf("compactions = %d after one /compact, want 1", cp.Compactions)
	}
	// The conversation goes on after it; /compact itself is no turn (the
	// client, not the model, answers it), and import reads it alike.
	w.claude("-p", "--resume", sid, "now say goodbye")
	w.claude("-p", "anything new?") // the next start archives it
	eps := w.episodesOf(sid)
	if len(eps) != 1 {
		t.Fatalf("episodes of the session: %v", eps)
	}
	if ep := readRecord(t, eps[0]); ep.Turns != 2 || ep.Compactions != 1 {
		t.Fatalf("turns %d, compactions %d; want 2 and 1", ep.Turns, ep.Compactions)
	}
	w.sameAsLive(w.importAll(), sid)
}

// TestZombieSessionIsArchived: a claude process killed with SIGKILL whose
// parent never waits for it stays a zombie: its pid and start time remain,
// but the process is gone. The next session start archives its session.
// (The test process is the parent here and does not reap the client until
// the end.)
func TestZombieSessionIsArchived(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/PID/stat to see the zombie, which only Linux has")
	}
	w := newWorld(t, func(r scriptapi.MessagesRequest) scriptapi.Reply {
		return scriptapi.Reply{Text: "too late", Delay: time.Minute}
	})
	const goal = "a task whose client becomes a zombie"
	cmd := exec.Command(claudeBin, "--permission-mode", "acceptEdits", "-p", goal)
	cmd.Env, cmd.Dir = w.env(), w.project
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := false
	defer func() {
		if !reaped {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for len(w.api.MessageRequests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the client never called the API")
		}
		time.Sleep(50 * time.Millisecond)
	}
	w.waitForTranscript(goal, 10*time.Second)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Not reaped: wait until the kernel shows it as a zombie.
	stat := fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)
	for deadline := time.Now().Add(10 * time.Second); ; {
		data, err := os.ReadFile(stat)
		if err != nil {
			t.Fatalf("the killed client's %s is gone (was it reaped?): %v", stat, err)
		}
		if f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:])); len(f) > 0 && f[0] == "Z" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed client is not a zombie: %s", data)
		}
		time.Sleep(20 * time.Millisecond)
	}
	checkpoints, _ := filepath.Glob(filepath.Join(w.projectDir(), "checkpoints", "*.json"))
	if len(checkpoints) != 1 {
		t.Fatalf("checkpoints: %v, want the killed session's", checkpoints)
	}
	killed := strings.TrimSuffix(filepath.Base(checkpoints[0]), ".json")

	w.api.SetScript(func(scriptapi.MessagesRequest) scriptapi.Reply { return scriptapi.Reply{Text: "ok"} })
	w.claude("-p", "hello")
	if _, err := os.Stat(stat); err != nil {
		t.Fatal("the zombie was reaped before the next session started; the test proves nothing")
	}
	eps := w.episodesOf(killed)
	if len(eps) != 1 {
		t.Fatalf("episodes of the zombie's session: %v, want one", eps)
	}
	if ep := readRecord(t, eps[0]); ep.Goal != goal {
		t.Fatalf("episode: %+v", ep)
	}
	cmd.Wait()
	reaped = true
}

// TestSubagentWorkInEpisode: the scripted model delegates to a subagent
// (the Agent tool) that writes and edits a file and runs a failing
// command; the session's episode has that file, the subagent's tool uses
// and its error.
func TestSubagentWorkInEpisode(t *testing.T) {
	w := newWorld(t, nil)
	file := filepath.Join(w.project, "notes", "sub.md")
	const task = "SUBAGENT-TASK: write notes/sub.md, edit it, then run the check"
	offered := false
	w.api.SetScript(func(r scriptapi.MessagesRequest) scriptapi.Reply {
		if r.OpensWith(task) { // the subagent's own requests
			switch toolResults(r) {
			case 0:
				return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Write", Input: map[string]any{"file_path": file, "content": "# Sub\n- one\n"}}}}
			case 1:
				return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Edit", Input: map[string]any{"file_path": file, "old_string": "one", "new_string": "one done"}}}}
			case 2:
				return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": "false", "description": "a failing check"}}}}
			}
			return scriptapi.Reply{Text: "Done: wrote and edited notes/sub.md; the check failed."}
		}
		if toolResults(r) == 0 && r.HasTool("Agent") && !offered {
			offered = true
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Agent", Input: map[string]any{
				"description": "do the notes work", "prompt": task, "subagent_type": "general-purpose"}}}}
		}
		return scriptapi.Reply{Text: "The subagent did the work."}
	})
	first := w.runJSON("-p", "delegate the notes work to a subagent")
	if !offered {
		t.Fatal("the client offered no Agent tool: 2.1.328 names the subagent tool Agent")
	}
	if data, err := os.ReadFile(file); err != nil || string(data) != "# Sub\n- one done\n" {
		t.Fatalf("the subagent did not run the scripted tools: %q %v", data, err)
	}
	w.api.SetScript(func(scriptapi.MessagesRequest) scriptapi.Reply { return scriptapi.Reply{Text: "ok"} })
	w.claude("-p", "and now?")
	eps := w.episodesOf(first)
	if len(eps) != 1 {
		t.Fatalf("episodes of the delegating session: %v", eps)
	}
	data, _ := os.ReadFile(eps[0])
	var ep struct {
		record
		SubagentTools map[string]int `json:"subagent_tools"`
	}
	if err := json.Unmarshal(data, &ep); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ep.FilesChanged, []string{"notes/sub.md"}) || ep.ToolErrors != 1 ||
		ep.SubagentTools["Write"] != 1 || ep.SubagentTools["Edit"] != 1 || ep.SubagentTools["Bash"] != 1 || ep.Tools["Agent"] != 1 {
		t.Fatalf("episode misses the subagent's work:\n%s", data)
	}
	if ep.Turns != 1 {
		t.Fatalf("turns = %d: the client's task notification is not a turn", ep.Turns)
	}
	// ccmem import reads the same transcripts (the subagent's in its own
	// file) to the same episode.
	w.sameAsLive(w.importAll(), first)
}

// TestClearKeepsTheClearedConversation runs the interactive client under
// tmux: a conversation, /clear, a new prompt. /clear starts a new session
// in the same claude process; the new conversation's request holds the
// cleared conversation in its memory block.
func TestClearKeepsTheClearedConversation(t *testing.T) {
	w := newWorld(t, func(r scriptapi.MessagesRequest) scriptapi.Reply {
		if occurrences(r, "second conversation") > 0 {
			return scriptapi.Reply{Text: "reply two"}
		}
		return scriptapi.Reply{Text: "reply one"}
	})
	tm := w.tmux()
	tm.waitFor("the prompt", func(s string) bool { return strings.Contains(s, "? for shortcuts") || strings.Contains(s, "❯") })
	const goal = "first conversation: fix the login redirect"
	tm.send(goal)
	tm.waitFor("the first reply", func(s string) bool { return strings.Contains(s, "reply one") })
	// The client may write its transcript a moment after the reply shows.
	w.waitForTranscript(goal, 20*time.Second)
	tm.send("/clear")
	tm.waitFor("the cleared screen", func(s string) bool { return !strings.Contains(s, "reply one") })
	n := len(w.api.MessageRequests())
	tm.send("second conversation: anything new?")
	tm.waitFor("the second reply", func(s string) bool { return strings.Contains(s, "reply two") })

	var block string
	for _, r := range w.api.MessageRequests()[n:] {
		if occurrences(r, "second conversation") == 0 {
			continue
		}
		for _, text := range r.Texts() {
			if i := strings.Index(text, injectedPrefix); i >= 0 {
				block = text[i:]
			}
		}
	}
	if block == "" {
		t.Fatalf("the new conversation's request carried no memory block")
	}
	if !strings.Contains(block, `"`+goal+`"`) {
		t.Fatalf("the new conversation's block lacks the cleared conversation:\n%s", block)
	}
	eps, _ := filepath.Glob(filepath.Join(w.projectDir(), "episodes", "*.json"))
	if len(eps) != 1 || readRecord(t, eps[0]).Goal != goal {
		t.Fatalf("episodes after /clear: %v", eps)
	}
	// An interactive transcript (typed prompts, a /clear) imported reads
	// to the episode recorded live.
	w.sameAsLive(w.importAll(), readRecord(t, eps[0]).SessionID)
}
