package importer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/importer"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// rollout is a Codex CLI 0.169.0 session file in the documented format
// (the shared codex-contract.md, §6): the session's meta line, Codex's
// own boilerplate (developer instructions, the environment, a world-state
// snapshot), ccmem's injected context (a developer message), the person's
// prompt (content kind user.text), a shell call that failed and the same
// call passing, the reply; then a line of a type no version documents and
// a torn last line, as a session being written leaves it.
func rollout(repo string) string {
	line := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	msg := func(role string, kinds []string, text string) map[string]any {
		typ := "input_text"
		if role == "assistant" {
			typ = "output_text"
		}
		m := map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": typ, "text": text}}}
		if kinds != nil {
			m["internal_chat_message_metadata_passthrough"] = map[string]any{"content_item_kinds": kinds}
		}
		return m
	}
	ts := "2026-11-20T10:00:%02d.000Z"
	n := 0
	at := func() string {
		n++
		return strings.Replace(ts, "%02d", string(rune('0'+n/10))+string(rune('0'+n%10)), 1)
	}
	lines := []string{
		line(map[string]any{"timestamp": at(), "ordinal": 0, "type": "session_meta", "payload": map[string]any{"session_id": "01a217cc-26e4-7ce2-ba33-4e9e15be8a42",
			"id": "01a217cc-26e4-7ce2-ba33-4e9e15be8a42", "cwd": repo, "originator": "codex_exec", "cli_version": "0.169.0", "git": map[string]any{"branch": "main"}}}),
		line(map[string]any{"timestamp": at(), "type": "event_msg", "payload": map[string]any{"type": "task_started", "turn_id": "t1"}}),
		line(map[string]any{"timestamp": at(), "type": "response_item", "payload": msg("developer", []string{"host_skills.instructions", "permissions.instructions"}, "<skills_instructions>…")}),
		line(map[string]any{"timestamp": at(), "type": "response_item", "payload": msg("user", []string{"environments.environment_context"}, "<environment_context>\n  <cwd>"+repo+"</cwd>\n</environment_context>")}),
		line(map[string]any{"timestamp": at(), "type": "world_state", "payload": map[string]any{"full": true}}),
		line(map[string]any{"timestamp": at(), "type": "response_item", "payload": msg("developer", []string{"hooks.additional_context"}, "ccmem — memory of this project: INJECTED-NOT-SAID")}),
		line(map[string]any{"timestamp": at(), "type": "response_item", "payload": msg("user", []string{"user.text"},
			"the payments webhook retries on 502 now: make it use exponential backoff capped at five minutes")}),
		line(map[string]any{"timestamp": at(), "type": "response_item", "payload": map[string]any{"type": "function_call", "name": "exec_command",
			"arguments": `{"cmd": "make test-payments"}`, "call_id": "call_1"}}),
		line(map[string]any{"timestamp": at(), "type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": "call_1",
			"output": "Chunk ID: a1\nWall time: 0.2 seconds\nProcess exited with code 2\nOutput:\nFAIL: TestWebhookBackoff: want 300s cap\n"}}),
		line(map[string]any{"timestamp": at(), "type": "response_item", "payload": map[string]any{"type": "function_call", "name": "exec_command",
			"arguments": `{"cmd": "make test-payments"}`, "call_id": "call_2"}}),
		line(map[string]any{"timestamp": at(), "type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": "call_2",
			"output": "Process exited with code 0\nOutput:\nok\n"}}),
		line(map[string]any{"timestamp": at(), "type": "response_item", "payload": msg("assistant", []string{"unknown"},
			"Done: the webhook now backs off exponentially, capped at five minutes (300 s); make test-payments passes.")}),
		line(map[string]any{"timestamp": at(), "type": "some_future_record", "payload": map[string]any{"type": "whatever", "text": "FUTURE-RECORD-TEXT"}}),
		line(map[string]any{"timestamp": at(), "type": "event_msg", "payload": map[string]any{"type": "task_complete", "last_agent_message": "Done"}}),
	}
	return strings.Join(lines, "\n") + "\n" + `{"timestamp":"2026-11-20T10:00:59.000Z","type":"response_item","payload":{"type":"mess`
}

// TestImportCodexRollout: a Codex CLI session in a repository becomes an
// episode of the same project as Claude Code's sessions there: its prompt,
// the failing command and its fix, its reply; marked as Codex's in the
// menu; found by search. Codex's boilerplate, ccmem's own injected
// context, a record type ccmem does not know and a torn last line are
// left out, and nothing fails.
func TestImportCodexRollout(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	dir := filepath.Join(e.CodexDir, "sessions", "2026", "11", "20")
	storetest.Mkfile(t, filepath.Join(dir, "rollout-2026-11-20T10-00-00-01a217cc-26e4-7ce2-ba33-4e9e15be8a42.jsonl"), rollout(repo))
	storetest.Mkfile(t, filepath.Join(dir, "notes.txt"), "not a rollout")
	rep, err := importer.Import(context.Background(), e, importer.ImportOptions{})
	if err != nil || rep.Imported != 1 || len(rep.Failed) > 0 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	ents, _ := os.ReadDir(e.EpisodesDir(p.Key))
	if len(ents) != 1 {
		t.Fatalf("episodes of %s: %v", repo, ents)
	}
	data, err := os.ReadFile(filepath.Join(e.EpisodesDir(p.Key), ents[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	ep, err := episode.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Agent != "codex" || ep.SessionID != "01a217cc-26e4-7ce2-ba33-4e9e15be8a42" || ep.Turns != 1 || !strings.Contains(ep.Goal, "exponential backoff") {
		t.Fatalf("the episode: %+v", ep)
	}
	kinds := map[string]string{}
	for _, n := range ep.Digest.Notes {
		kinds[n.Kind] += n.Cmd + " " + n.Text + "\n"
	}
	if !strings.Contains(kinds[episode.NoteFailure], "make test-payments FAIL: TestWebhookBackoff") || !strings.Contains(kinds[episode.NoteFix], "make test-payments") ||
		!strings.Contains(kinds[episode.NoteAnswer], "capped at five minutes") {
		t.Fatalf("the digest: %v", kinds)
	}
	if strings.Contains(string(data), "INJECTED-NOT-SAID") || strings.Contains(string(data), "environment_context") || strings.Contains(string(data), "FUTURE-RECORD-TEXT") {
		t.Fatalf("the episode holds what the person never said:\n%s", data)
	}
	index, _ := os.ReadFile(e.IndexPath(p.Key))
	if !strings.Contains(string(index), "· in Codex · 1 turn ·") {
		t.Fatalf("the menu does not mark Codex's session:\n%s", index)
	}
	if ie, ok := session.ParseIndexLine(strings.TrimSpace(string(index))); !ok || ie.Agent != "codex" || ie.Turns != 1 {
		t.Fatalf("the menu line reads back as %+v", ie)
	}
	hits, err := search.Search(context.Background(), e, "webhook exponential backoff", search.Options{Scope: search.ScopeOf(&p, false), Limit: 3})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Path, ents[0].Name()) {
		t.Fatalf("search: %+v %v", hits, err)
	}
	// A hit says which agent ran the session (issue 50, finding 7).
	if h := search.WithAgents(hits)[0]; h.Agent != "Codex" {
		t.Errorf("the hit does not say Codex ran the session: %+v", h)
	}
	// Again: nothing new.
	if rep, err := importer.Import(context.Background(), e, importer.ImportOptions{}); err != nil || rep.Imported != 0 {
		t.Fatalf("a second import: %+v %v", rep, err)
	}
}

// TestStopInACodexSession: a Codex session's Stop hook names its rollout
// as the transcript: the turn is read as Codex's and recorded so.
func TestStopInACodexSession(t *testing.T) {
	e := storetest.Env(t)
	repo, _ := storetest.Repo(t, e, "shop")
	tr := filepath.Join(e.CodexDir, "sessions", "2026", "11", "20", "rollout-2026-11-20T10-00-00-01a217cc-26e4-7ce2-ba33-4e9e15be8a42.jsonl")
	storetest.Mkfile(t, tr, rollout(repo))
	c, err := session.Capture(context.Background(), e, session.CaptureRequest{Turn: session.Turn{SessionID: "01a217cc-26e4-7ce2-ba33-4e9e15be8a42", TranscriptPath: tr, Cwd: repo}})
	if err != nil || c.Agent != "codex" || c.Turns != 1 || !strings.Contains(c.Goal, "exponential backoff") {
		t.Fatalf("the turn: %v %+v", err, c)
	}
	if session.IsRollout(filepath.Join(e.ClaudeDir, "projects", "x", "rollout-1.jsonl")) {
		t.Fatal("a Claude Code transcript named rollout-… is not Codex's")
	}
}

// importedOne imports what the store's agents keep and returns the one
// episode of key, as its file holds it and decoded.
func importedOne(t *testing.T, e store.Env, key string) (string, episode.Record) {
	t.Helper()
	if rep, err := importer.Import(context.Background(), e, importer.ImportOptions{}); err != nil || rep.Imported != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	return onlyEpisode(t, e, key)
}

// onlyEpisode is the one episode of key.
func onlyEpisode(t *testing.T, e store.Env, key string) (string, episode.Record) {
	t.Helper()
	ents, _ := os.ReadDir(e.EpisodesDir(key))
	if len(ents) != 1 {
		t.Fatalf("episodes of %s: %v", key, ents)
	}
	data, _ := os.ReadFile(filepath.Join(e.EpisodesDir(key), ents[0].Name()))
	ep, err := episode.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), ep
}

// TestCodexPatchesAndAbortsAreRead (issue 50, findings 3 and 4): Codex's
// note that a turn was interrupted (a user-role <turn_aborted>, with or
// without content kinds) is not a prompt the person typed; the files an
// apply_patch call changes — its patch's Update, Add and Move lines — are
// the session's changed files, and a patch that failed changes none.
func TestCodexPatchesAndAbortsAreRead(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	line := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	n := 0
	at := func() string { n++; return fmt.Sprintf("2026-11-20T10:00:%02d.000Z", n) }
	user := func(kinds []string, text string) string {
		m := map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}}}
		if kinds != nil {
			m["internal_chat_message_metadata_passthrough"] = map[string]any{"content_item_kinds": kinds}
		}
		return line(map[string]any{"timestamp": at(), "type": "response_item", "payload": m})
	}
	patch := func(id, body string) string {
		return line(map[string]any{"timestamp": at(), "type": "response_item", "payload": map[string]any{"type": "custom_tool_call", "name": "apply_patch", "call_id": id, "input": body}})
	}
	out := func(id string, code int) string {
		o, _ := json.Marshal(map[string]any{"output": "Success. Updated the following files:", "metadata": map[string]any{"exit_code": code}})
		return line(map[string]any{"timestamp": at(), "type": "response_item", "payload": map[string]any{"type": "custom_tool_call_output", "call_id": id, "output": string(o)}})
	}
	lines := []string{
		line(map[string]any{"timestamp": at(), "type": "session_meta", "payload": map[string]any{"session_id": "01a217cc-26e4-7ce2-ba33-4e9e15be8a43", "cwd": repo, "cli_version": "0.121.0"}}),
		user([]string{"user.text"}, "rename the retry helper and add a test for it"),
		patch("p1", "*** Begin Patch\n*** Update File: internal/pay/retry.go\n@@\n-func retry()\n+func backoff()\n*** Add File: internal/pay/retry_test.go\n+package pay\n*** End Patch\n"),
		out("p1", 0),
		patch("p2", "*** Begin Patch\n*** Update File: internal/pay/missing.go\n@@\n-x\n+y\n*** End Patch\n"),
		out("p2", 1),
		user([]string{"user.text"}, "<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>"),
		user(nil, "<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"),
	}
	dir := filepath.Join(e.CodexDir, "sessions", "2026", "11", "20")
	storetest.Mkfile(t, filepath.Join(dir, "rollout-2026-11-20T10-00-00-01a217cc-26e4-7ce2-ba33-4e9e15be8a43.jsonl"), strings.Join(lines, "\n")+"\n")
	data, ep := importedOne(t, e, p.Key)
	if ep.Turns != 1 || strings.Contains(data, "turn_aborted") {
		t.Errorf("the interruption note was taken for a prompt: %d turns\n%s", ep.Turns, data)
	}
	if !slices.Equal(ep.FilesChanged, []string{"internal/pay/retry.go", "internal/pay/retry_test.go"}) {
		t.Errorf("files changed: %v, want the two the applied patch named (not the failed one's)", ep.FilesChanged)
	}
}

// TestCodexShellPatchesAreEdits (found on a real person's Codex sessions,
// docs/agents.md): a patch the model hands the shell tool — ["bash",
// "-lc", "apply_patch <<'PATCH' …"], or ["apply_patch", patch] — is run
// by Codex as its own apply_patch; the files it names are the session's
// changed files, not a shell command's text.
func TestCodexShellPatchesAreEdits(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	line := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	shell := func(id string, argv []string) string {
		args, _ := json.Marshal(map[string]any{"command": argv})
		return line(map[string]any{"timestamp": "2026-11-20T10:00:02.000Z", "type": "response_item", "payload": map[string]any{"type": "function_call", "name": "shell", "call_id": id, "arguments": string(args)}})
	}
	out := func(id string) string {
		o, _ := json.Marshal(map[string]any{"output": "Success. Updated the following files:\nM x\n", "metadata": map[string]any{"exit_code": 0}})
		return line(map[string]any{"timestamp": "2026-11-20T10:00:03.000Z", "type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": id, "output": string(o)}})
	}
	lines := []string{
		line(map[string]any{"timestamp": "2026-11-20T10:00:00.000Z", "type": "session_meta", "payload": map[string]any{"id": "01a217cc-26e4-7ce2-ba33-4e9e15be8a44", "cwd": repo, "cli_version": "0.46.0"}}),
		line(map[string]any{"timestamp": "2026-11-20T10:00:01.000Z", "type": "response_item", "payload": map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "wire the realtime listeners into the draw service"}}}}),
		shell("s1", []string{"bash", "-lc", "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: web/src/services/listeners.ts\n@@\n-a\n+b\n*** End Patch\nPATCH"}),
		out("s1"),
		shell("s2", []string{"apply_patch", "*** Begin Patch\n*** Add File: web/src/services/draw.ts\n+export {}\n*** End Patch\n"}),
		out("s2"),
		shell("s3", []string{"bash", "-lc", "grep -rn 'apply_patch' docs"}),
		out("s3"),
	}
	dir := filepath.Join(e.CodexDir, "sessions", "2026", "11", "20")
	storetest.Mkfile(t, filepath.Join(dir, "rollout-2026-11-20T10-00-00-01a217cc-26e4-7ce2-ba33-4e9e15be8a44.jsonl"), strings.Join(lines, "\n")+"\n")
	data, ep := importedOne(t, e, p.Key)
	if !slices.Equal(slices.Sorted(slices.Values(ep.FilesChanged)), []string{"web/src/services/draw.ts", "web/src/services/listeners.ts"}) {
		t.Errorf("files changed: %v, want the two files the shell-given patches name\n%s", ep.FilesChanged, data)
	}
	if strings.Contains(data, "*** Begin Patch") {
		t.Errorf("a patch's text was recorded as a command:\n%s", data)
	}
}

// TestCodexResumedRolloutCopiesAreNotTurns (found on a real person's
// Codex 0.36 sessions, docs/agents.md): resuming a session, that Codex
// began a new rollout with the earlier session's session_meta and a copy
// of its lines, written at once, before the new turns; the copied prompts
// are the earlier session's (its own rollout holds them), not turns of
// the new one.
func TestCodexResumedRolloutCopiesAreNotTurns(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	const old, resumed = "9cd28a74-da7e-4458-a91a-fffec2be9d7a", "613a9a68-8816-40b2-a2d4-041ade599da6"
	line := func(at string, typ string, payload map[string]any) string {
		b, _ := json.Marshal(map[string]any{"timestamp": at, "type": typ, "payload": payload})
		return string(b)
	}
	user := func(at, text string) []string {
		return []string{
			line(at, "response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}}}),
			line(at, "event_msg", map[string]any{"type": "user_message", "message": text}),
		}
	}
	answer := func(at, text string) string {
		return line(at, "response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}})
	}
	meta := func(at, id string) string {
		return line(at, "session_meta", map[string]any{"id": id, "timestamp": at, "cwd": repo, "cli_version": "0.36.0"})
	}
	var first []string
	first = append(first, meta("2025-09-16T04:47:48.362Z", old))
	first = append(first, user("2025-09-16T04:48:00.000Z", "check the design of the heron module")...)
	first = append(first, answer("2025-09-16T04:49:00.000Z", "The heron module is fine."))
	first = append(first, user("2025-09-16T04:50:00.000Z", "start implementing it")...)
	first = append(first, answer("2025-09-16T04:55:00.000Z", "Implemented."))
	var second []string
	second = append(second, meta("2025-09-16T06:12:31.257Z", resumed), meta("2025-09-16T06:12:37.389Z", old))
	second = append(second, user("2025-09-16T06:12:37.390Z", "check the design of the heron module")...)
	second = append(second, answer("2025-09-16T06:12:37.527Z", "The heron module is fine."))
	second = append(second, user("2025-09-16T06:12:37.536Z", "start implementing it")...)
	second = append(second, answer("2025-09-16T06:12:37.570Z", "Implemented."))
	second = append(second, user("2025-09-16T06:13:00.267Z", "now document the pelican flag")...)
	second = append(second, answer("2025-09-16T06:13:34.119Z", "Documented."))
	dir := filepath.Join(e.CodexDir, "sessions", "2025", "09", "16")
	storetest.Mkfile(t, filepath.Join(dir, "rollout-2025-09-16T12-47-48-"+old+".jsonl"), strings.Join(first, "\n")+"\n")
	storetest.Mkfile(t, filepath.Join(dir, "rollout-2025-09-16T14-12-31-"+resumed+".jsonl"), strings.Join(second, "\n")+"\n")
	if _, err := importer.Import(context.Background(), e, importer.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	turns := map[string]int{}
	texts := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(e.EpisodesDir(p.Key), "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := episode.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		turns[rec.SessionID], texts[rec.SessionID] = rec.Turns, string(data)
	}
	if turns[old] != 2 || turns[resumed] != 1 {
		t.Errorf("turns: earlier session %d (want 2), resumed one %d (want 1, its own)", turns[old], turns[resumed])
	}
	if strings.Contains(texts[resumed], "heron module") || !strings.Contains(texts[resumed], "pelican flag") {
		t.Errorf("the resumed session's record holds the earlier session's prompts, or lacks its own:\n%s", texts[resumed])
	}
}
