package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/store"
)

// TestMCPStaysInItsProject: from a session in project A, the model cannot
// reach project B's private memory through MCP — search with all_projects
// is refused, get of B's INDEX.md, of B's session and of B's learned
// project entry is refused, though their paths are known (the store's
// folders are named after project paths) — while A's own, the memory of
// every project and A's repository memory read. With mcp.other_projects
// on in the global config (and only there: a repository's config cannot
// turn it on), both reach B.
func TestMCPStaysInItsProject(t *testing.T) {
	home, _, episodeB := passageWorld(t) // project "shop" is B
	e, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	keyB := filepath.Base(filepath.Dir(filepath.Dir(episodeB)))
	rootB := filepath.Join(home, "src", "shop")
	indexB := filepath.Join(e.ProjectDir(keyB), "INDEX.md")
	learnedB := filepath.Join(e.LearnedDir(), "project", "shop-deploys.md")
	mk := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(indexB, "- 2026-10-02 09:00 · 4 turns · OK · \"refactor the checkout\" — episodes/20261002T090000Z-s1.json\n")
	mk(learnedB, "---\nname: shop-deploys\ndescription: how shop deploys\ntype: project\nsource_cwd: "+rootB+"\n---\nshop deploys with the staging password rotating Mondays\n")
	mk(e.GlobalMemory(), "## Me\n- terse answers\n")
	repoA := filepath.Join(home, "src", "api")
	mk(filepath.Join(repoA, ".git", "HEAD"), "ref: refs/heads/main\n")
	mk(store.RepoMemory(repoA), "## API\n- the api listens on 8080\n")
	// A hostile repository A tries to turn the switch on for itself.
	mk(store.RepoConfig(repoA), "mcp:\n  other_projects: true\n")
	pA, err := store.ResolveProject(e, repoA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.ClaimProject(e, pA); err != nil {
		t.Fatal(err)
	}
	mk(filepath.Join(e.EpisodesDir(pA.Key), "20261003T090000Z-a1.json"), `{"session_id":"a1","title":"api work","goal":"api work","turns":1,"started_at":"2026-10-03T09:00:00Z","digest":{"notes":[{"turn":1,"kind":"prompt","text":"the api staging password moved to vault"}]}}`)

	t.Chdir(repoA)
	call := func(tool int, args string) (string, error) {
		c := &command.Ctx{Context: context.Background(), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Env: e}
		return mcpServer(c).Tools[tool].Call(context.Background(), json.RawMessage(args))
	}
	const search, get = 0, 1
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }

	if _, err := call(search, `{"query":"staging password","all_projects":true}`); err == nil || !strings.Contains(err.Error(), "mcp.other_projects") {
		t.Fatalf("search with all_projects: %v, want a refusal naming the switch", err)
	}
	out, err := call(search, `{"query":"staging password"}`)
	if err != nil || !strings.Contains(out, "a1.json") || strings.Contains(out, "s1.json") || strings.Contains(out, "shop-deploys") {
		t.Fatalf("search in A: %v\n%s", err, out)
	}
	for _, path := range []string{indexB, episodeB, episodeB + " (turn 3)", learnedB, store.RepoMemory(rootB)} {
		if text, err := call(get, `{"path":`+quote(path)+`}`); err == nil || strings.Contains(text, "password") {
			t.Errorf("get %s from A: %q, %v; want a refusal", path, text, err)
		}
	}
	for path, want := range map[string]string{
		e.GlobalMemory():        "terse answers",
		store.RepoMemory(repoA): "8080",
		filepath.Join(e.EpisodesDir(pA.Key), "20261003T090000Z-a1.json"): "vault",
	} {
		if text, err := call(get, `{"path":`+quote(path)+`}`); err != nil || !strings.Contains(text, want) {
			t.Errorf("get %s from A: %q, %v", path, text, err)
		}
	}

	// The person turns it on, in the global config.
	mk(e.GlobalConfig(), "mcp:\n  other_projects: true\n")
	if out, err := call(search, `{"query":"staging password","all_projects":true}`); err != nil || !strings.Contains(out, "s1.json") {
		t.Fatalf("search with all_projects, switched on: %v\n%s", err, out)
	}
	if text, err := call(get, `{"path":`+quote(episodeB)+`,"turn":3}`); err != nil || !strings.Contains(text, "password") {
		t.Fatalf("get of B's session, switched on: %q, %v", text, err)
	}
}
