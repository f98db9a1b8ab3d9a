package learn

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// siloEnv is a store with the sample silos copied into its Claude dir and a
// pinned clock.
func siloEnv(t *testing.T) store.Env {
	t.Helper()
	e := storetest.Env(t)
	e.Now = func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }
	src := "../../testdata/silos/projects"
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(e.SilosDir(), rel)
		storetest.Mkfile(t, dst, string(data))
		// Fixed, distinct times: the shop silo's copies are the newer ones.
		mt := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		if strings.Contains(rel, "-shop") {
			mt = mt.Add(time.Hour)
		}
		return os.Chtimes(dst, mt, mt)
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestLearnCheckClassifiesSamples(t *testing.T) {
	e := siloEnv(t)
	plan, err := Check(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, it := range plan.Items {
		got[it.Silo+"/"+filepath.Base(it.Path)] = it.Action + " " + it.Type + " " + it.Reason
	}
	want := map[string]string{
		"-home-dev-src-api/feedback-table-tests.md":           "review feedback → review/feedback/table-driven-tests.md",
		"-home-dev-src-api/user-role.md":                      "merge user older copy of user-role.md in -home-dev-src-shop",
		"-home-dev-src-shop/user-role.md":                     "create user newest of 2 copies",
		"-home-dev-src-shop/feedback-no-mocks-in-db-tests.md": "review feedback → review/feedback/no-mocks-in-db-tests.md",
		"-home-dev-src-shop/project-freeze.md":                "create project ",
		"-home-dev-src-shop/reference-grafana.md":             "create reference ",
		"-home-dev-src-shop/broken-frontmatter.md":            "skipped  frontmatter is not valid YAML: line 1: a flow collection must close on its line",
		"-home-dev-src-shop/scratch-notes.md":                 "skipped  no frontmatter",
		"-home-dev-src-shop/unknown-type.md":                  "skipped episodic unknown type \"episodic\"",
	}
	if len(got) != len(want) || plan.Silos != 2 {
		t.Fatalf("plan has %d items in %d silos: %v", len(got), plan.Silos, got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
}

// snapshot is every file under root with its content and mode.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".lock" {
			return err
		}
		fi, _ := os.Lstat(p)
		data, _ := os.ReadFile(p)
		out[p] = fmt.Sprintf("%v %x", fi.Mode(), sha256.Sum256(data))
		return nil
	})
	return out
}

func TestLearnApply(t *testing.T) {
	e := siloEnv(t)
	shop := filepath.Join(e.SilosDir(), "-home-dev-src-shop", "memory")
	before := snapshot(t, e.ClaudeDir)
	plan, rep, err := Apply(context.Background(), e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Deleted) != 6 || len(rep.Written) != 5 || len(rep.Kept) != 0 {
		t.Fatalf("report %+v", rep)
	}
	// Skipped files are byte-identical; processed ones are gone.
	after := snapshot(t, e.ClaudeDir)
	for _, it := range plan.Items {
		_, exists := after[it.Path]
		if it.Action == ActSkip {
			if after[it.Path] != before[it.Path] {
				t.Errorf("skipped %s changed", it.Path)
			}
		} else if exists {
			t.Errorf("processed %s still in its silo", it.Path)
		}
	}
	index, _ := os.ReadFile(filepath.Join(shop, "MEMORY.md"))
	if string(index) != "- [Scratch](scratch-notes.md) — hand notes\n" {
		t.Fatalf("shop MEMORY.md:\n%s", index)
	}
	entry, err := os.ReadFile(filepath.Join(e.LearnedDir(), "user", "user-role.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"name: user-role\ndescription: The user is a backend engineer who prefers terse answers\nmetadata:\n  type: user\n",
		`source_cwd: "/home/dev/src/shop"`, `ingested_at: "2026-11-21T12:00:00Z"`,
		`original_path: "` + filepath.Join(shop, "user-role.md") + `"`,
		"sources:\n  - \"" + filepath.Join(e.SilosDir(), "-home-dev-src-api", "memory", "user-role.md") + "\"\n  - \"" + filepath.Join(shop, "user-role.md") + "\"\n",
		"---\n\nBackend engineer, ten years of Go, new to the React side of this repo.",
	} {
		if !strings.Contains(string(entry), want) {
			t.Errorf("canonical user-role.md lacks %q:\n%s", want, entry)
		}
	}
	if _, err := os.Stat(filepath.Join(e.Store, "review", "feedback", "table-driven-tests.md")); err != nil {
		t.Error("feedback not staged for review")
	}

	// Idempotent: a second run changes nothing at all.
	store := snapshot(t, e.Store)
	silos := snapshot(t, e.ClaudeDir)
	if _, rep, err := Apply(context.Background(), e, nil); err != nil || len(rep.Written)+len(rep.Deleted)+len(rep.Indexes) != 0 {
		t.Fatalf("second apply: %+v %v", rep, err)
	}
	if !sameSnapshot(store, snapshot(t, e.Store)) || !sameSnapshot(silos, snapshot(t, e.ClaudeDir)) {
		t.Fatal("a second apply changed files")
	}
}

func sameSnapshot(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// errKilled stands for apply being killed.
type errKilled struct{}

// Killing apply after each of its steps and running it again converges to
// the end state of an uninterrupted run, and at every moment each memory is
// in its silo or in the store.
func TestLearnApplyInterrupted(t *testing.T) {
	ref := siloEnv(t)
	if _, _, err := Apply(context.Background(), ref, nil); err != nil {
		t.Fatal(err)
	}
	want := relSnapshot(t, ref)

	for kill := 1; ; kill++ {
		e := siloEnv(t)
		plan, _ := Check(context.Background(), e)
		steps := 0
		check := func() {
			for _, it := range plan.Items {
				if it.Action == ActSkip || it.Action == ActUnchanged {
					continue
				}
				_, inSilo := os.Stat(it.Path)
				_, inStore := os.Stat(it.Target)
				if inSilo != nil && inStore != nil {
					t.Fatalf("kill after step %d: %s is neither in its silo nor in the store", kill, it.Path)
				}
			}
		}
		testOnlyApplyHook = func(step, path string) {
			check()
			if steps++; steps == kill {
				panic(errKilled{})
			}
		}
		killed := func() (k bool) {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(errKilled); !ok {
						panic(r)
					}
					k = true
				}
			}()
			Apply(context.Background(), e, nil)
			return false
		}()
		testOnlyApplyHook = nil
		check()
		if _, _, err := Apply(context.Background(), e, nil); err != nil {
			t.Fatal(err)
		}
		if got := relSnapshot(t, e); !sameSnapshot(got, want) {
			t.Fatalf("killed after step %d, then re-run: end state differs\n got %v\nwant %v", kill, got, want)
		}
		if !killed {
			if kill < 5 {
				t.Fatalf("apply finished after only %d steps", kill)
			}
			break
		}
	}
}

// relSnapshot is a snapshot with paths relative to the environment's home.
func relSnapshot(t *testing.T, e store.Env) map[string]string {
	out := map[string]string{}
	for p, v := range snapshot(t, e.Home) {
		rel, _ := filepath.Rel(e.Home, p)
		if strings.HasSuffix(rel, "status.json") {
			continue
		}
		out[rel] = v
	}
	// Provenance names absolute paths under the (per-test) home: compare
	// canonical entries with the home path taken out.
	for rel := range out {
		if strings.HasPrefix(rel, ".claude/ccmem/") {
			data, _ := os.ReadFile(filepath.Join(e.Home, rel))
			out[rel] = fmt.Sprintf("%x", sha256.Sum256([]byte(strings.ReplaceAll(string(data), e.Home, "HOME"))))
		}
	}
	return out
}

func TestLearnSafety(t *testing.T) {
	e := storetest.Env(t)
	silo := filepath.Join(e.SilosDir(), "-p", "memory")
	outside := filepath.Join(e.Home, "secret.md")
	storetest.Mkfile(t, outside, "---\nname: secret\ntype: user\n---\nnot yours\n")
	storetest.Mkfile(t, filepath.Join(silo, "MEMORY.md"), "- [Link](link.md) — a symlink\n- [Evil](evil.md) — odd name\n")
	if err := os.Symlink(outside, filepath.Join(silo, "link.md")); err != nil {
		t.Fatal(err)
	}
	storetest.Mkfile(t, filepath.Join(silo, "evil.md"), "---\nname: \"../../etc/pa\\x01ss/wd\"\ntype: user\n---\nbody\n")
	plan, rep, err := Apply(context.Background(), e, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range plan.Items {
		switch filepath.Base(it.Path) {
		case "link.md":
			if it.Action != ActSkip || !strings.Contains(it.Reason, "symlink") {
				t.Errorf("symlink: %s %s", it.Action, it.Reason)
			}
		case "evil.md":
			if it.Target != filepath.Join(e.LearnedDir(), "user", "etc-pa-ss-wd.md") {
				t.Errorf("name not sanitised: %s", it.Target)
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(silo, "link.md")); err != nil {
		t.Error("the symlink was deleted")
	}
	if data, _ := os.ReadFile(outside); string(data) != "---\nname: secret\ntype: user\n---\nnot yours\n" {
		t.Error("the symlink's target was touched")
	}
	if len(rep.Deleted) != 1 {
		t.Errorf("deleted %v", rep.Deleted)
	}
	for _, bad := range []string{"a/b", "..", "../x", "x\x00y", "\x1b[31mred", "", "...", "ok-name_1.2"} {
		s := store.SafeFileName(bad)
		if s == "" || strings.ContainsAny(s, "/\\\x00\x1b") || strings.Contains(s, "..") || strings.HasPrefix(s, ".") {
			t.Errorf("store.SafeFileName(%q) = %q", bad, s)
		}
	}
	if store.SafeFileName("ok-name_1.2") != "ok-name_1.2" {
		t.Error("a safe name was changed")
	}
}

// A silo file rewritten by the client between reading and deleting stays.
func TestLearnKeepsFilesChangedDuringApply(t *testing.T) {
	e := siloEnv(t)
	target := filepath.Join(e.SilosDir(), "-home-dev-src-shop", "memory", "project-freeze.md")
	testOnlyApplyHook = func(step, path string) {
		if step == "written" && strings.HasSuffix(path, "release-freeze.md") {
			storetest.Mkfile(t, target, "---\nname: release-freeze\ntype: project\n---\nmoved to 2026-12-03\n")
		}
	}
	defer func() { testOnlyApplyHook = nil }()
	_, rep, err := Apply(context.Background(), e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Kept) != 1 || rep.Kept[0] != target {
		t.Fatalf("kept %v", rep.Kept)
	}
	if data, _ := os.ReadFile(target); !strings.Contains(string(data), "2026-12-03") {
		t.Fatal("the changed file was deleted or altered")
	}
	index, _ := os.ReadFile(filepath.Join(filepath.Dir(target), "MEMORY.md"))
	if !strings.Contains(string(index), "project-freeze.md") {
		t.Fatal("the kept file's index line was dropped")
	}
	// The next run picks up the new content as an update.
	plan, _ := Check(context.Background(), e)
	for _, it := range plan.Items {
		if it.Path == target && it.Action != ActUpdate {
			t.Fatalf("next plan: %s", it.Action)
		}
	}
}

func TestReviewAcceptReject(t *testing.T) {
	e := siloEnv(t)
	if _, _, err := Apply(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	items, err := Pending(e)
	if err != nil || len(items) != 2 {
		t.Fatalf("pending %v %v", items, err)
	}
	it, ok := Find(items, "table-driven-tests")
	if !ok {
		t.Fatal("not found by name")
	}
	dest, err := Accept(e, it, "cli")
	if err != nil || dest != filepath.Join(e.LearnedDir(), "feedback", "table-driven-tests.md") {
		t.Fatalf("accept: %s %v", dest, err)
	}
	it, _ = Find(items, "no-mocks-in-db-tests")
	dest, err = Reject(e, it, "we mock in unit tests")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(dest)
	if !strings.HasPrefix(dest, filepath.Join(e.Store, "archive")) || !strings.Contains(string(data), `archived_reason: "rejected in review: we mock in unit tests"`) {
		t.Fatalf("reject: %s\n%s", dest, data)
	}
	if items, _ := Pending(e); len(items) != 0 {
		t.Fatalf("still pending: %v", items)
	}
	names := []string{}
	entries, _ := List(context.Background(), e)
	for _, l := range entries {
		names = append(names, l.Type+"/"+l.Name)
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "feedback/table-driven-tests project/release-freeze reference/latency-dashboard user/user-role" {
		t.Fatalf("learned: %v", names)
	}
}

func TestLearnedCache(t *testing.T) {
	e := storetest.Env(t)
	entry := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\ntype: user\n---\nbody\n"
	}
	a := filepath.Join(e.LearnedDir(), "user", "a.md")
	storetest.Mkfile(t, a, entry("a", "first"))
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "user", "b.md"), entry("b", "bee"))
	list := func() string {
		ls, _ := List(context.Background(), e)
		var out []string
		for _, l := range ls {
			out = append(out, l.Name+"="+l.Description)
		}
		return strings.Join(out, ",")
	}
	if got := list(); got != "a=first,b=bee" {
		t.Fatal(got)
	}
	if _, err := os.Stat(filepath.Join(e.LearnedDir(), ".cache.tsv")); err != nil {
		t.Fatal("no cache written")
	}
	storetest.Mkfile(t, a, entry("a", "second, longer"))
	os.Remove(filepath.Join(e.LearnedDir(), "user", "b.md"))
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "user", "c.md"), entry("c", "sea\ttab"))
	if got := list(); got != "a=second, longer,c=sea tab" {
		t.Fatal(got)
	}
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), ".cache.tsv"), "garbage\x00\n\t\t\n")
	if got := list(); got != "a=second, longer,c=sea tab" {
		t.Fatal(got)
	}
}

// TestStatusRecountsOnlyChangedSilos: the status line's count lists only
// the silos whose memory folder changed since status.json counted them,
// and saves what it recounted, so the next refresh lists nothing.
func TestStatusRecountsOnlyChangedSilos(t *testing.T) {
	e := storetest.Env(t)
	if err := os.MkdirAll(e.Store, 0o700); err != nil {
		t.Fatal(err)
	}
	silo := func(name string) string { return filepath.Join(e.SilosDir(), name, "memory") }
	for _, s := range []string{"-a", "-b", "-c"} {
		storetest.Mkfile(t, filepath.Join(silo(s), "one.md"), "x")
		storetest.Mkfile(t, filepath.Join(silo(s), "MEMORY.md"), "- [one](one.md)\n")
	}
	storetest.Mkfile(t, filepath.Join(e.SilosDir(), "-no-memory", "x.jsonl"), "{}")
	// Folder times in the past, as a silo untouched for a while (a folder
	// changed within the racy window is always listed again).
	old := time.Now().Add(-time.Hour)
	touch := func(s string, t0 time.Time) {
		if err := os.Chtimes(silo(s), t0, t0); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"-a", "-b", "-c"} {
		touch(s, old)
	}
	refresh := func() Status {
		st, err := RefreshStatus(context.Background(), e, nil)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := refresh(); st.Backlog != (Backlog{Files: 3, Silos: 3}) {
		t.Fatalf("first count: %+v", st.Backlog)
	}
	saved := ReadStatus(e)
	if saved.Backlog != (Backlog{Files: 3, Silos: 3}) || strings.Count(saved.Silos, "/") != 3 {
		t.Fatalf("status.json after the count: %+v", saved)
	}
	// An unchanged silo is not listed again: its recorded count is taken
	// as it is (here made wrong on purpose to show it).
	saved.Silos = strings.Replace(saved.Silos, " 1 -a/", " 7 -a/", 1)
	if err := store.WriteJSON(e.StatusPath(), saved); err != nil {
		t.Fatal(err)
	}
	if st := refresh(); st.Backlog.Files != 9 {
		t.Fatalf("an unchanged silo was listed again: %+v", st.Backlog)
	}
	// A file added to -b changes its folder's time: -b alone is recounted,
	// and status.json holds the recount.
	storetest.Mkfile(t, filepath.Join(silo("-b"), "two.md"), "x")
	touch("-b", old.Add(time.Minute))
	if st := refresh(); st.Backlog != (Backlog{Files: 10, Silos: 3}) {
		t.Fatalf("after a new file in -b: %+v", st.Backlog)
	}
	if saved := ReadStatus(e); saved.Backlog.Files != 10 || !strings.Contains(saved.Silos, " 2 -b/") {
		t.Fatalf("the recount was not saved: %+v", saved)
	}
	// Feedback awaiting review is counted too, from the listing alone.
	storetest.Mkfile(t, filepath.Join(e.ReviewDir(), "terse.md"), "---\nname: terse\n---\nbody\n")
	storetest.Mkfile(t, filepath.Join(e.ReviewDir(), ".terse.md.tmp-1"), "half")
	if st := refresh(); st.Review != 1 || ReadStatus(e).Review != 1 {
		t.Fatalf("review count %d, saved %d, want 1", st.Review, ReadStatus(e).Review)
	}
	// -a's folder changes too: its true count comes back.
	touch("-a", old.Add(2*time.Minute))
	if st := refresh(); st.Backlog != (Backlog{Files: 4, Silos: 3}) {
		t.Fatalf("after -a changed: %+v", st.Backlog)
	}
	// A silo changed just now is counted, and listed again next time (a
	// file added in the same tick of a coarse clock leaves its time).
	tick := time.Now()
	touch("-c", tick)
	refresh()
	storetest.Mkfile(t, filepath.Join(silo("-c"), "late.md"), "x")
	touch("-c", tick)
	if st := refresh(); st.Backlog != (Backlog{Files: 5, Silos: 3}) {
		t.Fatalf("a silo changed within the racy window was not recounted: %+v", st.Backlog)
	}
}

// A memory the client saved with a secret in it reaches the store
// redacted, frontmatter and body, still valid YAML, and a second apply
// finds it unchanged.
func TestLearnRedacts(t *testing.T) {
	e := storetest.Env(t)
	silo := filepath.Join(e.SilosDir(), "-home-dev-src-shop", "memory")
	storetest.Mkfile(t, filepath.Join(silo, "deploy.md"), "---\nname: deploy\ndescription: ghp_Zq8Xw2Lk9Pm4Rt7Yv1Bn6Hc3Jd5Gf0SaQwEr is the deploy token\nmetadata:\n  type: reference\n---\nUse NPM_TOKEN=npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 to publish.\n")
	if _, _, err := Apply(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	entries, err := List(context.Background(), e)
	if err != nil || len(entries) != 1 {
		t.Fatalf("entries %+v, %v", entries, err)
	}
	data, _ := os.ReadFile(entries[0].Path)
	for _, secret := range []string{"Zq8Xw2Lk9Pm4", "a1B2c3D4e5F6"} {
		if strings.Contains(string(data), secret) {
			t.Fatalf("%s reached the store:\n%s", secret, data)
		}
	}
	if !strings.HasPrefix(entries[0].Description, "[REDACTED:github-token] is the deploy token") {
		t.Fatalf("description %q", entries[0].Description)
	}
	// The same memory again: unchanged, not an update.
	storetest.Mkfile(t, filepath.Join(silo, "deploy.md"), "---\nname: deploy\ndescription: ghp_Zq8Xw2Lk9Pm4Rt7Yv1Bn6Hc3Jd5Gf0SaQwEr is the deploy token\nmetadata:\n  type: reference\n---\nUse NPM_TOKEN=npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 to publish.\n")
	plan, err := Check(context.Background(), e)
	if err != nil || plan.Count(ActUnchanged) != 1 {
		t.Fatalf("second check: %+v %v", plan.Items, err)
	}
}

func TestRedactFrontStaysYAML(t *testing.T) {
	in := "name: x\ndescription: sk-ant-api03-abcdefghijklmnopqrstuvwxyz here\nquoted: \"password=hunter22!\"\nlist:\n  - AKIAIOSFODNN7EXAMPLE\n"
	out := string(redactFront([]byte(in)))
	m, err := frontmatter.Parse([]byte(out))
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if m.Description != "[REDACTED:anthropic-key] here" || strings.Contains(out, "hunter22") || strings.Contains(out, "AKIA") {
		t.Fatalf("redacted frontmatter:\n%s\n%+v", out, m.Fields)
	}
}

// Claude Code rewrites a memory file at the very moment apply removes it
// (after apply read it): the rewrite is not lost; it stays in the silo for
// the next run.
func TestApplyKeepsAFileRewrittenWhileRemoved(t *testing.T) {
	e := storetest.Env(t)
	silo := filepath.Join(e.SilosDir(), "-home-dev-src-shop", "memory")
	file := filepath.Join(silo, "role.md")
	mem := func(desc string) string {
		return "---\nname: role\ndescription: " + desc + "\nmetadata:\n  type: user\n---\nbody\n"
	}
	storetest.Mkfile(t, file, mem("first version"))
	testOnlySiloWrite = func(stage, path string) {
		if stage == "removing" && path == file {
			storetest.Mkfile(t, file, mem("rewritten while apply ran"))
		}
	}
	defer func() { testOnlySiloWrite = nil }()
	if _, _, err := Apply(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	testOnlySiloWrite = nil
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), "rewritten while apply ran") {
		t.Fatalf("the rewrite was lost: %q %v", data, err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(silo, ".*")); len(leftovers) != 0 {
		t.Fatalf("left behind: %v", leftovers)
	}
	// The next run ingests it.
	if _, _, err := Apply(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	entries, _ := List(context.Background(), e)
	if len(entries) != 1 || entries[0].Description != "rewritten while apply ran" {
		t.Fatalf("entries %+v", entries)
	}
}

// Claude Code appends a line to a silo's MEMORY.md while apply rewrites it
// without the ingested files' lines: the appended line is kept.
func TestApplyKeepsLinesAddedToMemoryIndex(t *testing.T) {
	e := siloEnv(t)
	index := filepath.Join(e.SilosDir(), "-home-dev-src-shop", "memory", "MEMORY.md")
	appended := 0
	testOnlySiloWrite = func(stage, path string) {
		if stage == "rewriting" && path == index && appended < 2 {
			appended++
			f, err := os.OpenFile(index, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "- [Added %d](added-%d.md) — written meanwhile\n", appended, appended)
			f.Close()
		}
	}
	defer func() { testOnlySiloWrite = nil }()
	if _, _, err := Apply(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(index)
	for i := 1; i <= appended; i++ {
		if !strings.Contains(string(data), fmt.Sprintf("[Added %d](added-%d.md)", i, i)) {
			t.Fatalf("the line added meanwhile was dropped:\n%s", data)
		}
	}
	if appended == 0 {
		t.Fatal("the index was never rewritten: the test proves nothing")
	}
}

// Distinct memories that share a name or a file name are never merged:
// two projects' "build" memories, "deploy steps" and "deploy/steps", names
// alike in their first 100 characters. Each ends in the store, with its
// own provenance, and every silo memory is in its silo or in the store.
func TestApplyKeepsDistinctMemoriesApart(t *testing.T) {
	e := storetest.Env(t)
	mem := func(name, typ, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\nmetadata:\n  type: " + typ + "\n---\n" + desc + "\n"
	}
	long := strings.Repeat("x", 100)
	files := map[string]string{
		"-home-dev-src-api/memory/build.md":    mem("build", "project", "api builds with make"),
		"-home-dev-src-shop/memory/build.md":   mem("build", "project", "shop builds with bazel"),
		"-home-dev-src-shop/memory/deploy1.md": mem("deploy steps", "user", "deploy steps by hand"),
		"-home-dev-src-shop/memory/deploy2.md": mem("deploy/steps", "user", "deploy/steps scripted"),
		"-home-dev-src-shop/memory/long1.md":   mem(long+"-one", "user", "the first long name"),
		"-home-dev-src-shop/memory/long2.md":   mem(long+"-two", "user", "the second long name"),
	}
	for rel, content := range files {
		storetest.Mkfile(t, filepath.Join(e.SilosDir(), rel), content)
	}
	for run := 0; run < 2; run++ {
		plan, rep, err := Apply(context.Background(), e, nil)
		if err != nil {
			t.Fatal(err)
		}
		if run == 1 && (len(rep.Written) != 0 || len(rep.Deleted) != 0) {
			t.Fatalf("a second apply changed something: %+v", rep)
		}
		_ = plan
	}
	entries, err := List(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]Entry{}
	for _, le := range entries {
		found[le.Description] = le
	}
	for _, content := range files {
		desc := strings.TrimSpace(content[strings.LastIndex(strings.TrimSpace(content), "\n")+1:])
		if _, ok := found[desc]; !ok {
			t.Fatalf("the memory %q is in neither its silo nor the store (store holds %+v)", desc, entries)
		}
	}
	if api, shop := found["api builds with make"], found["shop builds with bazel"]; api.SourceCwd != "/home/dev/src/api" || shop.SourceCwd != "/home/dev/src/shop" || api.Path == shop.Path {
		t.Fatalf("the two projects' build memories: %+v, %+v", api, shop)
	}
}

// archived reads every archived version of learned entries of type typ.
func archived(t *testing.T, e store.Env, typ string) map[string]frontmatter.Meta {
	t.Helper()
	out := map[string]frontmatter.Meta{}
	ents, _ := os.ReadDir(filepath.Join(e.ArchiveDir(), typ))
	for _, de := range ents {
		data, err := os.ReadFile(filepath.Join(e.ArchiveDir(), typ, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m, body, err := frontmatter.Read(data)
		if err != nil {
			t.Fatalf("%s: %v", de.Name(), err)
		}
		out[strings.TrimSpace(string(body))] = m
	}
	return out
}

// TestApplyArchivesWhatItReplaces: names that differ only in case are one
// memory; the older copy's text, and a stored version an update replaces,
// are kept in the archive with their provenance, never discarded.
func TestApplyArchivesWhatItReplaces(t *testing.T) {
	e := storetest.Env(t)
	mem := func(name, body string) string {
		return "---\nname: " + name + "\ndescription: deploy\nmetadata:\n  type: user\n---\n" + body + "\n"
	}
	older := filepath.Join(e.SilosDir(), "-home-dev-src-api", "memory", "Deploy-Steps.md")
	newer := filepath.Join(e.SilosDir(), "-home-dev-src-shop", "memory", "deploy-steps.md")
	storetest.Mkfile(t, older, mem("Deploy-Steps", "deploy by hand with scp"))
	storetest.Mkfile(t, newer, mem("deploy-steps", "deploy with make release"))
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(older, t0, t0)
	os.Chtimes(newer, t0.Add(time.Hour), t0.Add(time.Hour))
	if _, _, err := Apply(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	entries, _ := List(context.Background(), e)
	if len(entries) != 1 {
		t.Fatalf("want one learned entry for the two spellings, got %+v", entries)
	}
	arch := archived(t, e, "user")
	m, ok := arch["deploy by hand with scp"]
	if !ok {
		t.Fatalf("the older copy's text was discarded; archive holds %v", arch)
	}
	if m.Fields["original_path"] != older || !strings.HasPrefix(fmt.Sprint(m.Fields["archived_reason"]), "older copy of the same memory") {
		t.Fatalf("archived copy lacks its provenance: %+v", m.Fields)
	}
	stored, _ := os.ReadFile(entries[0].Path)
	if !strings.Contains(string(stored), older) || !strings.Contains(string(stored), newer) {
		t.Fatalf("the merged entry should name both sources:\n%s", stored)
	}

	// A later update from one silo: the replaced version is archived and
	// the entry still names both of its sources.
	storetest.Mkfile(t, newer, mem("deploy-steps", "deploy with make release, then tag"))
	os.Chtimes(newer, t0.Add(2*time.Hour), t0.Add(2*time.Hour))
	for range 2 { // a repeated apply archives nothing twice
		if _, _, err := Apply(context.Background(), e, nil); err != nil {
			t.Fatal(err)
		}
	}
	arch = archived(t, e, "user")
	if m, ok := arch["deploy with make release"]; !ok || !strings.HasPrefix(fmt.Sprint(m.Fields["archived_reason"]), "replaced by a newer version from "+newer) {
		t.Fatalf("the replaced version was not archived: %v", arch)
	}
	if len(arch) != 2 {
		t.Fatalf("want 2 archived versions, got %d", len(arch))
	}
	stored, _ = os.ReadFile(entries[0].Path)
	if !strings.Contains(string(stored), "then tag") || !strings.Contains(string(stored), older) {
		t.Fatalf("the update dropped its sources:\n%s", stored)
	}

	// A silo copy older than the store's version is archived, not lost.
	storetest.Mkfile(t, older, mem("Deploy-Steps", "an old note found later"))
	os.Chtimes(older, t0, t0)
	if _, _, err := Apply(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	if entries, _ := List(context.Background(), e); len(entries) != 1 {
		t.Fatalf("a later copy spelled in another case made a second entry: %+v", entries)
	}
	if _, ok := archived(t, e, "user")["an old note found later"]; !ok {
		t.Fatal("a silo copy older than the store's version was discarded")
	}
}

// TestShowFromCacheMatchesList: what a session start reads from the
// cache's table of contents (the first entries of each group that applies,
// merged) is what the full listing gives, for projects with entries of
// their own, of a folder inside, of a folder that only shares a prefix,
// none at all, and with a broken entry reported.
func TestShowFromCacheMatchesList(t *testing.T) {
	e := storetest.Env(t)
	cwds := []string{"/src/shop", "/src/shop/api", "/src/shop-admin", "/src/other", ""}
	n := 0
	for i, typ := range Types {
		for j := range 9 {
			cwd := cwds[(i+j)%len(cwds)]
			storetest.Mkfile(t, filepath.Join(e.LearnedDir(), typ, fmt.Sprintf("e%02d.md", n)),
				fmt.Sprintf("---\nname: %c%02d\ndescription: entry %d\nsource_cwd: %q\n---\nbody\n", 'z'-rune(j), n, n, cwd))
			n++
		}
	}
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "project", "broken.md"), "---\nname: [unclosed\n---\n")
	old := time.Now().Add(-time.Hour)
	for _, typ := range Types {
		if err := os.Chtimes(filepath.Join(e.LearnedDir(), typ), old, old); err != nil {
			t.Fatal(err)
		}
	}
	all, listErr := List(context.Background(), e)
	if listErr == nil || len(all) != n {
		t.Fatalf("%d entries, %v", len(all), listErr)
	}
	for _, root := range []string{"/src/shop", "/src/shop/api", "/src/other", "/nowhere", "", "/src"} {
		for _, git := range []bool{true, false} {
			here := store.HereOf(root, git)
			for _, limit := range []int{0, 3, 40} {
				var want View
				for _, le := range all {
					switch {
					case le.Global():
						want.GlobalTotal++
						if len(want.Global) < limit {
							want.Global = append(want.Global, le)
						}
					case le.AppliesTo(here):
						want.ProjectTotal++
						if len(want.Project) < limit {
							want.Project = append(want.Project, le)
						}
					}
				}
				got, ok := showCached(e, here, limit)
				if !ok {
					t.Fatalf("%s: the cache was not used", root)
				}
				if got.Err == nil || !strings.Contains(got.Err.Error(), "broken.md") {
					t.Errorf("%s: broken entry not reported: %v", root, got.Err)
				}
				got.Err = nil
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s, limit %d:\ncache %+v\nlist  %+v", root, limit, got, want)
				}
			}
		}
	}
}

// TestPunctuationFoldersShareNothing: two folders whose names differ only
// in punctuation (acme-api, acme_api) have one silo name; a silo whose
// transcripts do not say which folder it is gives its memories to
// neither — never the other's project memory or pending corrections.
func TestPunctuationFoldersShareNothing(t *testing.T) {
	e := storetest.Env(t)
	base := storetest.RealDir(t)
	dash, under := filepath.Join(base, "acme-api"), filepath.Join(base, "acme_api")
	for _, d := range []string{dash, under} {
		storetest.Mkfile(t, filepath.Join(d, ".git", "HEAD"), "ref: refs/heads/main\n")
		p, err := store.ResolveProject(e, d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.ClaimProject(e, p); err != nil {
			t.Fatal(err)
		}
	}
	if path, ok := store.PathOfSlug(e, store.Slug(dash)); ok || path != "" {
		t.Fatalf("PathOfSlug of a slug two folders share = %q, %v; want none", path, ok)
	}
	mem := "---\nname: deploys\ndescription: acme_api deploys on Fridays\nmetadata:\n  type: project\n---\nFriday deploys.\n"
	fb := "---\nname: no-fridays\ndescription: never deploy acme_api on a Friday\nmetadata:\n  type: feedback\n---\nNever.\n"
	storetest.Mkfile(t, filepath.Join(e.SilosDir(), store.Slug(under), "memory", "deploys.md"), mem)
	storetest.Mkfile(t, filepath.Join(e.SilosDir(), store.Slug(under), "memory", "no-fridays.md"), fb)
	if _, _, err := Apply(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dash, under} {
		v, err := Show(context.Background(), e, store.HereOf(d, true), 40)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Project) != 0 {
			t.Errorf("%s was given the silo's project memory: %+v", d, v.Project)
		}
	}
	items, err := Pending(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		for _, d := range []string{dash, under} {
			if it.ShownWhilePending(store.HereOf(d, true)) {
				t.Errorf("the pending correction %s reaches %s", it.Name, d)
			}
		}
	}
}

// TestRestorePutsClaudeCodesMemoryBack: after learn apply moved Claude
// Code's memory files into the store (and emptied a silo's MEMORY.md of
// their lines), Restore puts each back where it was, as Claude Code wrote
// it (no provenance), with its MEMORY.md line; a file Claude Code wrote
// there since stays; an entry whose original path (it may come from a
// sync) points anywhere else is skipped, and nothing is written there.
func TestRestorePutsClaudeCodesMemoryBack(t *testing.T) {
	e := siloEnv(t)
	before := map[string]string{}
	filepath.WalkDir(e.SilosDir(), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && filepath.Base(p) != "MEMORY.md" {
			data, _ := os.ReadFile(p)
			before[p] = string(data)
		}
		return nil
	})
	if _, _, err := Apply(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(e.Home, ".ssh", "authorized_keys.md")
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "user", "hostile.md"), "---\nname: hostile\ndescription: x\ntype: user\noriginal_path: \""+outside+"\"\n---\nssh-ed25519 AAAA mallory\n")
	rep, err := Restore(e, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("an entry's original path wrote outside Claude Code's memory folders")
	}
	if len(rep.Skipped) == 0 {
		t.Error("the hostile entry was not reported")
	}
	wrote := map[string]bool{}
	for _, p := range rep.Restored {
		wrote[p] = true
	}
	restored := 0
	for p, orig := range before {
		if !wrote[p] {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s was curated but not put back", p)
			}
			continue // learn left it in place (no frontmatter, unknown type)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		restored++
		if strings.Contains(string(data), "ingested_at") || strings.Contains(string(data), "original_path") {
			t.Errorf("%s was restored with ccmem's provenance:\n%s", p, data)
		}
		// A fact several silos held goes back to each in the version learn
		// kept: the body is one of the originals of that name.
		_, body, _ := frontmatter.Split(data)
		same := false
		for q, o := range before {
			_, b, _ := frontmatter.Split([]byte(o))
			if filepath.Base(q) == filepath.Base(p) && strings.Contains(string(body), strings.TrimSpace(string(b))) {
				same = true
			}
		}
		if _, want, _ := frontmatter.Split([]byte(orig)); !same {
			t.Errorf("%s: the body is no original's:\n%s\nwant\n%s", p, body, want)
		}
		index, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "MEMORY.md"))
		if !strings.Contains(string(index), "("+filepath.Base(p)+")") {
			t.Errorf("%s has no line in its MEMORY.md:\n%s", p, index)
		}
	}
	if restored == 0 {
		t.Fatal("nothing was restored")
	}
	again, err := Restore(e, false)
	if err != nil || len(again.Restored) != 0 || len(again.Indexes) != 0 {
		t.Fatalf("a second restore wrote again: %+v %v", again, err)
	}
}
