package importer_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/importer"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// jsonLines is one JSON value a line.
func jsonLines(vals ...any) string {
	var b strings.Builder
	for _, v := range vals {
		data, _ := json.Marshal(v)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestImportGeminiRecordings: Gemini CLI's recordings, in both of its
// documented shapes, become episodes of the right project: a .jsonl
// operation log (a message rewritten by id as its tool call finishes, a
// message taken back by $rewindTo, a $set patch, a record of an unknown
// shape and a torn last line) whose metadata names its folder, and an
// older whole .json whose folder ~/.gemini/projects.json names. Each is
// marked as Gemini CLI's, holds what was said and what failed, and is
// found by search.
func TestImportGeminiRecordings(t *testing.T) {
	e := storetest.Env(t)
	shop, p := storetest.Repo(t, e, "shop")
	blog, pb := storetest.Repo(t, e, "blog")
	call := func(status, result string) map[string]any {
		return map[string]any{"id": "m2", "timestamp": "2026-11-21T09:00:05Z", "type": "gemini", "model": "gemini-2.5-pro",
			"content": "I will run the migration check.",
			"toolCalls": []any{map[string]any{"id": "tc1", "name": "run_shell_command", "args": map[string]any{"command": "make migrate-check"},
				"status": status, "result": result}}}
	}
	log := jsonLines(
		map[string]any{"sessionId": "3f2a9c1e-7b4d-4e21-9a0f-1c2d3e4f5a6b", "projectHash": "x", "startTime": "2026-11-21T09:00:00Z", "directories": []string{shop}},
		map[string]any{"id": "m1", "timestamp": "2026-11-21T09:00:01Z", "type": "user", "content": "check the orders migration before we ship (walrus-kettle); the deploy token is ghp_0123456789abcdefghijABCDEFGHIJ012345"},
		call("executing", ""),
		call("error", "Error: migration 0042_orders is not reversible"),
		map[string]any{"id": "m3", "timestamp": "2026-11-21T09:00:09Z", "type": "user", "content": "TAKEN-BACK prompt"},
		map[string]any{"$rewindTo": "m3"},
		map[string]any{"$set": map[string]any{"summary": "orders migration"}},
		map[string]any{"id": "m4", "timestamp": "2026-11-21T09:00:12Z", "type": "gemini", "content": "Migration 0042_orders cannot be reversed; add a down step before shipping."},
		map[string]any{"kind": "something-newer", "payload": "FUTURE-SHAPE"},
	) + `{"id":"m5","type":"gem`
	chats := filepath.Join(e.GeminiDir, "tmp", "a1b2c3", "chats")
	storetest.Mkfile(t, filepath.Join(chats, "session-2026-11-21T09-00-3f2a9c1e.jsonl"), log)
	old, _ := json.Marshal(map[string]any{"sessionId": "9d8c7b6a-0000-4000-8000-000000000001", "startTime": "2026-11-20T08:00:00Z", "projectHash": "blogslug",
		"messages": []any{
			map[string]any{"id": "u1", "timestamp": "2026-11-20T08:00:01Z", "type": "user", "content": []any{map[string]any{"text": "draft the post about otter-lanterns"}}},
			map[string]any{"id": "g1", "timestamp": "2026-11-20T08:00:04Z", "type": "gemini", "content": "Drafted posts/otter-lanterns.md."},
			map[string]any{"id": "i1", "timestamp": "2026-11-20T08:00:05Z", "type": "info", "content": "CLIENT-NOTICE"},
		}})
	storetest.Mkfile(t, filepath.Join(e.GeminiDir, "tmp", "blogslug", "chats", "session-2026-11-20T08-00-9d8c7b6a.json"), string(old))
	storetest.Mkfile(t, filepath.Join(e.GeminiDir, "projects.json"), `{"projects": {"`+blog+`": "blogslug"}}`)

	rep, err := importer.Import(context.Background(), e, importer.ImportOptions{})
	if err != nil || rep.Imported != 2 || len(rep.Failed) > 0 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	check := func(key string, want, not []string) {
		t.Helper()
		data, ep := onlyEpisode(t, e, key)
		if ep.Agent != "gemini" || ep.Turns != 1 {
			t.Fatalf("the episode: %+v", ep)
		}
		for _, w := range want {
			if !strings.Contains(data, w) {
				t.Errorf("%s's episode lacks %q:\n%s", key, w, data)
			}
		}
		for _, n := range not {
			if strings.Contains(data, n) {
				t.Errorf("%s's episode holds %q:\n%s", key, n, data)
			}
		}
		index, _ := os.ReadFile(e.IndexPath(key))
		if !strings.Contains(string(index), "· in Gemini CLI ·") {
			t.Errorf("the menu does not mark Gemini CLI's session:\n%s", index)
		}
	}
	check(p.Key, []string{"walrus-kettle", "make migrate-check", "not reversible", "add a down step"}, []string{"TAKEN-BACK", "FUTURE-SHAPE", "ghp_0123456789"})
	check(pb.Key, []string{"otter-lanterns", "Drafted posts/otter-lanterns.md"}, []string{"CLIENT-NOTICE"})
	for q, pr := range map[string]store.Project{"walrus-kettle migration": p, "otter-lanterns": pb} {
		hits, err := search.Search(context.Background(), e, q, search.Options{Scope: search.ScopeOf(&pr, false), Limit: 3})
		if err != nil || len(hits) == 0 {
			t.Errorf("search %q: %v %v", q, hits, err)
		}
	}
	if rep, err := importer.Import(context.Background(), e, importer.ImportOptions{}); err != nil || rep.Imported != 0 {
		t.Fatalf("a second import: %+v %v", rep, err)
	}
}

// TestGeminiProjectRootFile (issue 50, finding 1): the current Gemini CLI
// keeps a project's folder in ~/.gemini/tmp/<slug>/.project_root and may
// leave projects.json empty and the recording without directories: the
// session is still one of that folder's, not dropped.
func TestGeminiProjectRootFile(t *testing.T) {
	e := storetest.Env(t)
	shop, p := storetest.Repo(t, e, "shop")
	log := jsonLines(
		map[string]any{"sessionId": "5e6f7a8b-0000-4000-8000-000000000002", "projectHash": "not-a-hash-ccmem-knows", "startTime": "2026-11-22T09:00:00Z", "kind": "main"},
		map[string]any{"id": "m1", "timestamp": "2026-11-22T09:00:01Z", "type": "user", "content": "teach the exporter about quokka-ledgers"},
		map[string]any{"id": "m2", "timestamp": "2026-11-22T09:00:04Z", "type": "gemini", "content": "The exporter now writes quokka-ledgers."},
	)
	slug := filepath.Join(e.GeminiDir, "tmp", "shop")
	storetest.Mkfile(t, filepath.Join(slug, "chats", "session-2026-11-22T09-00-5e6f7a8b.jsonl"), log)
	storetest.Mkfile(t, filepath.Join(slug, ".project_root"), shop+"\n")
	storetest.Mkfile(t, filepath.Join(e.GeminiDir, "projects.json"), `{"projects": {}}`)
	rep, err := importer.Import(context.Background(), e, importer.ImportOptions{})
	if err != nil || rep.Imported != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	if ents, _ := os.ReadDir(e.EpisodesDir(p.Key)); len(ents) != 1 {
		t.Fatalf("the session is not %s's: %v", shop, ents)
	}
}

// TestDroppedSessionsSayWhy (issue 50, finding 2): an import counts the
// sessions it leaves out by agent and cause — a recording whose folder
// nothing names, one whose folder is another system's — not all as
// "without a turn".
func TestDroppedSessionsSayWhy(t *testing.T) {
	e := storetest.Env(t)
	other := `C:\Users\ana\src\shop`
	if filepath.IsAbs(other) {
		other = "/home/ana/src/shop" // on Windows, a Unix folder is the other system's
	}
	rec := func(sid string, dirs []string) string {
		return jsonLines(
			map[string]any{"sessionId": sid, "projectHash": "unknown-hash", "startTime": "2026-11-22T09:00:00Z", "directories": dirs},
			map[string]any{"id": "m1", "timestamp": "2026-11-22T09:00:01Z", "type": "user", "content": "hello there, list the files"},
		)
	}
	storetest.Mkfile(t, filepath.Join(e.GeminiDir, "tmp", "lost", "chats", "session-2026-11-22T09-00-aaaaaaaa.jsonl"), rec("aaaaaaaa-0000-4000-8000-000000000001", nil))
	storetest.Mkfile(t, filepath.Join(e.GeminiDir, "tmp", "win", "chats", "session-2026-11-22T09-00-bbbbbbbb.jsonl"), rec("bbbbbbbb-0000-4000-8000-000000000002", []string{other}))
	rep, err := importer.Import(context.Background(), e, importer.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{importer.DropNoFolder: 1, importer.DropOtherSystem: 1}
	for _, d := range rep.Dropped {
		if d.Agent != "Gemini CLI" || want[d.Cause] != d.N {
			t.Errorf("dropped: %+v", d)
		}
		delete(want, d.Cause)
	}
	if len(want) > 0 || rep.Empty != 2 {
		t.Errorf("not said: %v (dropped %+v, empty %d)", want, rep.Dropped, rep.Empty)
	}
}

// TestGeminiInjectedIsNotTyped (issue 50, finding 6): what the client or a
// hook put in a user message is not what the person typed — the
// <session_context> block, a <hook_context> prefix, the contents of the
// files an @file reference pulled in — nor is a hook's context appended
// to a tool's output.
func TestGeminiInjectedIsNotTyped(t *testing.T) {
	e := storetest.Env(t)
	shop, p := storetest.Repo(t, e, "shop")
	parts := func(texts ...string) []any {
		var out []any
		for _, s := range texts {
			out = append(out, map[string]any{"text": s})
		}
		return out
	}
	log := jsonLines(
		map[string]any{"sessionId": "6a7b8c9d-0000-4000-8000-000000000003", "projectHash": "h", "startTime": "2026-11-22T09:00:00Z", "directories": []string{shop}},
		map[string]any{"id": "c0", "timestamp": "2026-11-22T09:00:00Z", "type": "user", "content": parts("<session_context>\nThis is the Gemini CLI. CLI-BOILERPLATE\n</session_context>")},
		map[string]any{"id": "m1", "timestamp": "2026-11-22T09:00:01Z", "type": "user",
			"content": parts("<hook_context>HOOK-INJECTED memory</hook_context>\n\nexplain @docs/pelican.md to me\n--- Content from referenced files ---\nFILE-CONTENTS of pelican\n--- End of content ---")},
		map[string]any{"id": "m2", "timestamp": "2026-11-22T09:00:04Z", "type": "gemini", "content": "The pelican doc describes the export.",
			"toolCalls": []any{map[string]any{"id": "tc1", "name": "run_shell_command", "args": map[string]any{"command": "ls docs"}, "status": "success",
				"result": []any{map[string]any{"functionResponse": map[string]any{"response": map[string]any{"output": "pelican.md\n\n<hook_context>TOOL-HOOK-CONTEXT</hook_context>"}}}}}}},
		map[string]any{"id": "m3", "timestamp": "2026-11-22T09:00:08Z", "type": "user", "content": parts("<hook_context>AGAIN</hook_context>\n\nthanks, now the heron section"),
			"displayContent": parts("thanks, now the heron section")},
	)
	storetest.Mkfile(t, filepath.Join(e.GeminiDir, "tmp", "shop", "chats", "session-2026-11-22T09-00-6a7b8c9d.jsonl"), log)
	data, ep := importedOne(t, e, p.Key)
	for _, not := range []string{"CLI-BOILERPLATE", "session_context", "HOOK-INJECTED", "FILE-CONTENTS", "TOOL-HOOK-CONTEXT", "AGAIN"} {
		if strings.Contains(data, not) {
			t.Errorf("the episode holds %q, which the person did not type:\n%s", not, data)
		}
	}
	if ep.Turns != 2 || !strings.Contains(ep.Goal, "explain @docs/pelican.md") || !strings.Contains(data, "now the heron section") {
		t.Errorf("the typed prompts: %d turns, goal %q\n%s", ep.Turns, ep.Goal, data)
	}
}

// TestAnotherSystemsFoldersAreSaid (issue 50, finding 8): a session whose
// folder is another system's (C:\… here, /home/… on Windows), in each
// agent's record, is left out and counted as such — never filed under a
// project made of a path this OS cannot have.
func TestAnotherSystemsFoldersAreSaid(t *testing.T) {
	e := storetest.Env(t)
	other := `C:\Users\ana\src\shop`
	if filepath.IsAbs(other) {
		other = "/home/ana/src/shop"
	}
	// Claude Code's transcript, Codex's rollout.
	storetest.Mkfile(t, filepath.Join(e.SilosDir(), "C--Users-ana-src-shop", "7d0e5b1a-0000-4000-8000-000000000001.jsonl"), jsonLines(
		map[string]any{"type": "user", "cwd": other, "sessionId": "7d0e5b1a-0000-4000-8000-000000000001", "timestamp": "2026-11-20T10:00:00Z", "message": map[string]any{"role": "user", "content": "fix the walrus export"}},
		map[string]any{"type": "assistant", "cwd": other, "sessionId": "7d0e5b1a-0000-4000-8000-000000000001", "timestamp": "2026-11-20T10:00:05Z", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Fixed."}}}},
	))
	storetest.Mkfile(t, filepath.Join(e.CodexDir, "sessions", "2026", "11", "20", "rollout-2026-11-20T10-00-00-01a217cc-26e4-7ce2-ba33-4e9e15be8a44.jsonl"), jsonLines(
		map[string]any{"timestamp": "2026-11-20T10:00:00.000Z", "type": "session_meta", "payload": map[string]any{"session_id": "01a217cc-26e4-7ce2-ba33-4e9e15be8a44", "cwd": other, "cli_version": "0.121.0"}},
		map[string]any{"timestamp": "2026-11-20T10:00:01.000Z", "type": "response_item", "payload": map[string]any{"type": "message", "role": "user",
			"content": []any{map[string]any{"type": "input_text", "text": "fix the walrus export"}}, "internal_chat_message_metadata_passthrough": map[string]any{"content_item_kinds": []string{"user.text"}}}},
	))
	rep, err := importer.Import(context.Background(), e, importer.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, d := range rep.Dropped {
		got[d.Agent+": "+d.Cause] += d.N
	}
	for _, want := range []string{"Claude Code: " + importer.DropOtherSystem, "Codex: " + importer.DropOtherSystem} {
		if got[want] != 1 {
			t.Errorf("not said: %q (dropped %+v)", want, rep.Dropped)
		}
	}
	if rep.Imported != 0 {
		t.Errorf("imported %d sessions of another system's folders", rep.Imported)
	}
	if ents, _ := os.ReadDir(e.ProjectsDir()); len(ents) != 0 {
		t.Errorf("projects made of another system's folders: %v", ents)
	}
}
