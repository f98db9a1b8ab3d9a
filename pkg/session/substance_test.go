package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
	"github.com/ccmem/ccmem/pkg/transcript"
	"github.com/ccmem/ccmem/pkg/transcript/transcripttest"
)

// TestDigestKeepsWhatWasSaid (finding 1): a fact stated in the third
// prompt, one deep inside a long first prompt and one in a conclusion all
// reach the episode's digest, and search finds the session by each.
func TestDigestKeepsWhatWasSaid(t *testing.T) {
	w := newCaptureWorld(t)
	long := "I'll paste the context for the nightly inventory job first. " + strings.Repeat("It reconciles stock between the warehouse and our table. ", 5) +
		"It runs at 02:30 UTC from deploy/cron.yaml and pages #shop-alerts when it fails. Please refactor it."
	x := transcripttest.New("s1", w.repo).Prompt(long).Say("Refactored into four functions.").
		Prompt("now add tests").Say("Added table tests.").
		Prompt("by the way my sister moved to Denver, so the demo data should use Denver addresses").
		Call("Bash", `{"command":"go test ./..."}`, "ok", false).
		Say("Updated the fixtures: the cart tests now use a Denver address, and the payment sandbox limit is 25 requests per second.")
	storetest.Append(t, w.tr, x.Text())
	c := w.capture(t, "s1")
	var prompts, answers int
	for _, n := range c.Digest.Notes {
		switch n.Kind {
		case NotePrompt:
			prompts++
		case NoteAnswer:
			answers++
		}
	}
	if prompts != 3 || answers != 3 {
		t.Fatalf("digest has %d prompts and %d answers, want 3 and 3: %+v", prompts, answers, c.Digest)
	}
	if !strings.Contains(c.Digest.Notes[0].Text, "02:30 UTC") || len(c.Digest.Commands) != 1 {
		t.Fatalf("digest: %+v", c.Digest)
	}
	archive(t, w, c)
	for _, q := range []string{"where does my sister live", "when does the inventory job run", "sandbox requests per second limit"} {
		hits, err := search.Search(context.Background(), w.e, q, search.Options{Scope: search.ScopeOf(&w.p, false)})
		if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Path, "-s1.json") {
			t.Errorf("search %q: %+v, %v", q, hits, err)
		}
	}
}

// archive makes the checkpoint of c an episode now (its session over).
func archive(t *testing.T, w *captureWorld, c *Checkpoint) string {
	t.Helper()
	dead := c.Process
	dead.PID = 4194301 // no such process: the session is over
	c.Process = dead
	if err := writeCheckpoint(w.e.ProjectDir(w.p.Key), w.e.CheckpointPath(w.p.Key, c.SessionID), c, false); err != nil {
		t.Fatal(err)
	}
	rep, err := ArchiveOrphans(context.Background(), w.e, w.p, Current{ID: "other"}, config.Default())
	if err != nil || len(rep.Archived) != 1 {
		t.Fatalf("archive: %+v, %v", rep, err)
	}
	return rep.Archived[0]
}

// TestTitles (finding 3): a session's title is the first request a person
// would name it by.
func TestTitles(t *testing.T) {
	root := "/home/dev/src/shop"
	for _, tt := range []struct {
		prompts []string
		want    string
	}{
		{[]string{"Unknown skill: ralph-loop", "hi", "Add retries to the payment client"}, "Add retries to the payment client"},
		{[]string{"你好", "帮我给支付客户端加上重试逻辑"}, "帮我给支付客户端加上重试逻辑"},
		{[]string{"ls", "git status", "why does the checkout test flake?"}, "why does the checkout test flake?"},
		{[]string{`{"error":"timeout","at":"pay.go:12"}`, "the payment client times out under load, fix it"}, "the payment client times out under load, fix it"},
		{[]string{"look at /home/dev/src/shop/internal/pay/client.go and make the retry configurable"}, "look at internal/pay/client.go and make the retry configurable"},
		{[]string{"/review the discount engine pull request"}, "the discount engine pull request"},
		{[]string{"hola", "gracias"}, "hola"},
		{[]string{"Unknown skill: r"}, untitled},
		{[]string{"{ \"statusLine\": { \"type\": \"command\", \"command\": \"~/bin/line", "thanks"}, "thanks"},
		{[]string{"{\n  \"statusLine\": {\n    \"type\": \"command\""}, untitled},
	} {
		c := newCheckpoint("s", store.Project{Root: root})
		c.configure(nil)
		for i, p := range tt.prompts {
			e := transcript.Entry{Kind: transcript.Prompt, Text: p, Timestamp: fmt.Sprintf("2026-11-02T10:00:%02dZ", i)}
			if strings.HasPrefix(p, "/review") {
				e.Command = "/review"
				e.Text = "/review the discount engine pull request"
			}
			c.apply(e)
			c.apply(transcript.Entry{Kind: transcript.Assistant, Text: "ok"})
		}
		c.finish(true)
		if c.Title != tt.want {
			t.Errorf("%q: title %q, want %q", tt.prompts, c.Title, tt.want)
		}
	}
	// An aborted half-prompt is not the title: the next request is.
	c := newCheckpoint("s", store.Project{Root: root})
	c.configure(nil)
	c.apply(transcript.Entry{Kind: transcript.Prompt, Text: "refactor the whole payment module into"})
	c.apply(transcript.Entry{Kind: transcript.Meta, Interrupted: true})
	c.apply(transcript.Entry{Kind: transcript.Prompt, Text: "add a timeout to the payment client"})
	c.apply(transcript.Entry{Kind: transcript.Assistant, Text: "done"})
	c.finish(true)
	if c.Title != "add a timeout to the payment client" {
		t.Errorf("after an aborted prompt: %q", c.Title)
	}
	// A long title is cut at a word.
	if got := titleOf(strings.Repeat("refactor the payment client ", 10), root); len([]rune(got)) > titleChars || !strings.HasSuffix(got, "…") || strings.HasSuffix(got, " …") {
		t.Errorf("long title %q", got)
	}
}

// TestEditorToolsChangeFiles (finding 4): Claude Code in Zed edits
// through mcp__acp__Edit and mcp__acp__Write: those are changed files.
func TestEditorToolsChangeFiles(t *testing.T) {
	w := newCaptureWorld(t)
	x := transcripttest.New("s1", w.repo)
	x.Entrypoint = "sdk-ts"
	x.Prompt("rename Cart to Basket").
		Call("mcp__acp__Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"Cart","new_string":"Basket"}`, filepath.Join(w.repo, "cart.go")), "updated", false).
		Call("mcp__acp__Write", fmt.Sprintf(`{"file_path":%q,"content":"x"}`, filepath.Join(w.repo, "basket.go")), "created", false).
		Call("mcp__acp__Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(w.repo, "go.mod")), "module x", false).
		Say("Renamed.")
	storetest.Append(t, w.tr, x.Text())
	c := w.capture(t, "s1")
	if strings.Join(c.FilesChanged, ",") != "basket.go,cart.go" || strings.Join(c.Digest.Read, ",") != "go.mod" {
		t.Fatalf("changed %v, read %v", c.FilesChanged, c.Digest.Read)
	}
}

// TestDeclinedIsNotAnError (finding 5): a call the user said no to, a
// permission denied or a hook's block is declined, not a tool error, and
// does not make the session BAD.
func TestDeclinedIsNotAnError(t *testing.T) {
	w := newCaptureWorld(t)
	x := transcripttest.New("s1", w.repo).Prompt("clean the build folder").
		Call("Bash", `{"command":"rm -rf build"}`, "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", true).
		Raw(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]},"timestamp":"2026-11-02T10:05:00.000Z"}`).
		Prompt("use make clean instead").
		Call("Bash", `{"command":"make clean"}`, "Claude requested permissions to use Bash, but you haven't granted it yet.", true).
		Call("Bash", `{"command":"make clean"}`, "PreToolUse:Bash hook error: Blocked by hook: no make in this repo", true)
	storetest.Append(t, w.tr, x.Text())
	c := w.capture(t, "s1")
	c.finish(true)
	if c.ToolErrors != 0 || c.Declined != 3 || c.Friction.Class == "BAD" {
		t.Fatalf("tool_errors %d, declined %d, class %s (%v)", c.ToolErrors, c.Declined, c.Friction.Class, c.Friction.Signals)
	}
}

// TestMenuNeverEmpty (finding 6): after a long holiday, age archives all
// but the newest keep_newest sessions of a person; automated runs do not
// count among them, and max_episodes still archives the oldest.
func TestMenuNeverEmpty(t *testing.T) {
	w := newCaptureWorld(t)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	w.e.Now = func() time.Time { return now }
	var lines []indexEdit
	for i := range 30 {
		c := newCheckpoint(fmt.Sprintf("s%02d", i), w.p)
		c.StartedAt = now.AddDate(0, 0, -200+i).Format(time.RFC3339)
		c.Turns, c.Goal = 2, fmt.Sprintf("work %d", i)
		c.Automated = i >= 25 // the five newest are automated runs
		name := EpisodeName(c, now)
		if err := writeCheckpoint(w.e.ProjectDir(w.p.Key), filepath.Join(w.e.EpisodesDir(w.p.Key), name), c, false); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, indexEdit{c.SessionID, IndexLine(c, name)})
	}
	if err := editIndex(w.e, w.p.Key, lines, nil); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	if _, err := ApplyRetention(context.Background(), w.e, w.p.Key, cfg, false); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(w.e.EpisodesDir(w.p.Key))
	var names []string
	for _, de := range left {
		names = append(names, de.Name())
	}
	if len(names) != 10 || !strings.Contains(names[0], "-s15.json") || !strings.Contains(names[9], "-s24.json") {
		t.Fatalf("left %v, want the ten newest person sessions s15..s24", names)
	}
	cfg.MaxEpisodes = 4
	if _, err := ApplyRetention(context.Background(), w.e, w.p.Key, cfg, false); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(w.e.EpisodesDir(w.p.Key)); len(left) != 4 {
		t.Fatalf("max_episodes 4 left %d", len(left))
	}
}

// TestOneEpisodePerConversation (finding 7): a forked session records only
// what happened after the fork and names its parent; a working directory
// that drifts into a subfolder of a folder that is not a repository stays
// the session's project.
func TestOneEpisodePerConversation(t *testing.T) {
	w := newCaptureWorld(t)
	parent := transcripttest.New("parent-1", w.repo).Prompt("add retries to the payment client").Say("Retries added.")
	fork := transcripttest.New("fork-1", w.repo)
	fork.T = time.Now().UTC().Add(time.Minute)
	fork.Prompt("now try a circuit breaker instead").Say("Circuit breaker added.")
	storetest.Append(t, w.tr, append(parent.Text(), fork.Text()...))
	w.e.Now = func() time.Time { return time.Now().UTC() }
	c, err := Capture(context.Background(), w.e, CaptureRequest{Turn: Turn{SessionID: "fork-1", TranscriptPath: w.tr, Cwd: w.repo}, NewSession: true, Fork: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Turns != 1 || c.Parent != "parent-1" || !strings.Contains(c.Goal, "circuit breaker") {
		t.Fatalf("fork: turns %d, parent %q, goal %q", c.Turns, c.Parent, c.Goal)
	}

	// Drift: a session started in a plain folder, its cwd now a subfolder.
	plain := filepath.Join(storetest.RealDir(t), "notes")
	storetest.Mkfile(t, filepath.Join(plain, "drafts", "a.md"), "x")
	tr := filepath.Join(w.e.ClaudeDir, "projects", store.Slug(plain), "d1.jsonl")
	storetest.Append(t, tr, transcripttest.New("d1", plain).Prompt("draft the newsletter").Say("Drafted.").Text())
	if _, err := Capture(context.Background(), w.e, CaptureRequest{Turn: Turn{SessionID: "d1", TranscriptPath: tr, Cwd: plain}, NewSession: true}); err != nil {
		t.Fatal(err)
	}
	storetest.Append(t, tr, transcripttest.New("d1", filepath.Join(plain, "drafts")).Prompt("now shorten it").Say("Shortened.").Text())
	c, err = Capture(context.Background(), w.e, CaptureRequest{Turn: Turn{SessionID: "d1", TranscriptPath: tr, Cwd: filepath.Join(plain, "drafts")}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Turns != 2 || c.ProjectRoot != plain {
		t.Fatalf("drifted session: turns %d in %s", c.Turns, c.ProjectRoot)
	}
	if _, err := os.Stat(filepath.Join(w.e.ProjectsDir(), store.Slug(filepath.Join(plain, "drafts")))); err == nil {
		t.Fatal("the subfolder got a project of its own")
	}
}

// TestProgressLinesAreSkipped (finding 8): older clients' progress lines
// nest whole prompts; they are skipped without being taken for turns.
func TestProgressLinesAreSkipped(t *testing.T) {
	w := newCaptureWorld(t)
	x := transcripttest.New("s1", w.repo).Prompt("run the tests").
		Raw(`{"parentUuid":"p","isSidechain":false,"userType":"external","cwd":"/x","sessionId":"s1","version":"2.1.80","gitBranch":"main","slug":"a","type":"progress","data":{"message":{"type":"user","message":{"role":"user","content":"nested prompt copy"}},"type":"agent_progress"},"toolUseID":"t","timestamp":"2026-11-02T10:01:00.000Z"}`).
		Raw(`{"parentUuid":"p","isSidechain":false,"type":"progress","data":{"type":"hook_progress","hookEvent":"Stop","command":"x"},"timestamp":"2026-11-02T10:01:01.000Z"}`).
		Say("All green.")
	storetest.Append(t, w.tr, x.Text())
	if c := w.capture(t, "s1"); c.Turns != 1 {
		t.Fatalf("turns %d: a progress line was taken for a prompt", c.Turns)
	}
	if _, ok := transcript.Parse([]byte(x.Lines[1])); ok {
		t.Fatal("a progress line was decoded as useful")
	}
}

// TestDigestCap: a session far longer than the cap keeps the start of
// every prompt and its newest conclusions within digest_bytes.
func TestDigestCap(t *testing.T) {
	w := newCaptureWorld(t)
	x := transcripttest.New("s1", w.repo)
	for i := range 300 {
		x.Prompt(fmt.Sprintf("step %d: %s", i, strings.Repeat("please also look at the retry budget and the logging ", 20))).
			Call("Bash", fmt.Sprintf(`{"command":"go test ./pkg%d/..."}`, i), "Exit code 1\nFAIL: boom", i%3 == 0).
			Say(fmt.Sprintf("Conclusion of step %d: %s", i, strings.Repeat("the change is fine and the tests are green now ", 20)))
	}
	storetest.Append(t, w.tr, x.Text())
	c := w.capture(t, "s1")
	c.finish(true)
	data, _ := checkpoint.Marshal(&c.Record)
	if len(data) > DefaultDigestBytes {
		t.Fatalf("digest %d bytes, episode %d", c.Digest.Size(), len(data))
	}
	var prompts []string
	var lastAnswer string
	for _, n := range c.Digest.Notes {
		if n.Kind == NotePrompt {
			prompts = append(prompts, n.Text)
		}
		if n.Kind == NoteAnswer {
			lastAnswer = n.Text
		}
	}
	if !strings.HasPrefix(prompts[0], "step 0:") || !strings.HasPrefix(prompts[len(prompts)-1], "step 299:") || !strings.HasPrefix(lastAnswer, "Conclusion of step 299") {
		t.Fatalf("first %q, last %q, last answer %q", prompts[0], prompts[len(prompts)-1], lastAnswer)
	}
	if c.Digest.Dropped == 0 {
		t.Fatal("nothing gave way")
	}
}

// TestDigestRedactsBeforeItCuts: a secret that a note's cut would split in
// two leaves no part of itself, in a prompt and in a conclusion, whatever
// the cap makes of them.
func TestDigestRedactsBeforeItCuts(t *testing.T) {
	for _, at := range []int{promptChars - 10, promptChars - 3, answerChars - 8, 590, 295} {
		w := newCaptureWorld(t)
		secret := "ghp_Zq8Xw2Lk9Pm4Rt7Yv1Bn6Hc3Jd5Gf0SaQwEr"
		text := strings.Repeat("a", at) + " token " + secret + " and more words after it"
		x := transcripttest.New("s1", w.repo)
		for range 40 { // enough turns for the cap to cut notes down
			x.Prompt(text).Say(text)
		}
		storetest.Append(t, w.tr, x.Text())
		c := w.capture(t, "s1")
		data, _ := checkpoint.Marshal(&c.Record)
		for i := 0; i+8 <= len(secret); i++ {
			if strings.Contains(string(data), secret[i:i+8]) {
				t.Fatalf("cut near %d: %q of the secret is in the record", at, secret[i:i+8])
			}
		}
	}
}

// TestSlashCommandIsATurnWhenAnswered: a slash command the model answers
// (a project's command, a skill) is a turn, titled by its arguments; one
// only the client answers (/model, /compact) is not.
func TestSlashCommandIsATurnWhenAnswered(t *testing.T) {
	w := newCaptureWorld(t)
	x := transcripttest.New("s1", w.repo)
	echo := func(name, args string) *transcripttest.Tx {
		content := fmt.Sprintf("<command-message>%s</command-message>\n<command-name>/%s</command-name>\n<command-args>%s</command-args>", name, name, args)
		return x.Raw(fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"type":"user","message":{"role":"user","content":%q},"turnOrigin":"sdk","entrypoint":"cli",%s}`, content, x.Common()))
	}
	echo("model", "sonnet")
	x.Raw(fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"<local-command-stdout>Set model to sonnet</local-command-stdout>"},%s}`, x.Common()))
	x.Raw(fmt.Sprintf(`{"type":"assistant","message":{"id":"syn","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"No response requested."}]},%s}`, x.Common()))
	echo("plan", "move the billing cron to the scheduler service")
	x.Raw(fmt.Sprintf(`{"type":"user","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"Make a short plan: move the billing cron to the scheduler service"}]},%s}`, x.Common()))
	x.Say("Plan: three steps.")
	storetest.Append(t, w.tr, x.Text())
	c := w.capture(t, "s1")
	c.finish(true)
	if c.Turns != 1 || c.Title != "move the billing cron to the scheduler service" || c.Goal != "/plan move the billing cron to the scheduler service" {
		t.Fatalf("turns %d, title %q, goal %q", c.Turns, c.Title, c.Goal)
	}
}

// TestDigestInTheSessionsOrder: a subagent's transcript is read after the
// session's (and, live, sometimes by a later hook run than the answer it
// came before), so its notes used to land after the turn's answer, or in
// the last turn read on import. Read live in two runs, or all at once as
// import reads, the digest is the same: each turn's prompt first, its
// subagent's failure in that turn, its conclusion last; a slash command
// typed after a turn opens the next one.
func TestDigestInTheSessionsOrder(t *testing.T) {
	build := func(w *captureWorld) (main, sub *transcripttest.Tx, subPath string) {
		main = transcripttest.New("s1", w.repo)
		main.Prompt("delegate the notes work to a subagent").
			Call("Agent", `{"prompt":"write the notes"}`, "done", false)
		subStart := main.T
		main.Say("The subagent did the work.").
			Raw(fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"type":"user","message":{"role":"user","content":"<command-message>plan</command-message>\n<command-name>/plan</command-name>\n<command-args>move the billing cron</command-args>"},"entrypoint":"cli",%s}`, main.Common())).
			Say("Plan: three steps.").
			Prompt("now run the release checks").
			Say("All checks pass.")
		sub = transcripttest.New("s1", w.repo)
		sub.T = subStart // the subagent works inside turn 1
		sub.Call("Bash", `{"command":"false"}`, "Exit code 1", true)
		for i := range sub.Lines {
			sub.Lines[i] = strings.Replace(sub.Lines[i], `"isSidechain":false`, `"isSidechain":true`, 1)
		}
		return main, sub, filepath.Join(SubagentsDir(w.tr), "agent-a1.jsonl")
	}
	kinds := func(c *Checkpoint) []string {
		var out []string
		for _, n := range c.Digest.Notes {
			out = append(out, fmt.Sprintf("%d %s %s", n.Turn, n.Kind, n.Text))
		}
		return out
	}
	want := []string{
		"1 prompt delegate the notes work to a subagent",
		"1 failure Exit code 1",
		"1 answer The subagent did the work.",
		"2 prompt /plan move the billing cron",
		"2 answer Plan: three steps.",
		"3 prompt now run the release checks",
		"3 answer All checks pass.",
	}

	// Live: the first hook run reads the session's first turn before the
	// client has written the subagent's transcript; a later run reads it.
	w := newCaptureWorld(t)
	main, sub, subPath := build(w)
	storetest.Append(t, w.tr, []byte(strings.Join(main.Lines[:4], "\n")+"\n"))
	w.capture(t, "s1")
	storetest.Mkfile(t, subPath, string(sub.Text()))
	storetest.Append(t, w.tr, []byte(strings.Join(main.Lines[4:], "\n")+"\n"))
	c := w.capture(t, "s1")
	c.finish(true)
	if got := kinds(c); !slices.Equal(got, want) {
		t.Errorf("read live in two runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Import: everything at once.
	w = newCaptureWorld(t)
	main, sub, subPath = build(w)
	storetest.Append(t, w.tr, main.Text())
	storetest.Mkfile(t, subPath, string(sub.Text()))
	c = w.capture(t, "s1")
	c.finish(true)
	if got := kinds(c); !slices.Equal(got, want) {
		t.Errorf("read at once:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLongFirstPassHoldsLittle: a first pass over a session whose prompts
// and conclusions come to several MB (an import, the first Stop of a
// long session) never holds much more than a MB of note text at once —
// it held all of it until the end, tens of MB on the bench's 100 MB
// transcript, where the hook's memory limit made the collector run
// without pause — and ends with what TestDigestCap asks: under the cap,
// the first and last prompts and the newest conclusion kept.
func TestLongFirstPassHoldsLittle(t *testing.T) {
	c := newCheckpoint("s", store.Project{Root: "/src/shop"})
	c.configure(nil)
	held := func() int {
		n := 0
		for _, x := range c.Digest.Notes {
			n += len(x.Text)
		}
		return n
	}
	const turns = 3000
	most := 0
	for i := range turns {
		ts := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z")
		c.apply(transcript.Entry{Kind: transcript.Prompt, Text: fmt.Sprintf("step %d: %s", i, strings.Repeat("look at the retry budget ", 60)), Timestamp: ts})
		c.apply(transcript.Entry{Kind: transcript.Assistant, Text: fmt.Sprintf("Conclusion of step %d: %s", i, strings.Repeat("the tests are green ", 60)), Timestamp: ts})
		most = max(most, held())
	}
	if total := turns * 2 * 1300; most > heldMax+2*DefaultDigestBytes || most >= total/2 {
		t.Fatalf("held %d bytes of note text at most, of %d read", most, total)
	}
	c.finish(true)
	data, _ := checkpoint.Marshal(&c.Record)
	if len(data) > DefaultDigestBytes {
		t.Fatalf("episode %d bytes", len(data))
	}
	var prompts []string
	var lastAnswer string
	for _, n := range c.Digest.Notes {
		switch n.Kind {
		case NotePrompt:
			prompts = append(prompts, n.Text)
		case NoteAnswer:
			lastAnswer = n.Text
		}
	}
	if len(prompts) < 2 || !strings.HasPrefix(prompts[0], "step 0:") || !strings.HasPrefix(prompts[len(prompts)-1], fmt.Sprintf("step %d:", turns-1)) || !strings.HasPrefix(lastAnswer, fmt.Sprintf("Conclusion of step %d", turns-1)) {
		t.Fatalf("%d prompts kept; last answer %q", len(prompts), lastAnswer)
	}
}

// TestOpeningIsKept: what the assistant says before the session's first
// prompt (a session it opens, a resumed one) is kept as the session's
// opening, search finds the session by it, and reading turn 1 shows it.
func TestOpeningIsKept(t *testing.T) {
	w := newCaptureWorld(t)
	x := transcripttest.New("s1", w.repo).Say("Welcome back! Last time you said your daughter Xiaomi starts kindergarten next week.").
		Prompt("help me write a letter to the landlord").Say("Here is a draft letter.")
	storetest.Append(t, w.tr, x.Text())
	c := w.capture(t, "s1")
	if len(c.Digest.Notes) != 3 || c.Digest.Notes[0].Kind != NoteOpening || c.Digest.Notes[0].Turn != 0 || !strings.Contains(c.Digest.Notes[0].Text, "kindergarten") {
		t.Fatalf("digest: %+v", c.Digest.Notes)
	}
	if c.Goal != "help me write a letter to the landlord" || c.Turns != 1 {
		t.Fatalf("goal %q, %d turns", c.Goal, c.Turns)
	}
	archive(t, w, c)
	hits, err := search.Search(context.Background(), w.e, "daughter kindergarten", search.Options{Scope: search.ScopeOf(&w.p, false)})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Path, "-s1.json") || hits[0].Turn != 1 || !strings.Contains(hits[0].Snippet, "Xiaomi") {
		t.Fatalf("search: %+v, %v", hits, err)
	}
	got, err := search.GetTurns(w.e, hits[0].Path, search.ScopeOf(&w.p, false), 1, 0)
	if err != nil || !strings.Contains(got, "before the first prompt, opening: Welcome back!") || !strings.Contains(got, "turn 1, prompt: help me write") {
		t.Fatalf("turn 1: %q, %v", got, err)
	}
}
