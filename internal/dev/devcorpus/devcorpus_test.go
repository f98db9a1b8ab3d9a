package devcorpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLabelsParse holds labels.tsv to its format: every line parses, no
// prompt is labelled twice, every source has labels in both kinds.
func TestLabelsParse(t *testing.T) {
	labels, err := ReadLabels()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]map[string]int{}
	for _, l := range labels {
		src, _, _ := strings.Cut(l.ID, ":")
		if kinds[src] == nil {
			kinds[src] = map[string]int{}
		}
		kinds[src][l.Kind]++
		if len(l.Hash) != 10 {
			t.Errorf("%s: hash %q is not 10 hex digits", l.ID, l.Hash)
		}
	}
	for _, s := range Sources {
		if s.ID == "2" {
			continue // one prompt only: that person's sessions were mostly elsewhere
		}
		if kinds[s.ID][KindTalk] == 0 || kinds[s.ID][KindTask] == 0 {
			t.Errorf("source %s: %v, want both kinds", s.ID, kinds[s.ID])
		}
	}
	if _, err := parseLabels("1:2\tabc\tchat\t-\n"); err == nil {
		t.Error("an unknown kind parsed")
	}
	if _, err := parseLabels("1:2\tabcdefabcd\ttalk\tdeadbeef\n"); err == nil {
		t.Error("small talk with related sessions parsed")
	}
}

func TestRelation(t *testing.T) {
	l := Label{Related: []string{"0b24b7d6"}, Partly: []string{"ffbb8ee7"}}
	for sid, want := range map[string]relation{
		"0b24b7d6-1111-2222-3333-444455556666": related,
		"ffbb8ee7-1111-2222-3333-444455556666": partly,
		"0b24b7d7-1111-2222-3333-444455556666": unrelated,
	} {
		if got := l.relation(sid); got != want {
			t.Errorf("relation(%s) = %v, want %v", sid, got, want)
		}
	}
}

func TestLangOf(t *testing.T) {
	for s, want := range map[string]string{
		"先读取 /Users/me/demo/learn-in-project/nav-analysis.md 文件": "zh",
		"web/package 187 该项目next版本是多少":                           "zh",
		"why is the headroom so small?":                          "en",
		"ユーザー設定の保存先を確認して":                                        "ja",
		"": "en",
	} {
		if got := LangOf(s); got != want {
			t.Errorf("LangOf(%q) = %s, want %s", s, got, want)
		}
	}
}

// TestLayCopiesOnlyWhatItMay builds a repository holding a person's
// Claude Code folder — credentials, settings, a transcript with a token
// in it — and lays it out: only history.jsonl and the transcripts arrive,
// every secret redacted, working directories moved under roots/.
func TestLayCopiesOnlyWhatItMay(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: the corpus is read from a repository's snapshot")
	}
	repo := t.TempDir()
	token := "ghp_" + strings.Repeat("a1B2c3D4e5", 4)
	files := map[string]string{
		".claude/history.jsonl": `{"display":"fix the invoice exporter","timestamp":1767225600000,"project":"/home/dev/shop"}` + "\n" +
			`{"display":"my token is ` + token + `","timestamp":1767225660000,"project":"/home/dev/shop"}` + "\n",
		".claude/projects/-home-dev-shop/11111111-2222-3333-4444-555555555555.jsonl": `{"type":"user","cwd":"/home/dev/shop","timestamp":"2026-01-01T00:00:00Z","message":{"content":"deploy with ` + token + `"}}` + "\n" +
			`{"type":"assistant","cwd":"/home/dev/shop","timestamp":"2026-01-01T00:05:00Z","message":{"content":[{"type":"text","text":"done"}]}}` + "\n" +
			`{"type":"user","cwd":"/home/dev/sh` + "\n", // torn
		".claude/projects/-home-dev-shop/memory/MEMORY.md": "- a memory file\n",
		".claude/.credentials.json":                        `{"token":"` + token + `"}`,
		".claude/settings.json":                            `{}`,
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
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "home")
	commit := git("rev-parse", "HEAD")
	src := Source{ID: "9", Repo: "someone/dotfiles", Commit: commit, Prefix: ".claude/", Lang: "en", Split: Dev}
	out := t.TempDir()
	rep, err := Lay(filepath.Join(repo, ".git"), out, src)
	if err != nil {
		t.Fatal(err)
	}
	if rep.History != 2 || rep.Sessions != 1 || rep.Redacted < 2 {
		t.Errorf("report %+v: want 2 prompts, 1 session, the token redacted twice or more", rep)
	}
	var got []string
	filepath.Walk(filepath.Join(out, "9"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(filepath.Join(out, "9"), p)
			got = append(got, filepath.ToSlash(rel))
			data, _ := os.ReadFile(p)
			if strings.Contains(string(data), token) {
				t.Errorf("%s holds the token", rel)
			}
		}
		return nil
	})
	want := map[string]bool{"LAID": true, "prompts.tsv": true, "sessions.tsv": true, "claude/history.jsonl": true,
		"claude/projects/-home-dev-shop/11111111-2222-3333-4444-555555555555.jsonl": true}
	for _, g := range got {
		if !want[g] {
			t.Errorf("laid out %s, which the corpus may not take", g)
		}
		delete(want, g)
	}
	for w := range want {
		t.Errorf("%s missing", w)
	}
	l, err := Load(out, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Prompts) != 2 || len(l.Sessions) != 1 {
		t.Fatalf("loaded %d prompts, %d sessions", len(l.Prompts), len(l.Sessions))
	}
	root := filepath.Join(out, "9", "roots", "home", "dev", "shop")
	if l.Prompts[0].Project != root || l.Sessions[0].Cwd != root {
		t.Errorf("project %s, session cwd %s, want both %s", l.Prompts[0].Project, l.Sessions[0].Cwd, root)
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		t.Errorf("the folder %s was not made", root)
	}
	if sum := sha256.Sum256([]byte("fix the invoice exporter")); l.Prompts[0].Hash != hex.EncodeToString(sum[:5]) {
		t.Errorf("hash %q, want the first 10 hex digits of the typed text's SHA-256", l.Prompts[0].Hash)
	}
}

// TestShowRecallOnRealPrompts replays every labelled prompt of the real
// corpus in time order and holds `ccmem show --recall`
// (memory.ExplainPrompt) to exactly what the prompt hook's body added,
// after a session start, at each one. The corpus is other people's text,
// laid out on a developer's machine only (go run ./scripts/devcorpus
// lay): where it is not, the test says so and skips; the same check on
// the generated corpora always runs (evalset's TestShowRecallIsTheHook).
func TestShowRecallOnRealPrompts(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 501 real prompts (make test runs it)")
	}
	dir := DefaultDir()
	for _, s := range Sources {
		if _, err := Load(dir, s); err != nil {
			t.Skipf("the real corpus is not laid out under %s (%v): go run ./scripts/devcorpus lay", dir, err)
		}
	}
	rep, err := Replay(context.Background(), dir, Sources, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	labels, err := ReadLabels()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Asked != len(labels) {
		t.Fatalf("%d prompts asked of %d labelled", rep.Asked, len(labels))
	}
	if len(rep.Mispredicted) > 0 {
		t.Fatalf("show --recall mispredicted the hook on %d of %d prompts: %s", len(rep.Mispredicted), rep.Asked, strings.Join(rep.Mispredicted, ", "))
	}
}
