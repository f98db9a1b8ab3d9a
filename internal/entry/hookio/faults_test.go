//go:build unix

// The fault tests need Unix: file modes that bind, FIFOs, /dev/zero, and
// running a hook as another user (nobody).

package hookio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks/capture"
	"github.com/ccmem/ccmem/internal/entry/hooks/prompt"
	"github.com/ccmem/ccmem/internal/entry/hooks/start"
	"github.com/ccmem/ccmem/internal/entry/hooks/tool"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
)

// The fault tests run each hook as a separate process (this test binary,
// re-executed), as the client does. As root they drop to the "nobody" user,
// so that file permissions bind as they do for a user.

func TestMain(m *testing.M) {
	// A slow store, made slow on purpose (see TestDeadlineWithSlowStore).
	if d, err := time.ParseDuration(os.Getenv("CCMEM_TEST_ARCHIVE_DELAY")); err == nil {
		session.TestOnlyArchiveDelay = d
	}
	if d, err := time.ParseDuration(os.Getenv("CCMEM_TEST_READ_DELAY")); err == nil {
		search.TestOnlyReadDelay = d
	}
	switch os.Getenv("CCMEM_TEST_HOOK") {
	case "sessionstart":
		os.Exit(start.SessionStart(hookio.OS()))
	case "stop":
		os.Exit(capture.Stop(hookio.OS()))
	case "precompact":
		os.Exit(capture.PreCompact(hookio.OS()))
	case "userpromptsubmit":
		os.Exit(prompt.UserPromptSubmit(hookio.OS()))
	case "pretooluse":
		os.Exit(tool.PreToolUse(hookio.OS()))
	case "spin":
		// A CPU hog for TestHoldUnderStarvation, until killed.
		for x := 0; ; x++ {
			_ = x
		}
	}
	os.Exit(m.Run())
}

const nobody = 65534

// faultWorld is a HOME, a repository and a copy of this test binary that
// the unprivileged user can run.
type faultWorld struct {
	t          *testing.T
	dir        string
	home, repo string
	bin        string
	env        store.Env
}

func newFaultWorld(t *testing.T) *faultWorld {
	t.Helper()
	// The unprivileged user must reach the hook binary and its files: a
	// private TMPDIR (macOS's, or a fresh user's 0700 one) cannot be
	// traversed by it, so the system's /tmp is used then.
	base := os.TempDir()
	if os.Geteuid() == 0 && !traversableByAll(base) {
		base = "/tmp"
		if !traversableByAll(base) {
			t.Fatalf("neither TMPDIR (%s) nor /tmp can be entered by the unprivileged user these tests run hooks as", os.TempDir())
		}
	}
	dir, err := os.MkdirTemp(base, "ccmem-faults-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	w := &faultWorld{t: t, dir: dir, home: filepath.Join(dir, "home"), repo: filepath.Join(dir, "repo"), bin: filepath.Join(dir, "hook.test")}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	w.mkfile(filepath.Join(w.repo, ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	w.mkfile(filepath.Join(w.repo, ".claude", "memory", "MEMORY.md"), "- repo-fact: tests need Postgres\n", 0o644)
	w.mkfile(filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md"), "- global-fact: terse answers\n", 0o644)
	w.env = store.Env{Home: w.home, Store: filepath.Join(w.home, ".claude", "ccmem"), ClaudeDir: filepath.Join(w.home, ".claude")}
	return w
}

// traversableByAll tells whether every folder from / down to dir can be
// entered by any user.
func traversableByAll(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

func (w *faultWorld) mkfile(path, content string, mode os.FileMode) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		w.t.Fatal(err)
	}
	os.Chmod(path, mode)
}

// giveAway makes the tree under path the unprivileged user's (as root).
func (w *faultWorld) giveAway(path string) {
	if os.Geteuid() != 0 {
		return
	}
	filepath.Walk(path, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, nobody, nobody) })
}

type hookResult struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// run runs a hook on payload; unprivileged runs the hook as nobody when root.
func (w *faultWorld) run(hook, payload string, unprivileged bool, extraEnv ...string) hookResult {
	w.t.Helper()
	cmd := exec.Command(w.bin)
	cmd.Env = append([]string{"CCMEM_TEST_HOOK=" + hook, "HOME=" + w.home, "PATH=" + os.Getenv("PATH")}, extraEnv...)
	cmd.Dir = w.dir
	cmd.Stdin = strings.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if unprivileged && os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	start := time.Now()
	err := cmd.Run()
	r := hookResult{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		w.t.Fatalf("running %s: %v", hook, err)
	}
	return r
}

// checkContract asserts what every fault case promises: exit 0 or 1, at
// most one stderr line, named after the hook, no panic trace.
func checkContract(t *testing.T, hook string, r hookResult) {
	t.Helper()
	if r.code != 0 && r.code != 1 {
		t.Fatalf("%s exited %d; stderr %q", hook, r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "\n"); n > 1 || strings.Contains(r.stderr, "goroutine") {
		t.Fatalf("%s wrote %d stderr lines: %q", hook, n, r.stderr)
	}
	if r.stderr != "" && !strings.HasPrefix(r.stderr, hook+": ") {
		t.Fatalf("stderr %q does not start with %q", r.stderr, hook+": ")
	}
}

// block decodes the SessionStart output; it fails the test when there is none.
func block(t *testing.T, r hookResult) string {
	t.Helper()
	var out struct {
		H struct {
			C string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.H.C == "" {
		t.Fatalf("no memory block emitted (exit %d, stderr %q, stdout %q)", r.code, r.stderr, r.stdout)
	}
	return out.H.C
}

// noLeftovers fails if a temporary file of an interrupted write remains.
func noLeftovers(t *testing.T, root string) {
	t.Helper()
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.Contains(filepath.Base(p), ".tmp-") {
			t.Errorf("partial file left: %s", p)
		}
		return nil
	})
}

func (w *faultWorld) startPayload(sid string) string {
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"SessionStart","source":"startup"}`,
		sid, filepath.Join(w.dir, sid+".jsonl"), w.repo)
}

func (w *faultWorld) stopPayload(sid string) string {
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"Stop","stop_hook_active":false}`,
		sid, filepath.Join(w.dir, sid+".jsonl"), w.repo)
}

// TestFaultReadOnlyStore: the store can be read but not written.
func TestFaultReadOnlyStore(t *testing.T) {
	w := newFaultWorld(t)
	w.mkfile(filepath.Join(w.dir, "s1.jsonl"), `{"type":"user","message":{"role":"user","content":"hello"}}`+"\n", 0o644)
	w.giveAway(w.dir)
	// Root owns the store: read-only for the hook's user.
	os.Lchown(w.env.Store, 0, 0)
	if os.Geteuid() != 0 {
		os.Chmod(w.env.Store, 0o555)
		defer os.Chmod(w.env.Store, 0o755)
	}
	r := w.run("sessionstart", w.startPayload("s1"), true)
	checkContract(t, "sessionstart", r)
	b := block(t, r)
	if !strings.Contains(b, "global-fact") || !strings.Contains(b, "repo-fact") || r.code != 0 {
		t.Fatalf("exit %d, block:\n%s", r.code, b)
	}
	if !strings.Contains(r.stderr, "permission denied") {
		t.Fatalf("stderr %q does not say why nothing was recorded", r.stderr)
	}
	r = w.run("stop", w.stopPayload("s1"), true)
	checkContract(t, "stop", r)
	if r.code != 1 || !strings.Contains(r.stderr, "permission denied") {
		t.Fatalf("stop: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.env.Store, "projects")); err == nil {
		t.Fatal("something was written into the read-only store")
	}
	noLeftovers(t, w.dir)
}

// TestFaultPermissionDeniedOnOneFile: one memory file cannot be read; the
// rest is injected.
func TestFaultPermissionDeniedOnOneFile(t *testing.T) {
	w := newFaultWorld(t)
	w.giveAway(w.dir)
	repoMem := filepath.Join(w.repo, ".claude", "memory", "MEMORY.md")
	os.Lchown(repoMem, 0, 0)
	os.Chmod(repoMem, 0o000)
	defer os.Chmod(repoMem, 0o644)
	r := w.run("sessionstart", w.startPayload("s1"), true)
	checkContract(t, "sessionstart", r)
	b := block(t, r)
	if r.code != 0 || !strings.Contains(b, "global-fact") || strings.Contains(b, "repo-fact") {
		t.Fatalf("exit %d, block:\n%s", r.code, b)
	}
	if !strings.Contains(r.stderr, "MEMORY.md: permission denied") {
		t.Fatalf("stderr %q", r.stderr)
	}
}

// TestFaultDeviceAsMemory: a MEMORY.md that is a device (or a FIFO) is
// neither read nor waited on.
func TestFaultDeviceAsMemory(t *testing.T) {
	w := newFaultWorld(t)
	global := filepath.Join(w.env.Store, "MEMORY.md")
	os.Remove(global)
	if err := os.Symlink("/dev/zero", global); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(w.repo, ".claude", "memory", "MEMORY.md")
	os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r := w.run("sessionstart", w.startPayload("s1"), false)
	checkContract(t, "sessionstart", r)
	if b := block(t, r); r.code != 0 || strings.Contains(b, "global-fact") {
		t.Fatalf("exit %d, block:\n%s", r.code, b)
	}
	if !strings.Contains(r.stderr, "not a regular file") {
		t.Fatalf("stderr %q", r.stderr)
	}
}

// TestFaultHugeSilo: a silo folder with 100,000 files is counted, not read,
// and the block still comes.
func TestFaultHugeSilo(t *testing.T) {
	w := newFaultWorld(t)
	silo := filepath.Join(w.env.ClaudeDir, "projects", "-huge", "memory")
	if err := os.MkdirAll(silo, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100000; i++ {
		f, err := os.Create(filepath.Join(silo, fmt.Sprintf("m%06d.md", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	r := w.run("sessionstart", w.startPayload("s1"), false)
	checkContract(t, "sessionstart", r)
	if b := block(t, r); r.code != 0 || !strings.Contains(b, "100000 memories Claude Code saved wait to be curated, from 1 project") || !strings.Contains(b, "global-fact") {
		t.Fatalf("exit %d stderr %q block:\n%s", r.code, r.stderr, b)
	}
}

// TestFaultHugeTranscriptLine: a 50 MB transcript line is skipped, not
// held; the lines around it count.
func TestFaultHugeTranscriptLine(t *testing.T) {
	w := newFaultWorld(t)
	var b strings.Builder
	b.WriteString(`{"type":"user","message":{"role":"user","content":"first"}}` + "\n")
	b.WriteString(`{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", 50<<20) + `"}}` + "\n")
	b.WriteString(`{"type":"user","message":{"role":"user","content":"third"}}` + "\n")
	w.mkfile(filepath.Join(w.dir, "s1.jsonl"), b.String(), 0o644)
	r := w.run("stop", w.stopPayload("s1"), false)
	checkContract(t, "stop", r)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	p, _ := store.ResolveProject(w.env, w.repo)
	data, err := os.ReadFile(w.env.CheckpointPath(p.Key, "s1"))
	if err != nil {
		t.Fatal(err)
	}
	var c session.Checkpoint
	json.Unmarshal(data, &c)
	if c.Turns != 2 || c.Goal != "first" || c.Transcript.Offset != int64(b.Len()) {
		t.Fatalf("turns %d goal %q offset %d", c.Turns, c.Goal, c.Transcript.Offset)
	}
}

// TestFaultClockSkew: timestamps and file times in the future neither
// break capture nor make a live-looking session an orphan.
func TestFaultClockSkew(t *testing.T) {
	w := newFaultWorld(t)
	tr := filepath.Join(w.dir, "s1.jsonl")
	w.mkfile(tr, `{"type":"user","message":{"role":"user","content":"from the future"},"timestamp":"2031-01-01T00:00:00Z"}`+"\n", 0o644)
	future := time.Now().Add(24 * time.Hour)
	os.Chtimes(tr, future, future)
	r := w.run("stop", w.stopPayload("s1"), false, "CCMEM_NOW=2026-11-21T12:00:00Z")
	checkContract(t, "stop", r)
	if r.code != 0 {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	// Another session starts, in another claude process: s1's process (this
	// test's, which lives) still runs, so it stays a live checkpoint.
	r = w.run("sessionstart", w.startPayload("s2"), false, "CCMEM_NOW=2026-11-21T12:00:00Z", fmt.Sprintf("CLAUDE_PID=%d", os.Getppid()))
	checkContract(t, "sessionstart", r)
	block(t, r)
	p, _ := store.ResolveProject(w.env, w.repo)
	if _, err := os.Stat(w.env.CheckpointPath(p.Key, "s1")); err != nil {
		t.Fatal("a session touched in the future was archived")
	}
	// Once its process is gone it is archived, dated by its own timestamp.
	r = w.run("stop", w.stopPayload("s1"), false, "CLAUDE_PID=4194305")
	checkContract(t, "stop", r)
	r = w.run("sessionstart", w.startPayload("s3"), false)
	if b := block(t, r); !strings.Contains(b, `- 2031-01-01 00:00 · 1 turn · `) {
		t.Fatalf("block:\n%s", b)
	}
}

// TestDeadlineWithSlowStore: with more ended sessions to archive than the
// deadline allows (each made to take 5 ms, so that no machine is fast
// enough to finish), sessionstart stops archiving at its deadline and still
// answers, with the essential sections, in time for the client.
func TestDeadlineWithSlowStore(t *testing.T) {
	w := newFaultWorld(t)
	w.mkfile(filepath.Join(w.env.Store, "config.yaml"), "deadline: 1s\n", 0o600)
	p, err := store.ResolveProject(w.env, w.repo)
	if err != nil {
		t.Fatal(err)
	}
	const n = 400 // × 5 ms = 2 s of archiving against a 1 s deadline
	for i := 0; i < n; i++ {
		sid := fmt.Sprintf("old-%04d", i)
		tr := filepath.Join(w.dir, "t", sid+".jsonl")
		w.mkfile(tr, fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"task %d"},"timestamp":"2026-11-01T10:00:00Z"}`+"\n", i), 0o600)
		w.mkfile(w.env.CheckpointPath(p.Key, sid), fmt.Sprintf(`{"session_id":%q,"project_root":%q,"tools":{},"files_changed":[],"transcript":{"path":%q},"process":{"pid":4194305}}`, sid, p.Root, tr), 0o600)
	}
	r := w.run("sessionstart", w.startPayload("now"), false, "CCMEM_TEST_ARCHIVE_DELAY=5ms")
	checkContract(t, "sessionstart", r)
	b := block(t, r)
	if r.code != 0 || !strings.Contains(b, "global-fact") || !strings.Contains(b, "repo-fact") {
		t.Fatalf("exit %d stderr %q block:\n%s", r.code, r.stderr, b)
	}
	if r.took > 5*time.Second {
		t.Fatalf("sessionstart took %v; the client kills hooks at 5 s", r.took)
	}
	left, _ := filepath.Glob(filepath.Join(w.env.ProjectDir(p.Key), "checkpoints", "old-*.json"))
	eps, _ := filepath.Glob(filepath.Join(w.env.ProjectDir(p.Key), "episodes", "*.json"))
	t.Logf("archived %d of %d in %v", len(eps), n, r.took)
	if len(left) == 0 || len(left)+len(eps) != n {
		t.Fatalf("%d archived, %d left: want some left for next time and none lost", len(eps), len(left))
	}
	index, _ := os.ReadFile(filepath.Join(w.env.ProjectDir(p.Key), "INDEX.md"))
	if got := strings.Count(string(index), "\n"); got != len(eps) {
		t.Fatalf("INDEX.md has %d lines for %d episodes", got, len(eps))
	}
	noLeftovers(t, w.env.Store)
}

// TestPromptWithoutIndex: in a store of a thousand sessions whose index is
// missing (never built, or deleted), with every file made slow to read (so
// that no machine is fast enough to build it in the prompt's allowance),
// the prompt hook answers in time with what exists, leaves the build to a
// background ccmem (a stand-in beside the hook records that it was run),
// and once that index exists recalls from it.
func TestPromptWithoutIndex(t *testing.T) {
	w := newFaultWorld(t)
	p, err := store.ResolveProject(w.env, w.repo)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	for i := 0; i < n; i++ {
		goal := fmt.Sprintf("tune the cache eviction policy, take %d", i)
		if i == 637 {
			goal = "switch the session cache to LFU eviction"
		}
		at := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 8 * time.Hour)
		w.mkfile(filepath.Join(w.env.EpisodeArchiveDir(p.Key), at.Format("20060102T150405Z")+fmt.Sprintf("-s%04d.json", i)),
			fmt.Sprintf(`{"session_id":"s%04d","goal":%q,"turns":3,"files_changed":["cache/evict.go"],"started_at":%q,"outcome":"done","friction":{"class":"OK"}}`, i, goal, at.Format(time.RFC3339)), 0o600)
	}
	ran := filepath.Join(w.dir, "ccmem-ran")
	w.mkfile(filepath.Join(w.dir, "ccmem"), "#!/bin/sh\necho \"$@\" > "+ran+"\n", 0o755)
	payload := fmt.Sprintf(`{"session_id":"now","transcript_path":%q,"cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"why did we switch to LFU?"}`,
		filepath.Join(w.dir, "now.jsonl"), w.repo)

	r := w.run("userpromptsubmit", payload, false, "CCMEM_TEST_READ_DELAY=20ms") // 1,000 files: 20 s
	checkContract(t, "userpromptsubmit", r)
	t.Logf("without an index: exit %d in %v", r.code, r.took)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	if r.took > 5*time.Second {
		t.Fatalf("userpromptsubmit took %v; the client kills hooks at 5 s", r.took)
	}
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(ran); err == nil && len(b) > 0 {
			got = string(b)
			break
		}
	}
	if want := "search --index --cwd " + p.Root + "\n"; got != want {
		t.Fatalf("the background refresh ran as %q, want %q", got, want)
	}

	// What the background ccmem does: build the index; the next prompt
	// recalls from it.
	if _, err := search.Refresh(context.Background(), w.env, search.ScopeOf(&p, false)); err != nil {
		t.Fatal(err)
	}
	os.Remove(ran)
	r = w.run("userpromptsubmit", payload, false, "CCMEM_TEST_READ_DELAY=20ms")
	checkContract(t, "userpromptsubmit", r)
	if b := block(t, r); !strings.Contains(b, "LFU") {
		t.Fatalf("with the index built, recall should find the session:\n%s", b)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("a prompt with a current index started a refresh")
	}
}
