package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// world is a store with a project and memory of every kind.
type world struct {
	e    store.Env
	root string
	p    store.Project
}

func newWorld(t testing.TB) *world {
	t.Helper()
	e := storetest.Env(t)
	root, p := storetest.Repo(t, e, "shop")
	w := &world{e, root, p}
	storetest.Mkfile(t, e.GlobalMemory(), "## About me\n- Prefers table-driven tests in Go\n- Answers in British English\n\n## Tools\n- [Release checklist](release.md) — the steps for a tagged release\n")
	storetest.Mkfile(t, filepath.Join(e.Store, "release.md"), "# Release checklist\n\nTag, then publish the changelog, then announce.\n")
	storetest.Mkfile(t, store.RepoMemory(root), "## Build\n- `make db-up` starts Postgres before the integration tests\n")
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "feedback", "no-mocks.md"), "---\nname: no-mocks\ndescription: integration tests hit a real database\ntype: feedback\n---\nNever mock the database driver; a mocked driver hid a broken migration.\n")
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "project", "freeze.md"), "---\nname: freeze\ndescription: merge freeze before the launch\ntype: project\nsource_cwd: \"/elsewhere/api\"\n---\nNo merges in the week before launch.\n")
	storetest.Mkfile(t, e.BriefingPath(p.Key), "Shop is the storefront monolith.\nCurrent focus: the invoice export for accounting.\n")
	storetest.Mkfile(t, filepath.Join(root, ".claude", "memory", "records", "decision", "queue.json"), `{"schema_version":"1.0","category":"decision","id":"queue","title":"Use Postgres for the job queue","created_at":"2026-11-01T00:00:00Z","updated_at":"2026-11-01T00:00:00Z","tags":["queue","postgres"],"related_files":[],"confidence":0.9,"record_status":"active","changes":[{"date":"2026-11-01T00:00:00Z","summary":"created"}],"times_updated":0,"content":{"status":"accepted","context":"jobs need retries","decision":"SKIP LOCKED on a jobs table","alternatives":[],"rationale":["already deployed"],"consequences":[]}}`)
	w.episode(t, "episodes", "20261120T100000Z-s1.json", "add retry to the payment client", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), "internal/payments/client.go")
	w.episode(t, "archive", "20260801T100000Z-s0.json", "fix the flaky checkout e2e test", time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC), "web/e2e/checkout.spec.ts")
	return w
}

func (w *world) episode(t testing.TB, dir, name, goal string, at time.Time, file string) string {
	path := filepath.Join(w.e.ProjectDir(w.p.Key), dir, name)
	storetest.Mkfile(t, path, fmt.Sprintf(`{"session_id":%q,"goal":%q,"turns":3,"files_changed":[%q],"started_at":%q,"outcome":"done","friction":{"class":"OK"}}`,
		name, goal, file, at.Format(time.RFC3339)))
	return path
}

func (w *world) search(t testing.TB, q string, opt Options) []Hit {
	t.Helper()
	opt.Scope = ScopeOf(&w.p, opt.Scope.All)
	hits, err := Search(context.Background(), w.e, q, opt)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func TestSearchFindsEveryKind(t *testing.T) {
	w := newWorld(t)
	for _, tt := range []struct {
		query, kind, path string
		line              int
	}{
		{"table driven tests", KindGlobal, w.e.GlobalMemory(), 2},
		{"release checklist changelog", KindTopic, filepath.Join(w.e.Store, "release.md"), 0},
		{"postgres integration make", KindProject, store.RepoMemory(w.root), 2},
		{"mock database driver", KindLearned, filepath.Join(w.e.LearnedDir(), "feedback", "no-mocks.md"), 0},
		{"job queue decision", KindRecord, filepath.Join(w.root, ".claude", "memory", "records", "decision", "queue.json"), 0},
		{"invoices export", KindBriefing, w.e.BriefingPath(w.p.Key), 2},
		{"payment retry", KindEpisode, filepath.Join(w.e.EpisodesDir(w.p.Key), "20261120T100000Z-s1.json"), 0},
		{"flaky checkout", KindEpisode, filepath.Join(w.e.EpisodeArchiveDir(w.p.Key), "20260801T100000Z-s0.json"), 0},
	} {
		hits := w.search(t, tt.query, Options{})
		if len(hits) == 0 || hits[0].Kind != tt.kind || hits[0].Path != tt.path || hits[0].Line != tt.line {
			t.Errorf("%q: got %+v, want %s %s:%d first", tt.query, hits, tt.kind, tt.path, tt.line)
		}
	}
	if hits := w.search(t, "zeppelin marmalade", Options{}); len(hits) != 0 {
		t.Fatalf("no match should give no hits: %+v", hits)
	}
	// Another project's learned entry is not this project's memory.
	if hits := w.search(t, "merge freeze launch", Options{}); len(hits) != 0 {
		t.Fatalf("another project's entry was found: %+v", hits)
	}
	if hits := w.search(t, "merge freeze launch", Options{Scope: Scope{All: true}}); len(hits) != 1 {
		t.Fatalf("--all-projects should find it: %+v", hits)
	}
	if hits := w.search(t, "payment retry checkout", Options{Kinds: []string{KindGlobal}}); len(hits) != 0 {
		t.Fatalf("kind filter: %+v", hits)
	}
}

// TestAllProjectsSearchesEveryProject: --all-projects (and MCP's
// all_projects) searches every project of the store, the current one
// included, from inside a project or outside any (project keys start with
// "-", as a path's slug does).
func TestAllProjectsSearchesEveryProject(t *testing.T) {
	w := newWorld(t)
	api, ap := storetest.Repo(t, w.e, "api")
	if _, err := store.ClaimProject(w.e, ap); err != nil {
		t.Fatal(err)
	}
	if _, err := store.ClaimProject(w.e, w.p); err != nil {
		t.Fatal(err)
	}
	storetest.Mkfile(t, filepath.Join(w.e.EpisodesDir(ap.Key), "20261121T100000Z-a1.json"),
		`{"session_id":"a1","goal":"rotate the grpc certificates","turns":2,"started_at":"2026-11-21T10:00:00Z"}`)
	storetest.Mkfile(t, store.RepoMemory(api), "## Ops\n- certificates rotate every ninety days\n")
	for _, sc := range []Scope{ScopeOf(&w.p, true), {All: true}} {
		hits, err := Search(context.Background(), w.e, "payment retry grpc certificates", Options{Scope: sc})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, h := range hits {
			paths = append(paths, h.Path)
		}
		all := strings.Join(paths, "\n")
		for _, want := range []string{"20261120T100000Z-s1.json", "20261121T100000Z-a1.json", store.RepoMemory(api)} {
			if !strings.Contains(all, want) {
				t.Errorf("scope %+v: %s not found in\n%s", sc, want, all)
			}
		}
	}
}

// TestIndexFollowsTheFiles: the index is rebuilt where its files change
// (added, removed, edited in place) and never answers from stale data.
func TestIndexFollowsTheFiles(t *testing.T) {
	w := newWorld(t)
	if hits := w.search(t, "payment retry", Options{}); len(hits) == 0 {
		t.Fatal("no hit")
	}
	// Added.
	p := w.episode(t, "episodes", "20261121T100000Z-s2.json", "speed up the invoice PDF renderer", time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC), "pdf/render.go")
	if hits := w.search(t, "invoice pdf renderer", Options{Quick: true}); len(hits) == 0 || hits[0].Path != p {
		t.Fatalf("a new episode is not found: %+v", hits)
	}
	// Edited in place, same size: a full check sees the new time.
	data, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), "speed up", "slow down", 1)), 0o600)
	future := time.Now().Add(time.Minute)
	os.Chtimes(p, future, future)
	if hits := w.search(t, "slow renderer", Options{}); len(hits) == 0 || hits[0].Title != "slow down the invoice PDF renderer" {
		t.Fatalf("an edited episode is stale: %+v", hits)
	}
	// Removed.
	os.Remove(p)
	if hits := w.search(t, "invoice pdf renderer", Options{Quick: true}); len(hits) != 0 && hits[0].Path == p {
		t.Fatalf("a removed episode is still found: %+v", hits)
	}
	// The global MEMORY.md changes.
	storetest.Mkfile(t, w.e.GlobalMemory(), "- Deploys on Fridays are banned\n")
	if hits := w.search(t, "deploy friday", Options{Quick: true}); len(hits) == 0 || hits[0].Line != 1 {
		t.Fatalf("the changed MEMORY.md is stale: %+v", hits)
	}
	// A damaged index file is rebuilt, not trusted.
	files, _ := filepath.Glob(filepath.Join(Dir(w.e), "*.idx"))
	for _, f := range files {
		os.WriteFile(f, []byte("garbage"), 0o600)
	}
	if hits := w.search(t, "payment retry", Options{Quick: true}); len(hits) == 0 {
		t.Fatal("damaged index files were not rebuilt")
	}
}

// TestSearchSkipsShown: memories already shown are left out.
func TestSearchSkipsShown(t *testing.T) {
	w := newWorld(t)
	first := w.search(t, "payment retry", Options{})[0]
	hits := w.search(t, "payment retry", Options{Skip: func(k [8]byte) bool { return k == RefKey(first.Ref()) }})
	for _, h := range hits {
		if h.Ref() == first.Ref() {
			t.Fatal("a shown memory came back")
		}
	}
}
