package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Project is the identity of the project a session runs in.
type Project struct {
	// Root is the canonical root: the main working tree of a git repository
	// (for a linked worktree too), else the real path of the directory.
	Root string `json:"root"`
	// Key names the project's folder in the store: the Claude Code slug of
	// Root, with a hash suffix if another root already holds that slug.
	Key string `json:"key"`
	// Git tells whether Root is a git working tree.
	Git bool `json:"git"`
	// Remote is the URL of the "origin" remote (or the first one), if any.
	Remote string `json:"remote,omitempty"`
}

// ResolveProject finds the project that dir belongs to, without running git.
func ResolveProject(e Env, dir string) (Project, error) {
	if dir == "" {
		return Project{}, errors.New("no working directory given")
	}
	real, err := filepath.EvalSymlinks(absClean(dir))
	if err != nil {
		return Project{}, e.PathError(dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return Project{}, e.PathError(dir, err)
	}
	if !fi.IsDir() {
		return Project{}, fmt.Errorf("%s: not a directory", e.Tilde(dir))
	}
	p := Project{Root: real}
	if root, gitDir, ok := findGitRoot(real); ok {
		p.Root, p.Git = root, true
		p.Remote = gitRemote(gitDir)
	}
	p.Key, p.Root = e.keyFor(p.Root)
	return p, nil
}

// findGitRoot walks up from dir to the nearest folder holding .git and
// returns the canonical working tree and the git folder holding config.
func findGitRoot(dir string) (root, commonDir string, ok bool) {
	for d := dir; ; {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dotgit); err == nil {
			switch {
			case fi.IsDir():
				return d, dotgit, true
			case fi.Mode().IsRegular():
				if r, c, ok := resolveGitFile(d, dotgit); ok {
					return r, c, true
				}
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", false
		}
		d = parent
	}
}

// resolveGitFile follows a ".git" file ("gitdir: …"), as a linked worktree or
// a submodule has. A worktree's git dir names the shared repository in
// "commondir"; its main working tree is the folder holding that repository.
func resolveGitFile(worktree, dotgit string) (root, commonDir string, ok bool) {
	data, err := ReadSmallFile(dotgit, 64<<10)
	if err != nil {
		return "", "", false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	gitdir, found := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !found {
		return "", "", false
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(worktree, gitdir)
	}
	gitdir = evalOr(gitdir)
	common, err := ReadSmallFile(filepath.Join(gitdir, "commondir"), 64<<10)
	if err != nil {
		// A submodule (or a plain gitdir link): its own root.
		return worktree, gitdir, true
	}
	cd := strings.TrimSpace(string(common))
	if !filepath.IsAbs(cd) {
		cd = filepath.Join(gitdir, cd)
	}
	cd = evalOr(cd)
	if filepath.Base(cd) == ".git" {
		if main := filepath.Dir(cd); isDir(main) {
			return main, cd, true
		}
	}
	// A worktree of a bare repository has no main working tree.
	return worktree, cd, true
}

func evalOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// gitRemote reads the URL of "origin", else of the first remote, from the
// repository's config file.
func gitRemote(commonDir string) string {
	data, err := ReadSmallFile(filepath.Join(commonDir, "config"), 1<<20)
	if err != nil {
		return ""
	}
	var first, origin, section string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "url" || !strings.HasPrefix(section, "[remote ") {
			continue
		}
		v = strings.TrimSpace(v)
		if first == "" {
			first = v
		}
		if section == `[remote "origin"]` {
			origin = v
		}
	}
	if origin != "" {
		return origin
	}
	return first
}

// keyFor is the store key of a project root: its slug, unless the store
// already holds that slug for a different root (slugs are lossy:
// "/a/b-c" and "/a/b/c" share one), in which case a hash of the root is
// appended so two projects never share a folder. On a case-insensitive
// file system (macOS and Windows by default) one folder has many spellings
// (/Users/me/Shop, /users/me/shop); the one recorded first is the root, so
// the project keeps one key and one folder.
func (e Env) keyFor(root string) (key, canonical string) {
	slug := Slug(root)
	owner, ok := e.keyOwner(slug)
	switch {
	case !ok || owner == root:
		return slug, root
	case sameDir(owner, root):
		return slug, owner
	}
	sum := sha256.Sum256([]byte(root))
	return slug + "-" + hex.EncodeToString(sum[:4]), root
}

// sameDir tells whether two spellings of a path name the same folder (as
// they do when they differ only in case on a case-insensitive file system).
func sameDir(a, b string) bool {
	if !strings.EqualFold(a, b) {
		return false
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// keyOwner reads the root recorded in a key's project.json.
func (e Env) keyOwner(key string) (string, bool) {
	data, err := ReadSmallFile(e.ProjectFile(key), 1<<20)
	if err != nil {
		return "", false
	}
	var p Project
	if json.Unmarshal(data, &p) != nil || p.Root == "" {
		return "", false
	}
	return p.Root, true
}

// ClaimProject records the project's identity in its store folder, creating
// the folder; every writer calls it before writing there, so the key stays
// bound to this root.
func ClaimProject(e Env, p Project) error {
	path := e.ProjectFile(p.Key)
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if old, err := ReadSmallFile(path, 1<<20); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return WriteFileAtomic(path, data)
}

// ProjectRoot is the root recorded for a store key, or "".
func (e Env) ProjectRoot(key string) string {
	root, _ := e.keyOwner(key)
	return root
}
