package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The other agents' sessions, imported: 300 of each of Codex CLI's
// rollouts, Gemini CLI's recordings, opencode's JSON storage and
// opencode's SQLite store (written by the real SQLite, the sqlite3
// command), each with prompts, replies and shell calls, into one project;
// timed whole, with the sessions and megabytes per second. Target: within
// 15 s, as a year of Claude Code's sessions.

const agentSessions = 300

// generateAgents writes the three stores under home, for the project at repo.
func generateAgents(home, repo string) (bytes int64, err error) {
	r := rand.New(rand.NewSource(11))
	z := newZipf(r)
	write := func(path string, data []byte) {
		if err != nil {
			return
		}
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			err = os.WriteFile(path, data, 0o644)
			bytes += int64(len(data))
		}
	}
	line := func(v any) string { b, _ := json.Marshal(v); return string(b) + "\n" }
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var sql strings.Builder
	sql.WriteString(`PRAGMA journal_mode=WAL;
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
BEGIN;
`)
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	for s := range agentSessions {
		start := at.Add(time.Duration(s) * 7 * time.Hour)
		id := fmt.Sprintf("01a2%04x-26e4-7ce2-ba33-4e9e15be%04x", s, s)
		// Codex
		var b strings.Builder
		b.WriteString(line(map[string]any{"timestamp": start.Format(time.RFC3339), "type": "session_meta", "payload": map[string]any{"session_id": id, "cwd": repo, "cli_version": "0.169.0"}}))
		for t := range 4 {
			ts := start.Add(time.Duration(t) * time.Minute).Format(time.RFC3339)
			b.WriteString(line(map[string]any{"timestamp": ts, "type": "response_item", "payload": map[string]any{"type": "message", "role": "user",
				"content": []any{map[string]any{"type": "input_text", "text": z.sentence(12 + r.Intn(20))}}, "internal_chat_message_metadata_passthrough": map[string]any{"content_item_kinds": []string{"user.text"}}}}))
			b.WriteString(line(map[string]any{"timestamp": ts, "type": "response_item", "payload": map[string]any{"type": "function_call", "name": "exec_command", "call_id": fmt.Sprint("c", t), "arguments": `{"cmd": "make test"}`}}))
			b.WriteString(line(map[string]any{"timestamp": ts, "type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": fmt.Sprint("c", t), "output": "Process exited with code 0\nOutput:\n" + z.sentence(40)}}))
			b.WriteString(line(map[string]any{"timestamp": ts, "type": "response_item", "payload": map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": z.sentence(40 + r.Intn(60))}}}}))
		}
		write(filepath.Join(home, ".codex", "sessions", start.Format("2006/01/02"), "rollout-"+start.Format("2006-01-02T15-04-05")+"-"+id+".jsonl"), []byte(b.String()))
		// Gemini CLI
		b.Reset()
		b.WriteString(line(map[string]any{"sessionId": id, "startTime": start.Format(time.RFC3339), "directories": []string{repo}}))
		for t := range 4 {
			ts := start.Add(time.Duration(t) * time.Minute).Format(time.RFC3339)
			b.WriteString(line(map[string]any{"id": fmt.Sprint("u", t), "timestamp": ts, "type": "user", "content": z.sentence(12 + r.Intn(20))}))
			b.WriteString(line(map[string]any{"id": fmt.Sprint("g", t), "timestamp": ts, "type": "gemini", "content": z.sentence(40 + r.Intn(60)),
				"toolCalls": []any{map[string]any{"id": fmt.Sprint("t", t), "name": "run_shell_command", "args": map[string]any{"command": "make test"}, "status": "success", "result": z.sentence(30)}}}))
		}
		write(filepath.Join(home, ".gemini", "tmp", "atlas", "chats", fmt.Sprintf("session-%s-%08x.jsonl", start.Format("2006-01-02T15-04"), s)), []byte(b.String()))
		// opencode
		sid := fmt.Sprintf("ses_%06d", s)
		st := filepath.Join(home, ".local", "share", "opencode", "storage")
		write(filepath.Join(st, "session", "p1", sid+".json"), []byte(line(map[string]any{"id": sid, "directory": repo, "time": map[string]any{"created": start.UnixMilli()}})))
		for t := range 4 {
			for k, role := range []string{"user", "assistant"} {
				mid := fmt.Sprintf("msg_%06d_%d_%d", s, t, k)
				write(filepath.Join(st, "message", sid, mid+".json"), []byte(line(map[string]any{"id": mid, "role": role, "time": map[string]any{"created": start.Add(time.Duration(2*t+k) * time.Minute).UnixMilli()}})))
				write(filepath.Join(st, "part", mid, "prt_1.json"), []byte(line(map[string]any{"id": "prt_1", "type": "text", "text": z.sentence(20 + r.Intn(40))})))
			}
		}
		// opencode's SQLite store
		sid = fmt.Sprintf("ses_db%06d", s)
		fmt.Fprintf(&sql, "INSERT INTO session VALUES (%s, 'p1', NULL, 's', %s, 't', '1', %d, %d);\n", q(sid), q(repo), start.UnixMilli(), start.Add(time.Hour).UnixMilli())
		for t := range 4 {
			for k, role := range []string{"user", "assistant"} {
				mid := fmt.Sprintf("msg_db%06d_%d_%d", s, t, k)
				ms := start.Add(time.Duration(2*t+k) * time.Minute).UnixMilli()
				m := line(map[string]any{"role": role, "time": map[string]any{"created": ms}})
				p := line(map[string]any{"type": "text", "text": z.sentence(20 + r.Intn(40))})
				fmt.Fprintf(&sql, "INSERT INTO message VALUES (%s, %s, %d, %d, %s);\n", q(mid), q(sid), ms, ms, q(strings.TrimSpace(m)))
				fmt.Fprintf(&sql, "INSERT INTO part VALUES (%s, %s, %s, %d, %d, %s);\n", q("prt_"+mid), q(mid), q(sid), ms, ms, q(strings.TrimSpace(p)))
				bytes += int64(len(m) + len(p))
			}
		}
	}
	if err != nil {
		return bytes, err
	}
	sql.WriteString("COMMIT;\n")
	if _, lerr := exec.LookPath("sqlite3"); lerr != nil {
		return bytes, fmt.Errorf("sqlite3 not found: the row writes opencode's store with the real SQLite (install it: bash scripts/install-test-tools.sh sqlite3)")
	}
	cmd := exec.Command("sqlite3", "-bail", filepath.Join(home, ".local", "share", "opencode", "opencode.db"))
	cmd.Stdin = strings.NewReader(sql.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return bytes, fmt.Errorf("sqlite3: %v: %s", err, out)
	}
	return bytes, nil
}

// agentsRow imports the three agents' sessions and prints the row; it
// says whether the target held.
func agentsRow(o options, dir string) (bool, error) {
	home, repo := filepath.Join(dir, "home"), filepath.Join(dir, "src", "atlas")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		return false, err
	}
	size, err := generateAgents(home, repo)
	if err != nil {
		return false, err
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CLAUDE_PID=4194305"}
	t, out, err := runTimed(o.ccm, []string{"import", "--json"}, env, repo, "")
	if err != nil {
		return false, err
	}
	var rep struct {
		Imported int `json:"imported"`
	}
	_ = json.Unmarshal([]byte(out), &rep)
	pass := t.wall <= 15*time.Second && rep.Imported == 4*agentSessions
	verdict := "MISS"
	if pass {
		verdict = "PASS"
	}
	secs := t.wall.Seconds()
	fmt.Printf("\nother agents' sessions: %d Codex rollouts, %d Gemini CLI recordings, %d opencode sessions in its JSON storage and %d in its SQLite store (%.1f MB), one project\n",
		agentSessions, agentSessions, agentSessions, agentSessions, float64(size)/(1<<20))
	fmt.Printf("  ccmem import   %d imported in %.1f s wall, %.1f s CPU: %.0f sessions/s, %.1f MB/s   ≤ 15 s  %s\n",
		rep.Imported, secs, t.cpu.Seconds(), float64(rep.Imported)/secs, float64(size)/(1<<20)/secs, verdict)
	return pass, nil
}
