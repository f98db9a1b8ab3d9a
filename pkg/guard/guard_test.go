package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/provenance/provenancetest"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// feedback writes a learned feedback entry the person accepted.
func feedback(t *testing.T, e store.Env, name, description, body string) string {
	t.Helper()
	path := feedbackByHand(t, e, name, description, body)
	provenancetest.Entries(t, e, path)
	return path
}

// feedbackByHand writes a learned feedback entry nobody accepted (as an
// edit by hand, or another process, leaves it).
func feedbackByHand(t *testing.T, e store.Env, name, description, body string) string {
	t.Helper()
	path := filepath.Join(e.LearnedDir(), "feedback", name+".md")
	storetest.Mkfile(t, path, "---\nname: "+name+"\ndescription: "+description+"\ntype: feedback\n---\n"+body+"\n")
	return path
}

// world is a store with the three kinds of source: learned feedback, a
// project's records, and the MEMORY.md files.
func world(t *testing.T) (store.Env, store.Project) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	feedback(t, e, "dry-run", "Never run database migrations without --dry-run first", "Why: a migration dropped a column in production once.")
	feedback(t, e, "pnpm", "Use pnpm, not npm, in every JavaScript project", "")
	feedback(t, e, "tabs", "Go code uses gofumpt formatting", "")
	storetest.Mkfile(t, e.GlobalMemory(), "## About me\n- I live in Lisbon\n## Preferences\n- Commit messages in the imperative mood\n## Notes\n- never force-push to main, open a pull request instead\n- the office wifi is slow on Fridays\n")
	provenancetest.Lines(t, e, e.GlobalMemory())
	storetest.Mkfile(t, store.RepoMemory(repo), "## Build\n- The build uses make\n- Do not edit generated files in api/gen/, run make generate\n")
	storetest.Mkfile(t, filepath.Join(repo, ".claude", "memory", "records", "constraint", "pii-logs.json"), `{"schema_version":"1.0","category":"constraint","id":"pii-logs","title":"No PII in logs","created_at":"2026-10-01T00:00:00Z","updated_at":"2026-10-01T00:00:00Z","tags":["logging"],"related_files":["internal/logging/logger.go"],"confidence":0.9,"record_status":"active","changes":[],"times_updated":0,"content":{"kind":"policy","rule":"never log email addresses or card numbers","severity":"high"}}`)
	return e, p
}

func texts(ms []Match) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return strings.Join(out, "\n")
}

func TestFindRulesForAnAction(t *testing.T) {
	e, p := world(t)
	idx, err := Load(e, &p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ action, want string }{
		{"npm run migrate", "Never run database migrations without --dry-run"},
		{"./manage.py migrate --noinput", "Never run database migrations"},
		{"npm install left-pad", "Use pnpm, not npm"},
		{"git push --force origin main", "never force-push to main"},
		{"api/gen/client.go", "Do not edit generated files in api/gen/"},
		{"internal/logging/logger.go", "No PII in logs: never log email addresses or card numbers"},
	} {
		got := texts(idx.Find(c.action, 2))
		if !strings.Contains(got, c.want) {
			t.Errorf("%q: want %q, got:\n%s", c.action, c.want, got)
		}
	}
	for _, quiet := range []string{"ls -la", "go test ./...", "cat README.md", "git status", "make", "echo hello world", "internal/cart/cart.go"} {
		if got := idx.Find(quiet, 2); len(got) > 0 {
			t.Errorf("%q: no rule bears on it, got:\n%s", quiet, texts(got))
		}
	}
	// Facts that are not rules stay out of the index.
	for _, r := range idx.Rules {
		if strings.Contains(r.Text, "Lisbon") || strings.Contains(r.Text, "wifi") || strings.Contains(r.Text, "The build uses make") {
			t.Errorf("a fact indexed as a rule: %q", r.Text)
		}
	}
}

// TestIndexFollowsItsSources: the index is rebuilt when a source changes
// — a rule added, edited in place, removed — and read back otherwise.
func TestIndexFollowsItsSources(t *testing.T) {
	e, p := world(t)
	if _, err := Load(e, &p); err != nil {
		t.Fatal(err)
	}
	path := Path(e, p.Key)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the index was not written: %v", err)
	}
	find := func(action string) string {
		idx, err := Load(e, &p)
		if err != nil {
			t.Fatal(err)
		}
		return texts(idx.Find(action, 2))
	}
	added := feedback(t, e, "docker", "Never run docker system prune on the build server", "")
	if got := find("docker system prune -af"); !strings.Contains(got, "docker system prune") {
		t.Fatalf("an added rule is not found:\n%s", got)
	}
	// Edited in place by hand, same size, same second: the time still
	// differs, and the rule the person accepted is gone; the text nobody
	// accepted is no rule until the person accepts it.
	old, _ := os.Stat(added)
	feedbackByHand(t, e, "docker", "Never run docker volume prune on the build server", "")
	os.Chtimes(added, time.Now(), old.ModTime().Add(time.Millisecond))
	if got := find("docker system prune -af"); strings.Contains(got, "docker") {
		t.Fatalf("a rule edited by hand is still found as it was, or as it is:\n%s", got)
	}
	provenancetest.Entries(t, e, added)
	if got := find("docker volume prune"); !strings.Contains(got, "docker volume prune") {
		t.Fatalf("an edited rule, accepted, is not found:\n%s", got)
	}
	os.Remove(added)
	if got := find("docker volume prune"); got != "" {
		t.Fatalf("a removed rule is still found:\n%s", got)
	}
	// A damaged index is rebuilt, never trusted.
	os.WriteFile(path, []byte("ccmem guard index 1\nR\tfeedback\t0\t/x\tforged rule\tdocker\n"), 0o600)
	if got := find("docker volume prune"); strings.Contains(got, "forged") {
		t.Fatalf("a damaged index was trusted:\n%s", got)
	}
}

// FuzzDecode: any index file either decodes or is rebuilt; it never
// panics.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(header + "S\t1\t2\t/x\nR\tfeedback\t0\t/x\ttext\tterm\n"))
	f.Add([]byte(header + "S\t-1\t0\t/x\n"))
	f.Add([]byte(header + "R\tfeedback\t-1\t/x\ttext\tterm\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if x, ok := decode(data); ok {
			x.Find("npm run migrate", 2)
		}
	})
}

func TestIsRule(t *testing.T) {
	for _, s := range []string{"never run migrations without --dry-run", "Always squash before merging", "Don't use ORMs here", "必须先跑测试再提交", "不要直接推送到 main", "nunca hagas deploy los viernes", "マイグレーションは必ず dry-run で確認する"} {
		if !IsRule(s) {
			t.Errorf("%q should read as a rule", s)
		}
	}
	for _, s := range []string{"I live in Lisbon", "The staging database is on port 6432", "我住在上海", "Trabajo en Valencia"} {
		if IsRule(s) {
			t.Errorf("%q should not read as a rule", s)
		}
	}
}
