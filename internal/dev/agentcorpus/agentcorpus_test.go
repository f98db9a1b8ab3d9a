package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMeasureCountsWhatTheFilesHold builds a repository holding a
// person's Codex and Gemini CLI folders — credentials, a token in a
// prompt, a patch given to the shell, a Gemini command that is no turn, a
// write that failed — lays each out and measures it: only the session
// files and the prompt logs arrive, the token redacted; the counts are the
// raw files' (sessions, typed prompts, files edited, folders), and the
// import matches them.
func TestMeasureCountsWhatTheFilesHold(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: the corpus is read from a repository's snapshot")
	}
	repo := t.TempDir()
	token := "ghp_" + strings.Repeat("a1B2c3D4e5", 4)
	const sid = "019a5bbf-7e53-78a2-aef2-baed586b0f37"
	rollout := strings.Join([]string{
		`{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"` + sid + `","cwd":"/home/dev/shop","cli_version":"0.46.0"}}`,
		`{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"add the listener; my token is ` + token + `"}]}}`,
		`{"timestamp":"2026-01-01T00:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"add the listener; my token is ` + token + `"}}`,
		`{"timestamp":"2026-01-01T00:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"c1","arguments":"{\"command\":[\"bash\",\"-lc\",\"apply_patch <<'P'\\n*** Begin Patch\\n*** Update File: web/listen.ts\\n@@\\n-a\\n+b\\n*** End Patch\\nP\"]}"}}`,
		`{"timestamp":"2026-01-01T00:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"Success.\",\"metadata\":{\"exit_code\":0}}"}}`,
		`{"timestamp":"2026-01-01T00:00:04.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"now the test"}]}}`,
		`{"timestamp":"2026-01-01T00:00:04.000Z","type":"event_msg","payload":{"type":"user_message","message":"now the test"}}`,
	}, "\n") + "\n"
	const gid = "9dc5818b-fa07-4525-bba2-805c2fb01669"
	chat := strings.Join([]string{
		`{"sessionId":"` + gid + `","projectHash":"ab","startTime":"2026-01-02T00:00:00.000Z","lastUpdated":"2026-01-02T00:10:00.000Z","kind":"main"}`,
		`{"id":"m1","timestamp":"2026-01-02T00:00:01.000Z","type":"user","content":[{"text":"write the plan"}]}`,
		`{"id":"m2","timestamp":"2026-01-02T00:00:02.000Z","type":"gemini","content":"ok","toolCalls":[{"id":"t1","name":"write_file","args":{"file_path":"/home/dev/app/plan.md","content":"x"},"status":"success"},{"id":"t2","name":"write_file","args":{"file_path":"rel.md","content":"x"},"status":"error"}]}`,
	}, "\n") + "\n"
	files := map[string]string{
		".codex/history.jsonl": `{"session_id":"` + sid + `","ts":1767225600,"text":"add the listener; my token is ` + token + `"}` + "\n" +
			`{"session_id":"` + sid + `","ts":1767225604,"text":"now the test"}` + "\n" +
			`{"session_id":"01999999-0000-0000-0000-000000000000","ts":1767225700,"text":"a session not here"}` + "\n",
		".codex/sessions/2026/01/01/rollout-2026-01-01T00-00-00-" + sid + ".jsonl": rollout,
		".codex/auth.json":              `{"OPENAI_API_KEY":"` + token + `"}`,
		".gemini/tmp/app/.project_root": "/home/dev/app\n",
		".gemini/tmp/app/chats/session-2026-01-02T00-00-9dc5818b.jsonl": chat,
		".gemini/tmp/app/logs.json": `[{"sessionId":"` + gid + `","messageId":0,"type":"user","message":"write the plan","timestamp":"2026-01-02T00:00:01.000Z"},` +
			`{"sessionId":"` + gid + `","messageId":1,"type":"user","message":"/quit","timestamp":"2026-01-02T00:09:00.000Z"}]`,
		".gemini/oauth_creds.json": `{"access_token":"` + token + `"}`,
	}
	for name, body := range files {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "home")
	commit := git("rev-parse", "HEAD")
	dir := t.TempDir()
	for _, tt := range []struct {
		src  Source
		want Figures
	}{
		{Source{ID: "c9", Agent: "codex", Repo: "someone/dotfiles", Commit: commit, Prefix: ".codex/"},
			Figures{Files: 1, Expected: 1, Found: 1, Typed: 2, Messages: 2, Kept: 2, Edited: 1, Changed: 1, Projects: 1, Right: 1}},
		{Source{ID: "g9", Agent: "gemini", Repo: "someone/dotfiles", Commit: commit, Prefix: ".gemini/"},
			Figures{Files: 2, Expected: 1, Found: 1, Typed: 2, Slash: 1, Messages: 1, Kept: 1, Edited: 1, Changed: 1, Projects: 1, Right: 1}},
	} {
		l, err := lay(filepath.Join(repo, ".git"), dir, tt.src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := measure(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		tt.want.ID, tt.want.Agent, tt.want.Repo, tt.want.Commit, tt.want.Logged = got.ID, got.Agent, got.Repo, got.Commit, true
		got.Redacted, got.Diffs, got.Dropped = 0, nil, nil
		if got.String() != tt.want.String() {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.src.ID, got, tt.want)
		}
	}
	// Only session files and prompt logs arrive, and no token.
	err := filepath.Walk(filepath.Join(dir, "c9", "home"), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		if strings.HasSuffix(p, "auth.json") {
			t.Errorf("credentials laid out: %s", p)
		}
		if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(token)) {
			t.Errorf("%s holds the token", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "g9", "home", ".gemini", "oauth_creds.json")); err == nil {
		t.Error("Gemini CLI's credentials laid out")
	}
}
