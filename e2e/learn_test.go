package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
)

// seedSilo writes memory files into Claude Code's memory folder for slug.
func (w *world) seedSilo(slug string, files map[string]string) {
	w.t.Helper()
	for name, content := range files {
		w.write(filepath.Join(w.home, ".claude", "projects", slug, "memory", name), content)
	}
}

func memoryFile(name, typ, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\nmetadata:\n  type: %s\n---\n\n%s.\n", name, desc, typ, desc)
}

// TestLearnedEntriesAndNudgeInBlock: after `ccmem learn apply`, what the
// model wrote about the user in another project's memory folder waits for
// the person and does not reach this project's model; accepted, it does.
// A project entry learned from another project never does; and a backlog
// at the threshold brings the nudge.
func TestLearnedEntriesAndNudgeInBlock(t *testing.T) {
	w := newWorld(t, nil)
	w.seedSilo("-home-dev-src-api", map[string]string{
		"user-role.md":     memoryFile("user-role", "user", "The user is a Go backend engineer who wants terse answers"),
		"api-migration.md": memoryFile("api-migration", "project", "The api service moves to gRPC by December"),
	})
	if out, err := w.ccmem("learn", "apply"); err != nil {
		t.Fatalf("ccmem learn apply: %v\n%s", err, out)
	}
	files := map[string]string{}
	for i := 0; i < 10; i++ {
		files[fmt.Sprintf("note-%d.md", i)] = memoryFile(fmt.Sprintf("note-%d", i), "reference", fmt.Sprintf("Reference note %d", i))
	}
	w.seedSilo("-home-dev-src-web", files)

	const role = "- user/user-role — The user is a Go backend engineer who wants terse answers"
	w.claude("-p", "hello")
	block := w.onlyInjection(0)
	if !strings.Contains(block, "10 memories Claude Code saved wait to be curated, from 1 project — run /learn to curate them") {
		t.Errorf("block lacks the nudge:\n%s", block)
	}
	if strings.Contains(block, "Go backend engineer") {
		t.Errorf("what the model wrote about the user in another project reached this one before the person accepted it:\n%s", block)
	}
	if strings.Contains(block, "api-migration") || strings.Contains(block, "gRPC") {
		t.Errorf("another project's learned entry was injected:\n%s", block)
	}
	if out, err := w.ccmem("learn", "review", "--accept", "entry-user/user-role"); err != nil {
		t.Fatalf("ccmem learn review --accept: %v\n%s", err, out)
	}
	n := len(w.api.MessageRequests())
	w.claude("-p", "hello again")
	if block := w.onlyInjection(n); !strings.Contains(block, role) {
		t.Errorf("accepted, the entry does not reach the model:\n%s", block)
	}
}

// TestStatusLineShowsBacklog runs the interactive client under tmux: the
// status line ccmem install registered shows the backlog of uncurated
// memories, and after `ccmem learn apply` it disappears.
func TestStatusLineShowsBacklog(t *testing.T) {
	w := newWorld(t, nil)
	w.seedSilo("-home-dev-src-api", map[string]string{
		"a.md": memoryFile("a", "user", "A"), "b.md": memoryFile("b", "reference", "B"), "c.md": memoryFile("c", "project", "C"),
	})
	w.seedSilo("-home-dev-src-web", map[string]string{"d.md": memoryFile("d", "user", "D")})

	tm := w.tmux()
	waitFor := tm.waitFor
	run := tm.run
	waitFor("the status line", func(s string) bool {
		return strings.Contains(s, "4 memories Claude Code saved wait to be curated, from 2 projects")
	})

	if out, err := w.ccmem("learn", "apply"); err != nil {
		t.Fatalf("ccmem learn apply: %v\n%s", err, out)
	}
	// A new message makes the client redraw its status line.
	run("send-keys", "-t", "cc", "hello", "Enter")
	waitFor("the reply", func(s string) bool { return strings.Contains(s, "● ok") })
	waitFor("the status line to clear", func(s string) bool { return !strings.Contains(s, "to be curated") })
}

// tmuxClient is the interactive client running in a tmux session.
type tmuxClient struct {
	w   *world
	bin string
	// socket is the tmux server's own socket: nothing of the user's tmux.
	socket string
}

// tmux starts the interactive client in the project under a fresh tmux
// server, stopped when the test ends.
func (w *world) tmux() *tmuxClient {
	w.t.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		w.t.Fatalf("tmux is needed to drive the interactive client and is not installed (apt-get install tmux): %v", err)
	}
	tm := &tmuxClient{w: w, bin: bin, socket: fmt.Sprintf("ccmem-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmd := "env -i " + strings.Join(quoteAll(append(w.env(), "TERM=xterm-256color")), " ") + " " + claudeBin
	tm.run("new-session", "-d", "-s", "cc", "-x", "150", "-y", "40", "-c", w.project, cmd)
	pid, _ := strconv.Atoi(strings.TrimSpace(tm.run("display-message", "-p", "-t", "cc", "#{pane_pid}")))
	w.t.Cleanup(func() {
		exec.Command(bin, "-L", tm.socket, "kill-server").Run()
		// The client may still be writing into HOME as it exits: wait for
		// it, so the test's temporary folder can be removed.
		for deadline := time.Now().Add(10 * time.Second); pid > 0 && time.Now().Before(deadline); {
			if p, err := os.FindProcess(pid); err != nil || p.Signal(syscall.Signal(0)) != nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	return tm
}

func (tm *tmuxClient) run(args ...string) string {
	tm.w.t.Helper()
	out, err := exec.Command(tm.bin, append([]string{"-L", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.w.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (tm *tmuxClient) screen() string { return tm.run("capture-pane", "-p", "-t", "cc") }

// send types text and presses Enter. A client busy drawing (a notice at
// start, a loaded machine) takes keys late: Enter goes once the text
// shows in the input box, and again when the box still holds the text a
// moment later (an Enter on an empty box does nothing).
func (tm *tmuxClient) send(text string) {
	tm.run("send-keys", "-t", "cc", "-l", text)
	for deadline := time.Now().Add(10 * time.Second); !inputHolds(tm.screen(), text) && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	tm.run("send-keys", "-t", "cc", "Enter")
	for range 3 {
		time.Sleep(1500 * time.Millisecond)
		if !inputHolds(tm.screen(), text) {
			return
		}
		tm.run("send-keys", "-t", "cc", "Enter")
	}
}

// inputHolds tells whether the client's input box holds text not yet
// sent: the "❯" line right under a rule of "─" (a "❯" line of the
// conversation above is a prompt already sent).
func inputHolds(screen, text string) bool {
	head := text[:min(len(text), 30)]
	lines := strings.Split(screen, "\n")
	for i := 1; i < len(lines); i++ {
		rest, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "❯")
		rule := strings.TrimSpace(lines[i-1])
		if ok && rule != "" && strings.Trim(rule, "─") == "" && strings.HasPrefix(strings.TrimSpace(rest), head) {
			return true
		}
	}
	return false
}

// waitFor waits until the screen satisfies ok, failing after 45 s.
func (tm *tmuxClient) waitFor(what string, ok func(string) bool) string {
	tm.w.t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		s := tm.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.w.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func quoteAll(env []string) []string {
	out := make([]string, len(env))
	for i, e := range env {
		out[i] = "'" + strings.ReplaceAll(e, "'", `'\''`) + "'"
	}
	return out
}

// TestAcceptingWaitsForThePerson (issue 47, finding 5): a slash command
// pre-approves only the exact reads it names. With the real client's own
// permissions (headless: whatever is not pre-approved is refused): in
// /friction, `ccmem friction` runs as allowed, but `ccmem learn review
// --reject x --accept y` (which a `--reject:*` prefix let run unasked)
// waits for the person, and the rule stays in review; in /ccmem, `ccmem
// show --cwd OTHER` and `ccmem briefing --cwd OTHER --set F` (which `show:*`
// and `briefing:*` let run) are refused, and the other project's briefing
// is as it was.
func TestAcceptingWaitsForThePerson(t *testing.T) {
	w := newWorld(t, nil)
	w.asks = true
	w.write(filepath.Join(w.home, ".claude", "ccmem", "review", "feedback", "shop-1a2b-run-codegen.md"),
		"---\nname: shop-1a2b-run-codegen\ndescription: run make codegen before make build\nmetadata:\n  type: feedback\norigin: friction\nscope: project\nsource_cwd: "+w.project+"\n---\n\nmake build fails without it.\n")
	other := filepath.Join(filepath.Dir(w.project), "secret")
	w.write(filepath.Join(other, ".git", "HEAD"), "ref: refs/heads/main\n")
	dir, err := w.ccmem("paths", "--cwd", other, "project_dir")
	if err != nil {
		t.Fatalf("ccmem paths: %v %s", err, dir)
	}
	brief := filepath.Join(strings.TrimSpace(dir), "briefing.md")
	w.write(brief, "The secret project: launch on 2027-01-04.\n")
	w.write(filepath.Join(w.project, "evil.md"), "planted\n")
	cmdFile, err := os.ReadFile(filepath.Join(w.home, ".claude", "commands", "friction.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Bash\((\S+) friction\)`).FindSubmatch(cmdFile)
	if m == nil {
		t.Fatalf("the installed /friction allows no ccmem friction:\n%s", cmdFile)
	}
	ccmem := string(m[1])
	run := func(command string, calls []string) ([]string, []bool) {
		t.Helper()
		w.api.SetScript(func(r scriptapi.MessagesRequest) scriptapi.Reply {
			if n := toolResults(r); n < len(calls) {
				return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": calls[n], "description": "memory"}}}}
			}
			return scriptapi.Reply{Text: "done"}
		})
		n := len(w.api.MessageRequests())
		w.claude("-p", command)
		var texts []string
		var errs []bool
		for _, r := range w.api.MessageRequests()[n:] {
			if tx, es := toolResultTexts(r); len(tx) > len(texts) {
				texts, errs = tx, es
			}
		}
		if len(texts) != len(calls) {
			t.Fatalf("%s: tool results: %q", command, texts)
		}
		return texts, errs
	}
	texts, errs := run("/friction", []string{ccmem + " friction", ccmem + " learn review --reject nothing --accept shop-1a2b-run-codegen"})
	if errs[0] || strings.Contains(texts[0], "permission") {
		t.Errorf("the read /friction allows did not run: %q", texts[0])
	}
	if !errs[1] || strings.Contains(texts[1], "accepted") {
		t.Errorf("--reject x --accept y ran without the person's approval: %q", texts[1])
	}
	if _, err := os.Stat(filepath.Join(w.home, ".claude", "ccmem", "review", "feedback", "shop-1a2b-run-codegen.md")); err != nil {
		t.Errorf("the rule left review: %v", err)
	}
	texts, errs = run("/ccmem", []string{ccmem + " show", ccmem + " show --cwd " + other, ccmem + " briefing --cwd " + other + " --set " + filepath.Join(w.project, "evil.md")})
	if errs[0] {
		t.Errorf("the read /ccmem allows did not run: %q", texts[0])
	}
	for i, what := range []string{"show --cwd OTHER", "briefing --cwd OTHER --set F"} {
		if !errs[i+1] || strings.Contains(texts[i+1], "2027-01-04") {
			t.Errorf("%s ran without the person's approval: %q", what, texts[i+1])
		}
	}
	if data, _ := os.ReadFile(brief); string(data) != "The secret project: launch on 2027-01-04.\n" {
		t.Errorf("the other project's briefing was overwritten:\n%s", data)
	}
}
