// Package storetest gives tests a store in a fresh temporary HOME, files
// laid out in it, and a git repository to resolve, without touching the
// real ~/.claude.
package storetest

import (
	"os"
	"path/filepath"
	"testing"

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

// Fixture is the path of a file in the repository's testdata folder, from
// a test of any package (the module root is the nearest folder above with
// a go.mod).
func Fixture(parts ...string) string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			panic("storetest: no go.mod above the test's folder")
		}
		dir = up
	}
	return filepath.Join(append([]string{dir, "testdata"}, parts...)...)
}
