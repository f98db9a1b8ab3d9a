package gitsync_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/gitsync"
	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
	"github.com/ccmem/ccmem/pkg/syncstate"
)

// machine is one computer: a HOME of its own (at a different path), its
// clone of the project, and its syncer.
type machine struct {
	t    *testing.T
	name string
	env  store.Env
	repo string
	s    *gitsync.Syncer
}

func needGit(t *testing.T) string {
	t.Helper()
	g, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is not installed: ccmem sync runs the user's git, and its tests run the real one")
	}
	return g
}

// gitEnv keeps git away from the user's own configuration.
func gitEnv(home string) []string {
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig")}
}

func newMachine(t *testing.T, name string) *machine {
	t.Helper()
	e := storetest.Env(t)
	// The same project, cloned into a different folder on each machine.
	repo := filepath.Join(storetest.RealDir(t), name+"-src", "shop")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "config"), "[remote \"origin\"]\n\turl = git@github.com:ana/shop.git\n")
	// A clone: the remote's branch as last fetched, and its commit (the
	// object's presence is what binds the project's key to the clone).
	storetest.Mkfile(t, filepath.Join(repo, ".git", "refs", "remotes", "origin", "HEAD"), "ref: refs/remotes/origin/main\n")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "refs", "remotes", "origin", "main"), shopCommit+"\n")
	storetest.Mkfile(t, filepath.Join(repo, ".git", "objects", shopCommit[:2], shopCommit[2:]), "a commit")
	return &machine{t: t, name: name, env: e, repo: repo, s: &gitsync.Syncer{Env: e, Git: needGit(t), Machine: name, Environ: gitEnv(e.Home)}}
}

// shopCommit is a commit of the project every machine has cloned.
const shopCommit = "5e0c0a1b2c3d4e5f60718293a4b5c6d7e8f90123"

func bareRemote(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(storetest.RealDir(t), "memory.git")
	if out, err := exec.Command(needGit(t), "init", "-q", "--bare", "-b", "main", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	return dir
}

func (m *machine) project() store.Project {
	m.t.Helper()
	p, err := store.ResolveProject(m.env, m.repo)
	if err != nil {
		m.t.Fatal(err)
	}
	if p, err = store.ClaimProject(m.env, p); err != nil {
		m.t.Fatal(err)
	}
	return p
}

// remember is the person's `ccmem remember` on m: the fact is theirs.
func (m *machine) remember(fact string) {
	m.t.Helper()
	if _, err := notes.RememberWith(m.env, notes.Global, m.project(), "", fact, notes.RememberOptions{Origin: provenance.Origin{By: provenance.Person, Via: "cli"}}); err != nil {
		m.t.Fatalf("%s: remember: %v", m.name, err)
	}
}

// session leaves a finished session of the project, as capture does.
func (m *machine) session(id, title string, at time.Time) {
	m.t.Helper()
	p := m.project()
	c := &session.Checkpoint{Record: checkpoint.Record{SessionID: id, ProjectRoot: p.Root, StartedAt: at.Format(time.RFC3339), Turns: 3, Title: title, Friction: friction.Result{Class: "OK"}}}
	data, err := json.Marshal(c)
	if err != nil {
		m.t.Fatal(err)
	}
	storetest.Mkfile(m.t, filepath.Join(m.env.EpisodesDir(p.Key), session.EpisodeName(c, at)), string(data))
	if _, err := session.HealIndex(context.Background(), m.env, p.Key); err != nil {
		m.t.Fatal(err)
	}
}

func (m *machine) sync() syncstate.Report {
	m.t.Helper()
	rep, err := m.s.Sync(context.Background())
	if err != nil {
		m.t.Fatalf("%s: sync: %v", m.name, err)
	}
	return rep
}

// testsEntry is a machine's learned feedback entry "tests"; writeTestsEntry
// writes it with body.
func testsEntry(m *machine) string { return filepath.Join(m.env.LearnedDir(), "feedback", "tests.md") }

func writeTestsEntry(m *machine, body string) {
	storetest.Mkfile(m.t, testsEntry(m), "---\nname: tests\ndescription: how to run the tests\ntype: feedback\n---\n"+body+"\n")
}

// initAll sets up sync with remote on each machine in turn (the first
// pushes, the others join).
func initAll(t *testing.T, remote string, ms ...*machine) {
	t.Helper()
	for _, m := range ms {
		if _, err := m.s.Init(context.Background(), remote); err != nil {
			t.Fatalf("%s: init: %v", m.name, err)
		}
	}
}

// block is what the next session in the project is told.
func (m *machine) block() string {
	return memory.Compose(context.Background(), m.env, memory.StartRequest{Cwd: m.repo, Source: "startup"}).Block.Text
}

// TestTwoMachines: what one machine remembers is in the other's next
// session after a sync; both machines' sessions of one project share its
// menu on both; and the store joins a remote that already holds one.
func TestTwoMachines(t *testing.T) {
	remote := bareRemote(t)
	a, b := newMachine(t, "laptop"), newMachine(t, "desktop")
	a.remember("the staging database is heron-7")
	a.session("a1", "move the queue to kafka", time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	if _, err := a.s.Init(context.Background(), remote); err != nil {
		t.Fatalf("init on A: %v", err)
	}
	// B has memory of its own before it joins.
	b.remember("answer in Spanish when I write in Spanish")
	b.session("b1", "fix the flaky cart test", time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
	rep, err := b.s.Init(context.Background(), remote)
	if err != nil {
		t.Fatalf("init on B (join): %v", err)
	}
	if !rep.Joined || !rep.Pushed {
		t.Errorf("B's init: %+v", rep)
	}
	a.sync()

	for _, m := range []*machine{a, b} {
		blk := m.block()
		for _, want := range []string{"heron-7", "answer in Spanish", "move the queue to kafka", "fix the flaky cart test"} {
			if !strings.Contains(blk, want) {
				t.Errorf("%s's next session is not told %q:\n%s", m.name, want, blk)
			}
		}
	}
	if pa, pb := a.project(), b.project(); pa.Key != pb.Key || pa.Root == pb.Root {
		t.Errorf("one project, two machines: keys %q and %q, roots %q and %q", pa.Key, pb.Key, pa.Root, pb.Root)
	}
	agree(t, a, b)
}

// TestBothMachinesEditAtOnce: both change MEMORY.md and the same learned
// entry before syncing; after syncs both ways nothing is lost, nothing
// holds a conflict marker, and the two stores agree.
func TestBothMachinesEditAtOnce(t *testing.T) {
	remote := bareRemote(t)
	a, b := newMachine(t, "laptop"), newMachine(t, "desktop")
	entry := func(m *machine, _ string) string { return testsEntry(m) }
	write := writeTestsEntry
	a.remember("we deploy with fly.io")
	write(a, "Run go test ./... before saying it works.")
	initAll(t, remote, a, b)
	// Both edit at once.
	a.remember("the queue is kafka")
	b.remember("the cache is redis")
	write(a, "Run go test -race ./... before saying it works.")
	time.Sleep(1100 * time.Millisecond) // commit times have one-second steps: B's edit is the newer
	write(b, "Run make test before saying it works.")
	a.sync()
	rep := b.sync()
	a.sync()
	if len(rep.KeptBoth) != 1 || rep.KeptBoth[0] != "learned/feedback/tests.md" {
		t.Errorf("kept both: %v", rep.KeptBoth)
	}
	for _, m := range []*machine{a, b} {
		mem, _ := os.ReadFile(m.env.GlobalMemory())
		for _, fact := range []string{"fly.io", "kafka", "redis"} {
			if bytes.Count(mem, []byte(fact)) != 1 {
				t.Errorf("%s: %q appears %d times in MEMORY.md:\n%s", m.name, fact, bytes.Count(mem, []byte(fact)), mem)
			}
		}
		cur, _ := os.ReadFile(entry(m, ""))
		if !bytes.Contains(cur, []byte("make test")) {
			t.Errorf("%s: the newer version is not in place:\n%s", m.name, cur)
		}
		old, _ := filepath.Glob(filepath.Join(m.env.Store, "archive", "sync", "learned", "feedback", "tests.*.md"))
		if len(old) != 1 {
			t.Fatalf("%s: archived versions %v", m.name, old)
		}
		data, _ := os.ReadFile(old[0])
		if !bytes.Contains(data, []byte("go test -race")) || !bytes.Contains(data, []byte("archived_reason: \"sync: both machines changed")) {
			t.Errorf("%s: the older version, with where it came from:\n%s", m.name, data)
		}
		noMarkers(t, m)
	}
	agree(t, a, b)
}

// TestSecretsStayHere: a file that holds a secret is not committed; the
// sync says which and why, and the other files go.
func TestSecretsStayHere(t *testing.T) {
	remote := bareRemote(t)
	a, b := newMachine(t, "laptop"), newMachine(t, "desktop")
	storetest.Mkfile(t, filepath.Join(a.env.Store, "deploy.md"), "- the deploy key is AKIAIOSFODNN7EXAMPLE with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n")
	a.remember("the staging database is heron-7")
	rep, err := a.s.Init(context.Background(), remote)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Held) != 1 || rep.Held[0].Path != "deploy.md" {
		t.Fatalf("held: %+v", rep.Held)
	}
	if _, err := b.s.Init(context.Background(), remote); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(b.env.Store, "deploy.md")); err == nil {
		t.Fatal("the file with a secret reached the other machine")
	}
	if mem, _ := os.ReadFile(b.env.GlobalMemory()); !bytes.Contains(mem, []byte("heron-7")) {
		t.Fatalf("the other files did not: %s", mem)
	}
	log, _ := exec.Command(needGit(t), "--git-dir", remote, "log", "--all", "-p").CombinedOutput()
	if bytes.Contains(log, []byte("AKIAIOSFODNN7EXAMPLE")) {
		t.Fatal("the secret is in the remote's history")
	}
}

// TestDerivedFilesStayHere: INDEX.md, checkpoints, project.json, the
// search index and status never reach the remote.
func TestDerivedFilesStayHere(t *testing.T) {
	remote := bareRemote(t)
	a := newMachine(t, "laptop")
	a.session("a1", "first", time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	p := a.project()
	storetest.Mkfile(t, a.env.CheckpointPath(p.Key, "live"), "{}")
	storetest.Mkfile(t, filepath.Join(a.env.Store, "search", "x"), "index")
	storetest.Mkfile(t, a.env.StatusPath(), "{}")
	storetest.Mkfile(t, filepath.Join(a.env.LearnedDir(), ".cache.tsv"), "c")
	if _, err := a.s.Init(context.Background(), remote); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(needGit(t), "--git-dir", remote, "ls-tree", "-r", "--name-only", "main").CombinedOutput()
	files := string(out)
	for _, never := range []string{"INDEX.md", "checkpoints/", "project.json", "search/", "status.json", ".cache.tsv", "sync/"} {
		if strings.Contains(files, never) {
			t.Errorf("%s reached the remote:\n%s", never, files)
		}
	}
	if !strings.Contains(files, "episodes/") {
		t.Errorf("the episode did not:\n%s", files)
	}
}

// noMarkers fails if any file of the store holds a conflict marker.
func noMarkers(t *testing.T, m *machine) {
	t.Helper()
	filepath.WalkDir(m.env.Store, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		if d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			if bytes.Contains(data, []byte("<<<<<<<")) || bytes.Contains(data, []byte(">>>>>>>")) {
				t.Errorf("%s: conflict marker in %s", m.name, p)
			}
		}
		return nil
	})
}

// synced lists the files a sync carries, with their contents.
func synced(t *testing.T, m *machine) map[string]string {
	t.Helper()
	out, err := exec.Command(needGit(t), "-C", m.env.Store, "ls-files", "-z").Output()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f == "" || f == "config.yaml" || strings.HasPrefix(f, "projects/") && strings.HasSuffix(f, "/config.yaml") {
			continue // each machine's own settings: never written by a sync
		}
		data, err := os.ReadFile(filepath.Join(m.env.Store, f))
		if err != nil {
			t.Errorf("%s: %s is tracked but unreadable: %v", m.name, f, err)
		}
		files[f] = string(data)
	}
	return files
}

// agree fails unless both machines hold the same synced files.
func agree(t *testing.T, a, b *machine) {
	t.Helper()
	fa, fb := synced(t, a), synced(t, b)
	var diff []string
	for f, da := range fa {
		if db, ok := fb[f]; !ok || db != da {
			diff = append(diff, f)
		}
	}
	for f := range fb {
		if _, ok := fa[f]; !ok {
			diff = append(diff, f)
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("the stores differ in %v", diff)
	}
}

// TestStatusWhileSyncing: ccmem sync status asked again and again while
// syncs run (as a person or a script waiting on a background sync does)
// never makes a sync fail. git status takes the index lock to save what it
// refreshed, unless told not to, and a sync's add then found it taken
// (CI saw "git add: … remove the file manually to continue").
func TestStatusWhileSyncing(t *testing.T) {
	t.Parallel() // the longest of the package: beside each other, not one by one
	remote := bareRemote(t)
	a := newMachine(t, "laptop")
	a.remember("fact 0")
	if _, err := a.s.Init(context.Background(), remote); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	asked := make(chan int)
	go func() {
		n := 0
		defer func() { asked <- n }()
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := a.s.Status(context.Background()); err != nil {
				t.Errorf("status: %v", err)
				return
			}
			n++
		}
	}()
	for i := 1; i <= 15; i++ {
		// Files changed since the index last saw them, so every status
		// has something to refresh.
		a.remember("fact " + strings.Repeat("x", i))
		a.session("s"+string(rune('a'+i)), "work", time.Date(2026, 11, 20, 9, i, 0, 0, time.UTC))
		if _, err := a.s.Sync(context.Background()); err != nil {
			t.Errorf("sync %d while status was asked: %v", i, err)
		}
	}
	close(done)
	if n := <-asked; n == 0 {
		t.Fatal("status was never asked while the syncs ran")
	}
}

// TestSyncWaitsOutAnotherGit: another git holding the index lock for a
// moment (a shell prompt's git status in the store) is waited out; one
// that holds it for good fails the sync with git's own words.
func TestSyncWaitsOutAnotherGit(t *testing.T) {
	remote := bareRemote(t)
	a := newMachine(t, "laptop")
	a.remember("fact 0")
	if _, err := a.s.Init(context.Background(), remote); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(a.env.Store, ".git", "index.lock")
	a.remember("fact 1")
	storetest.Mkfile(t, lock, "")
	go func() {
		time.Sleep(300 * time.Millisecond)
		os.Remove(lock)
	}()
	if _, err := a.s.Sync(context.Background()); err != nil {
		t.Fatalf("a lock held for 300 ms failed the sync: %v", err)
	}
	a.remember("fact 2")
	storetest.Mkfile(t, lock, "")
	defer os.Remove(lock)
	_, err := a.s.Sync(context.Background())
	if err == nil || !strings.Contains(err.Error(), "another git holds "+lock) {
		t.Fatalf("a lock that stays: %v", err)
	}
}

// TestSessionJustEndedReachesTheOtherMachine: a session that ended on the
// laptop a moment ago (its live record still there: no session has started
// in its project since) is archived by the laptop's sync, so the desktop's
// next session has it in its menu after its own sync.
func TestSessionJustEndedReachesTheOtherMachine(t *testing.T) {
	remote := bareRemote(t)
	a, b := newMachine(t, "laptop"), newMachine(t, "desktop")
	a.remember("fact")
	initAll(t, remote, a, b)
	p := a.project()
	tr := filepath.Join(a.env.SilosDir(), p.Key, "ended.jsonl")
	storetest.Mkfile(t, tr, `{"type":"user","message":{"role":"user","content":"rename the price helper to priceOf"},"timestamp":"2026-11-24T09:00:00Z","cwd":"`+a.repo+`","sessionId":"ended"}`+"\n"+
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Renamed."}]},"timestamp":"2026-11-24T09:00:05Z"}`+"\n")
	if _, err := session.Capture(context.Background(), a.env, session.CaptureRequest{Turn: session.Turn{Cwd: a.repo, SessionID: "ended", TranscriptPath: tr, Process: proc.Info{PID: 4194301}}, NewSession: true}); err != nil { // its claude process is gone
		t.Fatal(err)
	}
	rep := a.sync()
	if rep.Settled != 1 {
		t.Errorf("the laptop's sync settled %d sessions, want the one that ended", rep.Settled)
	}
	b.sync()
	if blk := b.block(); !strings.Contains(blk, "rename the price helper") {
		t.Fatalf("the session that just ended on the laptop is not in the desktop's menu:\n%s", blk)
	}
}

// TestAFactEditedOnTwoMachinesIsTwoVersions: the same line of the global
// memory edited differently on two machines is not silently two facts:
// the sync says so, the next session is told the two lines disagree, the
// person keeps one (the other goes to the archive), and the other machine
// ends with that one. An entry both machines changed waits the same way,
// and keeping the older brings it back.
func TestAFactEditedOnTwoMachinesIsTwoVersions(t *testing.T) {
	remote := bareRemote(t)
	a, b := newMachine(t, "laptop"), newMachine(t, "desktop")
	write := writeTestsEntry
	a.remember("the staging database is heron-7")
	a.remember("we deploy with fly.io")
	write(a, "Run go test ./... before saying it works.")
	initAll(t, remote, a, b)
	edit := func(m *machine, from, to string) {
		data, err := os.ReadFile(m.env.GlobalMemory())
		if err != nil || !bytes.Contains(data, []byte(from)) {
			t.Fatalf("%s: %q not in MEMORY.md: %v\n%s", m.name, from, err, data)
		}
		storetest.Mkfile(t, m.env.GlobalMemory(), strings.Replace(string(data), from, to, 1))
	}
	edit(a, "heron-7", "heron-8 (moved in November)")
	edit(b, "staging database is heron-7", "staging database is osprey-2")
	write(a, "Run go test -race ./... before saying it works.")
	time.Sleep(1100 * time.Millisecond) // B's entry is the newer
	write(b, "Run make test before saying it works.")
	a.sync()
	rep := b.sync()
	if len(rep.Unsettled) != 2 {
		t.Fatalf("the sync did not say two facts have two versions: %+v", rep)
	}
	waiting := gitsync.Unsettled(b.env)
	if len(waiting) != 2 {
		t.Fatalf("waiting: %+v", waiting)
	}
	blk := b.block()
	for _, l := range strings.Split(blk, "\n") {
		marked := strings.Contains(l, "(one of two versions edited on different machines; the user has not chosen yet)")
		if (strings.Contains(l, "heron-8") || strings.Contains(l, "osprey-2")) != marked {
			t.Errorf("marked %v: %s", marked, l)
		}
	}
	// The machine that did not merge is told too (issue 47, finding 7):
	// its next sync finds the pair in the merge's trailer and marks both
	// lines, as the merging machine does.
	a.sync()
	var aLine []syncstate.Unsettled
	for _, u := range gitsync.Unsettled(a.env) {
		if u.Line {
			aLine = append(aLine, u)
		}
	}
	if len(aLine) != 1 || !strings.Contains(aLine[0].Versions[0].Text+aLine[0].Versions[1].Text, "osprey-2") || !strings.Contains(aLine[0].Versions[0].Text+aLine[0].Versions[1].Text, "heron-8") {
		t.Fatalf("the other machine does not know the two versions: %+v", gitsync.Unsettled(a.env))
	}
	for _, l := range strings.Split(a.block(), "\n") {
		marked := strings.Contains(l, "(one of two versions edited on different machines; the user has not chosen yet)")
		if (strings.Contains(l, "heron-8") || strings.Contains(l, "osprey-2")) != marked {
			t.Errorf("on the other machine, marked %v: %s", marked, l)
		}
	}
	var line, file syncstate.Unsettled
	for _, u := range waiting {
		if u.Line {
			line = u
		} else {
			file = u
		}
	}
	if line.Path != "MEMORY.md" || !strings.Contains(line.Versions[0].Text, "osprey-2") || !strings.Contains(line.Versions[1].Text, "heron-8") {
		t.Errorf("the line's versions (this machine's first): %+v", line)
	}
	if file.Path != "learned/feedback/tests.md" || !strings.Contains(file.Versions[1].Text, "go test -race") {
		t.Errorf("the entry's versions: %+v", file)
	}
	// The person keeps the other machine's line, and this machine's older
	// entry.
	if _, err := gitsync.Settle(b.env, line.ID, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := gitsync.Settle(b.env, file.ID, 1); err == nil {
		// Version 1 is this machine's (B's, the newer): in place already.
	} else {
		t.Fatal(err)
	}
	if _, err := gitsync.Settle(b.env, line.ID, 1); !errors.Is(err, gitsync.ErrNoVersion) {
		t.Errorf("settling twice: %v", err)
	}
	mem, _ := os.ReadFile(b.env.GlobalMemory())
	if bytes.Contains(mem, []byte("osprey-2")) || !bytes.Contains(mem, []byte("heron-8")) || !bytes.Contains(mem, []byte("fly.io")) {
		t.Errorf("after keeping version 2:\n%s", mem)
	}
	arch, _ := os.ReadFile(filepath.Join(b.env.Store, "archive", "sync", "MEMORY.not-kept.md"))
	if !bytes.Contains(arch, []byte("osprey-2")) {
		t.Errorf("the version not kept is not in the archive:\n%s", arch)
	}
	if strings.Contains(b.block(), "one of two versions") || len(gitsync.Unsettled(b.env)) != 0 {
		t.Error("settled, still marked")
	}
	b.sync()
	a.sync()
	mem, _ = os.ReadFile(a.env.GlobalMemory())
	if bytes.Contains(mem, []byte("osprey-2")) || bytes.Count(mem, []byte("heron")) != 1 {
		t.Errorf("the other machine does not end with the version kept:\n%s", mem)
	}
	for _, u := range gitsync.Unsettled(a.env) {
		if u.Line {
			t.Errorf("settled on one machine, still two versions on the other: %+v", u)
		}
	}
	agree(t, a, b)
}

// TestSettleBringsTheArchivedVersionBack: keeping the version that went
// to the archive puts it in place (without the archive's note) and the
// one that was in place goes to the archive.
func TestSettleBringsTheArchivedVersionBack(t *testing.T) {
	remote := bareRemote(t)
	a, b := newMachine(t, "laptop"), newMachine(t, "desktop")
	entry, write := testsEntry, writeTestsEntry
	write(a, "Run go test ./... before saying it works.")
	initAll(t, remote, a, b)
	write(b, "Run make test before saying it works.")
	b.sync()
	time.Sleep(1100 * time.Millisecond) // A's is the newer
	write(a, "Run go test -race ./... before saying it works.")
	a.sync()
	// A merged: its own (newer) version in place, B's in the archive.
	waiting := gitsync.Unsettled(a.env)
	if len(waiting) != 1 || waiting[0].Versions[0].At != waiting[0].Path || waiting[0].Versions[1].At == waiting[0].Path {
		t.Fatalf("A's version in place, B's in the archive: %+v", waiting)
	}
	if _, err := gitsync.Settle(a.env, waiting[0].ID, 2); err != nil {
		t.Fatal(err)
	}
	cur, _ := os.ReadFile(entry(a))
	if !bytes.Contains(cur, []byte("make test")) || bytes.Contains(cur, []byte("archived_reason")) {
		t.Errorf("the kept version is not in place as it was:\n%s", cur)
	}
	old, _ := filepath.Glob(filepath.Join(a.env.Store, "archive", "sync", "learned", "feedback", "tests.*-not-kept.md"))
	if len(old) != 1 {
		t.Fatalf("the version not kept: %v", old)
	}
	if data, _ := os.ReadFile(old[0]); !bytes.Contains(data, []byte("go test -race")) {
		t.Errorf("the archive holds the wrong version:\n%s", data)
	}
	a.sync()
	b.sync()
	if cur, _ := os.ReadFile(entry(b)); !bytes.Contains(cur, []byte("make test")) {
		t.Errorf("the other machine does not end with the kept version:\n%s", cur)
	}
}
