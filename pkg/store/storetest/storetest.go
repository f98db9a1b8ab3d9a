// Package storetest gives tests a store in a fresh temporary HOME, files
// laid out in it, and a git repository to resolve, without touching the
// real ~/.claude.
package storetest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/store"
)

// Env is an Env rooted in a fresh temporary HOME.
func Env(t testing.TB) store.Env {
	t.Helper()
	home := RealDir(t)
	e, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Mkfile writes content to path, creating its folders.
func Mkfile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Append adds data to the end of path, creating it and its folders.
func Append(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

// RealDir is a fresh temporary folder by its real path (symlinks
// resolved, as project roots are).
func RealDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Repo makes a git repository named name in a fresh folder and resolves
// its project in e.
func Repo(t testing.TB, e store.Env, name string) (string, store.Project) {
	t.Helper()
	repo := filepath.Join(RealDir(t), name)
	Mkfile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	p, err := store.ResolveProject(e, repo)
	if err != nil {
		t.Fatal(err)
	}
	return repo, p
}

// Episode writes a finished session's record, with the notes of its
// digest, into the project key's episodes, as the Stop hook leaves it; it
// returns its path.
func Episode(t testing.TB, e store.Env, key, sid, title string, at time.Time, notes ...episode.Note) string {
	t.Helper()
	ep := episode.Record{SessionID: sid, Title: title, Goal: title, Turns: len(notes), StartedAt: at.Format(time.RFC3339)}
	ep.Friction.Class = "OK"
	ep.Digest.Notes = notes
	data, err := json.Marshal(ep)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(e.EpisodesDir(key), fmt.Sprintf("%s-%s.json", at.UTC().Format("20060102T150405Z"), sid))
	Mkfile(t, path, string(data))
	return path
}
