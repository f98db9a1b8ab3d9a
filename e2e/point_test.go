package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/dev/scriptapi"
)

// contextAfter is every text the client sent, from request from on, that
// carries a hook's additional context of the given prefix ("UserPromptSubmit
// hook additional context: ").
func (w *world) contextAfter(from int, prefix string) string {
	var out []string
	for _, r := range w.api.MessageRequests()[from:] {
		for _, text := range r.Texts() {
			if i := strings.Index(text, prefix); i >= 0 {
				out = append(out, text[i:])
			}
		}
	}
	return strings.Join(out, "\n")
}

const promptContext = "UserPromptSubmit hook additional context: "

// TestRecallCarriesWhatWasSaid: with the real client, a fact stated in
// passing in a session's second prompt, and a Chinese session's fact, are
// recalled by later prompts that ask for them in other words: the request
// carries the passage itself (the sentence, and the file and turn to read),
// not only the session's title.
func TestRecallCarriesWhatWasSaid(t *testing.T) {
	// Long (a release build, a long history): run beside the others.
	t.Parallel()
	w := newWorld(t, nil)
	staging := w.runJSON("-p", "set up the staging docs in docs/staging.md")
	w.claude("-p", "--resume", staging, "good. by the way the staging postgres listens on port 6432 behind pgbouncer now, put that in the doc too")
	zh := w.runJSON("-p", "我们要给订单服务加一个审计日志，记录每次状态变更")
	w.claude("-p", "--resume", zh, "顺便说一下，合规那边要求审计日志至少保留七年，而且必须写到单独的只读存储桶里")
	for i, chore := range []string{"bump the linter", "fix the flaky cart test", "rename the price helper", "add a health check endpoint", "tidy the Makefile"} {
		w.claude("-p", fmt.Sprintf("%s (chore %d)", chore, i))
	}

	n := len(w.api.MessageRequests())
	w.claude("-p", "which port does the staging database listen on these days?")
	got := w.contextAfter(n, promptContext)
	if !strings.Contains(got, "6432 behind pgbouncer") || !strings.Contains(got, staging+".json (turn 2)") {
		t.Fatalf("the mid-session fact is not in the request:\n%s", got)
	}

	n = len(w.api.MessageRequests())
	w.claude("-p", "审计日志要保存多久？")
	got = w.contextAfter(n, promptContext)
	if !strings.Contains(got, "至少保留七年") || !strings.Contains(got, zh+".json (turn 2)") {
		t.Fatalf("the Chinese session's fact is not in the request:\n%s", got)
	}
}

// TestPreToolUseCarriesTheRule: a Bash call whose command a learned
// feedback entry bears on carries that rule into the next request — the
// one with the call's result: after the command ran; a call no rule bears
// on carries nothing.
func TestPreToolUseCarriesTheRule(t *testing.T) {
	w := newWorld(t, nil)
	w.write(filepath.Join(w.home, ".claude", "ccmem", "learned", "feedback", "dry-run.md"),
		"---\nname: dry-run\ndescription: Never run database migrations without --dry-run first\ntype: feedback\n---\nA migration dropped a column in production once.\n")
	// The person confirms it as theirs (it was put in place by hand).
	if out, err := w.ccmem("learn", "review", "--all"); err != nil {
		t.Fatalf("learn review --all: %v\n%s", err, out)
	}
	command := ""
	w.api.SetScript(func(r scriptapi.MessagesRequest) scriptapi.Reply {
		if toolResults(r) == 0 {
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": command, "description": "run it"}}}}
		}
		return scriptapi.Reply{Text: "done"}
	})
	const toolContext = "PreToolUse:Bash hook additional context: "
	command = "echo npm run migrate"
	n := len(w.api.MessageRequests())
	w.claude("-p", "apply the pending migrations")
	got := w.contextAfter(n, toolContext)
	if !strings.Contains(got, "Never run database migrations without --dry-run first") {
		t.Fatalf("the request after the Bash call lacks the rule:\n%s", got)
	}
	// Where it lands: only in a request that already carries the call's
	// result — the model reads the rule after the command ran (which is
	// why a rule that forbids a command holds it instead:
	// TestAcceptedRuleHoldsTheFirstCall).
	for _, r := range w.api.MessageRequests()[n:] {
		for _, text := range r.Texts() {
			if strings.Contains(text, toolContext) && toolResults(r) == 0 {
				t.Errorf("the rule reached a request before the call's result")
			}
		}
	}
	command = "ls -la"
	n = len(w.api.MessageRequests())
	w.claude("-p", "list the files")
	if got := w.contextAfter(n, "PreToolUse:"); got != "" {
		t.Fatalf("a call no rule bears on carried:\n%s", got)
	}
}

// TestSubagentStartsWithTheRules: a subagent's first request carries the
// compact block of the user's standing rules.
func TestSubagentStartsWithTheRules(t *testing.T) {
	w := newWorld(t, nil)
	w.write(filepath.Join(w.home, ".claude", "ccmem", "learned", "feedback", "tabs.md"),
		"---\nname: tabs\ndescription: Always answer in British English\ntype: feedback\n---\n")
	if out, err := w.ccmem("learn", "review", "--all"); err != nil {
		t.Fatalf("learn review --all: %v\n%s", err, out)
	}
	w.write(filepath.Join(w.project, ".claude", "memory", "MEMORY.md"), "## Rules\n- Do not edit generated files in api/gen/, run make generate\n")
	const task = "SUBAGENT TASK: count the Go files"
	var sub *scriptapi.MessagesRequest
	w.api.SetScript(func(r scriptapi.MessagesRequest) scriptapi.Reply {
		first := ""
		for _, m := range r.Messages {
			if m.Role == "user" {
				for _, b := range m.Blocks() {
					first += b.Text
				}
				break
			}
		}
		switch {
		case strings.Contains(first, task):
			if sub == nil {
				sub = &r
			}
			return scriptapi.Reply{Text: "there are 3"}
		case toolResults(r) == 0:
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Agent", Input: map[string]any{
				"description": "count files", "prompt": task, "subagent_type": "general-purpose"}}}}
		}
		return scriptapi.Reply{Text: "done"}
	})
	w.claude("-p", "how many Go files are there? use a subagent", "--allowedTools", "Agent Bash Read")
	if sub == nil {
		t.Fatal("the client started no subagent")
	}
	all := strings.Join(sub.Texts(), "\n")
	for _, want := range []string{"SubagentStart hook additional context: # ccmem: the user's standing rules", "Always answer in British English", "Do not edit generated files in api/gen/"} {
		if !strings.Contains(all, want) {
			t.Errorf("the subagent's first request lacks %q:\n%.3000s", want, all)
		}
	}
}

// TestSkillProfileReachesTheModel: when the model runs a project skill
// (the Skill tool), the request after it carries the skill's profile
// (seed 003), through the PreToolUse hook.
func TestSkillProfileReachesTheModel(t *testing.T) {
	w := newWorld(t, nil)
	w.write(filepath.Join(w.project, ".claude", "skills", "deploy", "SKILL.md"),
		"---\nname: deploy\ndescription: Deploy the shop to staging\n---\nRun make deploy-staging and report the URL.\n")
	profile := filepath.Join(w.home, "deploy-profile.md")
	w.write(profile, "# Deploy here\n- run make release-check first; it catches the missing changelog entry\n")
	if out, err := w.ccmem("profile", "set", "deploy", "--input", profile); err != nil {
		t.Fatalf("ccmem profile set: %v\n%s", err, out)
	}
	w.api.SetScript(func(r scriptapi.MessagesRequest) scriptapi.Reply {
		if toolResults(r) == 0 {
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Skill", Input: map[string]any{"skill": "deploy"}}}}
		}
		return scriptapi.Reply{Text: "deployed"}
	})
	n := len(w.api.MessageRequests())
	w.claude("-p", "deploy the shop to staging", "--allowedTools", "Skill Bash Read")
	got := w.contextAfter(n, "PreToolUse:Skill hook additional context: ")
	if !strings.Contains(got, `the user's notes for the "deploy" skill`) || !strings.Contains(got, "run make release-check first") {
		t.Fatalf("the request after the Skill call lacks the profile:\n%s", got)
	}
}

// toolResultTexts are the tool results of a request, each as the text the
// model reads, and whether the client marked it an error.
func toolResultTexts(r scriptapi.MessagesRequest) (texts []string, errs []bool) {
	for _, m := range r.Messages {
		for _, b := range m.Blocks() {
			if b.Type != "tool_result" {
				continue
			}
			var s string
			if json.Unmarshal(b.Content, &s) != nil {
				var parts []scriptapi.Block
				_ = json.Unmarshal(b.Content, &parts)
				for _, p := range parts {
					s += p.Text
				}
			}
			texts, errs = append(texts, s), append(errs, b.IsError)
		}
	}
	return texts, errs
}

// TestAcceptedRuleHoldsTheFirstCall: with the real client, a rule the
// person accepted ("Never run go test directly; run make test-payments")
// holds the session's first call it forbids — the command does not run,
// and the model reads the rule as the call's result — and the same call
// made again runs. A call no rule bears on runs the first time. (The
// client gives PreToolUse context only after the call ran: see
// TestPreToolUseCarriesTheRule.)
func TestAcceptedRuleHoldsTheFirstCall(t *testing.T) {
	w := newWorld(t, nil)
	w.write(filepath.Join(w.home, ".claude", "ccmem", "review", "feedback", "payments-tests.md"),
		"---\nname: payments-tests\ndescription: Never run go test directly; run make test-payments\nmetadata:\n  type: feedback\norigin: friction\n---\n\nThe payments tests need the fixtures make test-payments starts.\n")
	if out, err := w.ccmem("learn", "review", "--accept", "payments-tests"); err != nil {
		t.Fatalf("ccmem learn review --accept: %v\n%s", err, out)
	}
	marks := filepath.Join(w.home, "marks")
	w.write(filepath.Join(marks, ".keep"), "")
	var calls []string
	w.api.SetScript(func(r scriptapi.MessagesRequest) scriptapi.Reply {
		if n := toolResults(r); n < len(calls) {
			return scriptapi.Reply{Tools: []scriptapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": calls[n], "description": "run it"}}}}
		}
		return scriptapi.Reply{Text: "done"}
	})
	calls = []string{
		"touch " + filepath.Join(marks, "first") + " && go test ./internal/payments/",
		"touch " + filepath.Join(marks, "second") + " && go test ./internal/payments/",
	}
	n := len(w.api.MessageRequests())
	w.claude("-p", "run the payments tests")
	if _, err := os.Stat(filepath.Join(marks, "first")); err == nil {
		t.Error("the first call the rule forbids ran")
	}
	if _, err := os.Stat(filepath.Join(marks, "second")); err != nil {
		t.Error("the same call made again did not run: the rule locked the model out")
	}
	var held string
	for _, r := range w.api.MessageRequests()[n:] {
		if texts, errs := toolResultTexts(r); len(texts) > 0 {
			held = texts[0]
			if !errs[0] {
				t.Errorf("the held call's result is not marked an error: %q", held)
			}
			break
		}
	}
	for _, want := range []string{"ccmem held this command once", "Never run go test directly; run make test-payments", "run it again"} {
		if !strings.Contains(held, want) {
			t.Errorf("the model did not read %q as the held call's result:\n%s", want, held)
		}
	}

	calls = []string{"touch " + filepath.Join(marks, "other") + " && ls"}
	n = len(w.api.MessageRequests())
	w.claude("-p", "list the files")
	if _, err := os.Stat(filepath.Join(marks, "other")); err != nil {
		t.Error("a call no rule bears on did not run the first time")
	}
	for _, r := range w.api.MessageRequests()[n:] {
		if texts, _ := toolResultTexts(r); len(texts) > 0 && strings.Contains(texts[0], "ccmem held") {
			t.Errorf("a call no rule bears on was held: %s", texts[0])
		}
	}
}

// TestRecallSaysAFactOnce (issue 51, finding 3): a fact said in the same
// words in four sessions reaches a later prompt's request once, with how
// often it was seen, not once per session.
func TestRecallSaysAFactOnce(t *testing.T) {
	// Long (eight sessions): run beside the others.
	t.Parallel()
	w := newWorld(t, nil)
	const fact = "by the way npm test fails with Error: Cannot find module '../dist/invoice.js' until you run npm run build first"
	for i, chore := range []string{"bump the linter", "rename the price helper", "add a health check endpoint", "tidy the Makefile"} {
		sid := w.runJSON("-p", fmt.Sprintf("%s (chore %d)", chore, i))
		w.claude("-p", "--resume", sid, fact)
	}
	n := len(w.api.MessageRequests())
	w.claude("-p", "npm test cannot find the invoice module in dist, what do we do?")
	got := w.contextAfter(n, promptContext)
	if c := strings.Count(got, "Cannot find module '../dist/invoice.js'"); c != 1 || !strings.Contains(got, "seen in 4 sessions") {
		t.Fatalf("the fact said in 4 sessions is in the request %d times (want once, with how often it was seen):\n%s", c, got)
	}
}
