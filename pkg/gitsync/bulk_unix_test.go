//go:build unix

// Counting git's runs goes through a shell script standing in for git.

package gitsync_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestManyIncomingFilesFewGits: a machine joining a store of 3,000
// sessions writes them in batches — a few dozen runs of git in all, not
// several per file (3,000 files once took three runs each, 20,000 of them
// minutes under the store's lock).
func TestManyIncomingFilesFewGits(t *testing.T) {
	t.Parallel() // the longest of the package: beside each other, not one by one
	remote := bareRemote(t)
	a, b := newMachine(t, "laptop"), newMachine(t, "desktop")
	p := a.project()
	for i := range 3000 {
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
		name := at.Format("20060102T150405Z") + fmt.Sprintf("-s%04d.json", i)
		storetest.Mkfile(t, filepath.Join(a.env.EpisodesDir(p.Key), name),
			fmt.Sprintf(`{"session_id":"s%04d","title":"session %d","turns":2,"started_at":%q,"friction":{"class":"OK"}}`, i, i, at.Format(time.RFC3339)))
	}
	if _, err := session.HealIndex(context.Background(), a.env, p.Key); err != nil {
		t.Fatal(err)
	}
	if _, err := a.s.Init(context.Background(), remote); err != nil {
		t.Fatal(err)
	}
	count := filepath.Join(t.TempDir(), "runs")
	wrapper := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\necho run >> '"+count+"'\nexec '"+needGit(t)+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b.s.Git = wrapper
	if _, err := b.s.Init(context.Background(), remote); err != nil {
		t.Fatal(err)
	}
	if n := b.episodeCount(); n != 3000 {
		t.Fatalf("%d of 3000 sessions joined", n)
	}
	data, _ := os.ReadFile(count)
	runs := bytes.Count(data, []byte("run"))
	t.Logf("joining 3,000 sessions ran git %d times", runs)
	if runs > 80 {
		t.Fatalf("joining 3,000 sessions ran git %d times: the files are not written in batches", runs)
	}
}

// TestSymlinkedProjectFolderStopsNothing: a project folder the person
// moved into their dotfiles and linked back is never written through when
// the remote changes a file under it; the sync says so and goes on, and
// the next syncs carry everything else.
func TestSymlinkedProjectFolderStopsNothing(t *testing.T) {
	remote := bareRemote(t)
	a, b := newMachine(t, "laptop"), newMachine(t, "desktop")
	a.session("s1", "first session", time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	initAll(t, remote, a, b)
	dir := b.env.ProjectDir(b.project().Key)
	dotfiles := filepath.Join(t.TempDir(), "dotfiles", "shop-memory")
	if err := os.MkdirAll(filepath.Dir(dotfiles), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, dotfiles); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfiles, dir); err != nil {
		t.Fatal(err)
	}
	a.session("s2", "second session", time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
	a.sync()
	rep, err := b.s.Sync(context.Background())
	if err != nil {
		t.Fatalf("a change under a symlinked project folder stopped the sync: %v", err)
	}
	said := false
	for _, r := range rep.Refused {
		said = said || bytes.Contains([]byte(r.Why), []byte("symlink"))
	}
	if !said {
		t.Errorf("the sync did not say what it did not write: %+v", rep.Refused)
	}
	if eps, _ := filepath.Glob(filepath.Join(dotfiles, "episodes", "*s2.json")); len(eps) != 0 {
		t.Errorf("written through the symlink: %v", eps)
	}
	a.remember("the cache is redis")
	a.sync()
	b.sync()
	if mem, _ := os.ReadFile(b.env.GlobalMemory()); !bytes.Contains(mem, []byte("the cache is redis")) {
		t.Errorf("after the symlinked folder, syncs stopped carrying facts")
	}
}

// TestGitFilesAreAsPrivateAsTheStore: after sync init and syncs, nothing
// git wrote in the store is readable by another user (doctor found 50 to
// 150 files of the store's own .git at 0644 and failed, after every sync);
// a store an older ccmem set up is made private at its next sync.
func TestGitFilesAreAsPrivateAsTheStore(t *testing.T) {
	remote := bareRemote(t)
	a := newMachine(t, "laptop")
	a.remember("the staging database is heron-7")
	if _, err := a.s.Init(context.Background(), remote); err != nil {
		t.Fatal(err)
	}
	a.remember("the cache is redis")
	a.sync()
	open := func() []string {
		var out []string
		filepath.WalkDir(filepath.Join(a.env.Store, ".git"), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type()&os.ModeSymlink == 0 {
				if fi, err := d.Info(); err == nil && fi.Mode().Perm()&0o077 != 0 {
					out = append(out, fmt.Sprintf("%s %04o", p, fi.Mode().Perm()))
				}
			}
			return nil
		})
		return out
	}
	if got := open(); len(got) > 0 {
		t.Fatalf("%d of git's files are readable by others: %v", len(got), got)
	}
	// As an older ccmem left it.
	exec.Command(needGit(t), "-C", a.env.Store, "config", "--unset", "core.sharedRepository").Run()
	filepath.WalkDir(filepath.Join(a.env.Store, ".git"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chmod(p, 0o644)
		}
		return nil
	})
	a.sync()
	if got := open(); len(got) > 0 {
		t.Fatalf("after a sync, %d of git's files are still readable by others, first %s", len(got), got[0])
	}
}
