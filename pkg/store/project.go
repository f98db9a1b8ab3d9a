package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

	// claimed is set when project.json already records exactly this
	// project: claiming it again writes nothing (and reads nothing).
	claimed bool
	// gitDir and remoteName are where the repository's objects and refs
	// are, and the remote Remote comes from: what binds a remote key.
	gitDir, remoteName string
	// needAnchor is set when the project holds its remote's key and the
	// key's folder does not yet say which repository it belongs to.
	needAnchor bool
	// migrateTo is set when Key is the folder this project had before it
	// was keyed by its remote: the first claim moves it there.
	migrateTo string
}

// ResolveProject finds the project that dir belongs to, without running git.
func ResolveProject(e Env, dir string) (Project, error) {
	return resolveProject(e, dir, 3)
}

func resolveProject(e Env, dir string, retries int) (Project, error) {
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
		p.Root, p.Git, p.gitDir = root, true, gitDir
		p.remoteName, p.Remote = gitRemote(gitDir)
	}
	var recorded []byte
	if p.Remote != "" {
		if key, root, rec, ok := e.remoteKeyFor(p); ok {
			p.Key, p.Root, recorded = key, root, rec
			p.needAnchor = !e.hasAnchor(key)
			p.claimed = recorded != nil && bytes.Equal(recorded, p.record()) && !p.needAnchor
			return p, nil
		}
		// Another clone of the same remote on this machine holds the
		// remote's key: this one is keyed by its path, as before.
	}
	p.Key, p.Root, recorded = e.keyFor(p.Root)
	if k := RemoteKey(p.Remote); k != "" {
		owner, data, owned := e.keyOwner(k)
		switch {
		case !owned:
			if old, found := e.pathKeyOf(p.Root, p.Remote); found && e.bound(k, p) {
				p.Key, p.migrateTo = old, k // a store from before remotes keyed projects
			} else if recorded != nil && retries > 0 {
				// The folder found a moment ago is gone: another process
				// is moving it to the remote's key. Look again.
				return resolveProject(e, dir, retries-1)
			}
		case owner == p.Root || sameDir(owner, p.Root):
			// Another process moved the old folder to the remote's key
			// since it was looked for: follow it, or the claim would
			// make the old folder again beside the moved one.
			p.Key, p.Root, recorded = k, owner, data
		}
	}
	p.claimed = recorded != nil && p.migrateTo == "" && bytes.Equal(recorded, p.record())
	return p, nil
}

// RemoteKey is the store key of a project with a git remote: the same on
// every machine, so a project's private memory syncs as one project
// whatever folder it is cloned into; "" for no remote. It is "git-", the
// remote's host and path as a slug (for a reader), and a hash of the
// normalised remote, which no two remotes share: the slugs of
// github.com/acme/payments-api and github.com/acme-payments/api agree,
// their keys do not.
func RemoteKey(remote string) string {
	n := NormalizeRemote(remote)
	if n == "" {
		return ""
	}
	slug := strings.Trim(Slug(n), "-")
	if len(slug) > 120 {
		slug = strings.TrimRight(slug[:120], "-")
	}
	sum := sha256.Sum256([]byte(n))
	return "git-" + slug + "-" + hex.EncodeToString(sum[:8])
}

// legacyRemoteKey is the key a remote had before keys held a hash (two
// remotes could share it); a folder under it moves to RemoteKey.
func legacyRemoteKey(remote string) string {
	n := NormalizeRemote(remote)
	if n == "" {
		return ""
	}
	return "git-" + strings.Trim(Slug(n), "-")
}

// NormalizeRemote is a remote's host and path, lower case, without scheme,
// user, credentials, port, ".git" or trailing slashes: the clone URLs
// git@github.com:Ana/Shop.git, ssh://git@github.com:22/ana/shop and
// https://token@github.com/ana/shop/ are one github.com/ana/shop. A local
// path stays a path.
func NormalizeRemote(u string) string {
	u = strings.TrimSpace(u)
	if u == "" {
		return ""
	}
	var host, path string
	if scheme, rest, ok := strings.Cut(u, "://"); ok {
		if scheme == "file" {
			return strings.ToLower(strings.TrimSuffix(strings.TrimRight(rest, "/"), ".git"))
		}
		host, path, _ = strings.Cut(rest, "/")
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = host[i+1:]
		}
		if h, _, ok := strings.Cut(host, ":"); ok {
			host = h // a port
		}
	} else if at, rest, ok := strings.Cut(u, ":"); ok && !strings.ContainsAny(at, `/\`) && len(at) > 1 {
		// scp-like: [user@]host:path
		host, path = at, rest
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = host[i+1:]
		}
	} else {
		return strings.ToLower(strings.TrimSuffix(strings.TrimRight(filepath.ToSlash(u), "/"), ".git"))
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || path == "" {
		return ""
	}
	return strings.ToLower(host + "/" + path)
}

// remoteKeyFor is the key of a project with a remote: the remote's key
// unless another folder of this machine holds it, or the key's memory
// belongs to a repository this one cannot show it is (ok false then).
func (e Env) remoteKeyFor(p Project) (key, canonical string, recorded []byte, ok bool) {
	root := p.Root
	key = RemoteKey(p.Remote)
	if key == "" {
		return "", "", nil, false
	}
	owner, data, owned := e.keyOwner(key)
	switch {
	case !owned:
		// Free, or synced from another machine (project.json is this
		// machine's own and never synced) — unless a folder from before
		// holds this project: then that folder, until the first write
		// moves it (see ClaimProject).
		if _, found := e.pathKeyOf(root, p.Remote); found {
			return "", "", nil, false
		}
		if !e.bound(key, p) {
			return "", "", nil, false
		}
		return key, root, nil, true
	case owner == root:
		return key, root, data, true
	case sameDir(owner, root):
		return key, owner, data, true
	case e.proves(key, p) && !e.ownerProves(key, owner):
		// Held by a folder that cannot show it is this repository (one
		// that only named the remote, or is gone): the clone takes it.
		return key, root, nil, true
	}
	return "", "", nil, false
}

// ownerProves tells whether the folder at root, which holds the remote key
// key, can show it is a clone of the key's repository (see proves).
func (e Env) ownerProves(key, root string) bool {
	gitRoot, gitDir, ok := findGitRoot(root)
	if !ok || gitRoot != root && !sameDir(gitRoot, root) {
		return false
	}
	o := Project{Root: root, gitDir: gitDir}
	o.remoteName, o.Remote = gitRemote(gitDir)
	return RemoteKey(o.Remote) == key && e.proves(key, o)
}

// bound tells whether p may take the remote key key on this machine, where
// no folder holds it yet: p's repository holds a commit an anchor of the
// key names (repository.json, synced with the folder, written by the first
// machine that claimed the key, and every anchor this machine saw: see
// AddAnchors). A folder copied from elsewhere (an archive, not a clone)
// whose .git/config names a remote the person has private memory for does
// not get that memory: its objects lack the commit; and a remote that
// rewrites repository.json cannot take the memory from the clone, where
// this machine saw the true anchor before. A key with no anchor and no
// memory is free; one with memory but no anchor waits for the machine that
// owns it to write one (meanwhile p keeps its path key). A folder that took
// a free key and cannot show it is the repository gives it up to one that
// can (see remoteKeyFor).
func (e Env) bound(key string, p Project) bool {
	if anchors := e.anchors(key); len(anchors) > 0 {
		return p.holdsAny(anchors)
	}
	ents, err := os.ReadDir(e.ProjectDir(key))
	return err != nil || len(ents) == 0
}

// holdsAny tells whether p's repository holds one of the commits.
func (p Project) holdsAny(commits []string) bool {
	return p.gitDir != "" && slices.ContainsFunc(commits, func(c string) bool { return hasObject(p.gitDir, c) })
}

// fetched tells whether p's repository fetched from its remote: the
// remote's branch is recorded and its commit is in the objects.
func (p Project) fetched() bool {
	c := remoteHead(p.gitDir, p.remoteName)
	return c != "" && hasObject(p.gitDir, c)
}

// proves tells whether p may hold the remote key key on this machine: as
// bound, but for a key it holds already (its folder has memory then).
func (e Env) proves(key string, p Project) bool {
	if anchors := e.anchors(key); len(anchors) > 0 {
		return p.holdsAny(anchors)
	}
	return p.fetched()
}

// anchors are the commits that bind the remote key key: repository.json's,
// and those this machine saw before (AddAnchors).
func (e Env) anchors(key string) []string {
	var out []string
	if a, err := e.readAnchor(key); err == nil {
		out = append(out, a.Commit)
	}
	if data, err := ReadSmallFile(e.KnownAnchorsPath(key), 1<<20); err == nil {
		for _, l := range strings.Fields(string(data)) {
			if validObjectID(l) && !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

// AddAnchors records commits that bound the remote key key in the anchors
// this machine has seen (its own file beside repository.json, never
// synced): a repository.json a remote rewrites later cannot unbind the
// clone that holds one of them. Ids that are not commit ids are skipped.
func AddAnchors(e Env, key string, commits []string) error {
	if !ValidKey(key) {
		return fmt.Errorf("%q is not a store key", key)
	}
	have := e.anchors(key)
	var add []string
	for _, c := range commits {
		if validObjectID(c) && !slices.Contains(have, c) && !slices.Contains(add, c) {
			add = append(add, c)
		}
	}
	if len(add) == 0 {
		return nil
	}
	unlock, err := Lock(e.ProjectDir(key))
	if err != nil {
		return err
	}
	defer unlock()
	old, _ := ReadSmallFile(e.KnownAnchorsPath(key), 1<<20)
	return WriteFileAtomicIn(e.ProjectDir(key), e.KnownAnchorsPath(key), append(old, []byte(strings.Join(add, "\n")+"\n")...))
}

// Anchor is what a remote key's folder says of its repository:
// repository.json, synced with the folder, written by the first machine
// that claimed the key, with a commit the remote's default branch had.
type Anchor struct {
	Remote string `json:"remote"`
	Commit string `json:"commit"`
}

func (e Env) readAnchor(key string) (Anchor, error) {
	var a Anchor
	data, err := ReadSmallFile(e.AnchorPath(key), 64<<10)
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return a, err
	}
	if !validObjectID(a.Commit) {
		return a, fmt.Errorf("%s: not a commit id", e.AnchorPath(key))
	}
	return a, nil
}

func (e Env) hasAnchor(key string) bool {
	_, err := os.Lstat(e.AnchorPath(key))
	return err == nil
}

// writeAnchor records, once, which repository p's remote key belongs to:
// the commit its remote's default branch had when this clone last
// fetched. A clone that never fetched has none yet; a later claim writes
// it.
func (e Env) writeAnchor(p Project) error {
	if p.Key == "" || p.Key != RemoteKey(p.Remote) || e.hasAnchor(p.Key) {
		return nil
	}
	commit := remoteHead(p.gitDir, p.remoteName)
	if commit == "" {
		return nil
	}
	data, _ := json.MarshalIndent(Anchor{Remote: NormalizeRemote(p.Remote), Commit: commit}, "", "  ")
	err := createExclusive(e.AnchorPath(p.Key), append(data, '\n'))
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err == nil {
		err = AddAnchors(e, p.Key, []string{commit})
	}
	return err
}

// pathKeyOf is the folder from before this project was keyed by its
// remote's key (keyed by root's path, its slug or the slug and a hash, or
// by the remote's older key) whose project.json names root, if there is
// one.
func (e Env) pathKeyOf(root, remote string) (string, bool) {
	for _, k := range []string{Slug(root), hashedKey(root), legacyRemoteKey(remote)} {
		if k == "" {
			continue
		}
		if owner, _, ok := e.keyOwner(k); ok && (owner == root || sameDir(owner, root)) {
			return k, true
		}
	}
	return "", false
}

// migrateProject moves a project's folder from its path key to its remote
// key, under the projects lock; when the remote's folder already holds
// memory synced from another machine, the two are merged, nothing lost.
// Another process may have moved it meanwhile: then it only follows.
func migrateProject(e Env, p Project) (Project, error) {
	unlock, err := Lock(e.ProjectsDir())
	if err != nil {
		return p, err
	}
	defer unlock()
	to := p.migrateTo
	p.migrateTo = ""
	if owner, _, ok := e.keyOwner(to); ok {
		if owner == p.Root || sameDir(owner, p.Root) {
			p.Key = to // moved by another process
		}
		return p, nil
	}
	if owner, _, ok := e.keyOwner(p.Key); !ok || (owner != p.Root && !sameDir(owner, p.Root)) {
		return p, nil
	}
	from, dest := e.ProjectDir(p.Key), e.ProjectDir(to)
	if _, err := os.Lstat(dest); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(from, dest); err != nil {
			return p, err
		}
	} else if err := mergeFolder(from, dest); err != nil {
		return p, err
	}
	p.Key = to
	return p, SyncDir(e.ProjectsDir())
}

// mergeFolder moves every file of from into to: a file to lacks moves,
// one it holds the same bytes of goes, and one it holds different bytes
// of is kept beside it as NAME.pre-migration (never read as memory); the
// episode menu is left to be rebuilt (INDEX.md is derived). Links are
// moved as links, never followed.
func mergeFolder(from, to string) error {
	var moves [][2]string
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		moves = append(moves, [2]string{path, filepath.Join(to, rel)})
		return nil
	})
	if err != nil {
		return err
	}
	for _, m := range moves {
		src, dst := m[0], m[1]
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			if err := os.Rename(src, dst); err != nil {
				return err
			}
			continue
		}
		a, errA := os.ReadFile(src)
		b, errB := os.ReadFile(dst)
		switch {
		case filepath.Base(dst) == "INDEX.md":
			os.Remove(src)
		case filepath.Base(dst) == "project.json":
			if err := os.Rename(src, dst); err != nil { // this machine's identity
				return err
			}
		case errA == nil && errB == nil && bytes.Equal(a, b):
			os.Remove(src)
		default:
			if err := os.Rename(src, dst+".pre-migration"); err != nil {
				return err
			}
		}
	}
	return os.RemoveAll(from)
}

// record is the project's project.json.
func (p Project) record() []byte {
	data, _ := json.MarshalIndent(p, "", "  ")
	return append(data, '\n')
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

// gitRemote reads the name and URL of "origin", else of the first
// remote, from the repository's config file.
func gitRemote(commonDir string) (name, url string) {
	data, err := ReadSmallFile(filepath.Join(commonDir, "config"), 1<<20)
	if err != nil {
		return "", ""
	}
	var firstName, first, origin, section string
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
			firstName = strings.Trim(strings.TrimSuffix(strings.TrimPrefix(section, "[remote "), "]"), `"`)
		}
		if section == `[remote "origin"]` {
			origin = v
		}
	}
	if origin != "" {
		return "origin", PublicRemote(origin)
	}
	return firstName, PublicRemote(first)
}

// PublicRemote is a remote's URL without the credentials a URL may carry
// (https://user:token@host/… → https://host/…): a remote is written into
// project.json and episodes, and may be pushed.
func PublicRemote(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u // user@host:path (scp-like) names a user, no secret
	}
	host, path, _ := strings.Cut(rest, "/")
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if path == "" && !strings.HasSuffix(rest, "/") {
		return scheme + "://" + host
	}
	return scheme + "://" + host + "/" + path
}

// keyFor is the store key of a project root: its slug, unless the store
// already holds that slug for a different root (slugs are lossy:
// "/a/b-c" and "/a/b/c" share one), in which case a hash of the root is
// appended so two projects never share a folder. On a case-insensitive
// file system (macOS and Windows by default) one folder has many spellings
// (/Users/me/Shop, /users/me/shop); the one recorded first is the root, so
// the project keeps one key and one folder.
// It also returns the key's project.json, when it was read and names the
// root.
func (e Env) keyFor(root string) (key, canonical string, recorded []byte) {
	slug := Slug(root)
	owner, data, ok := e.keyOwner(slug)
	switch {
	case !ok:
		return slug, root, nil
	case owner == root:
		return slug, root, data
	case sameDir(owner, root):
		return slug, owner, data
	}
	return hashedKey(root), root, nil
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
func (e Env) keyOwner(key string) (string, []byte, bool) {
	data, err := ReadSmallFile(e.ProjectFile(key), 1<<20)
	if err != nil {
		return "", nil, false
	}
	var p Project
	if json.Unmarshal(data, &p) != nil || p.Root == "" {
		return "", nil, false
	}
	return p.Root, data, true
}

// ClaimProject binds the project's key to its root in the store and
// returns the project as claimed. Two roots with one lossy slug ("/x/a-b",
// "/x/a/b") started at the same moment both resolve to the bare slug; the
// claim is an exclusive create of project.json, so exactly one gets it and
// the other the slug plus a hash. Every writer claims before writing in the
// project's folder.
func ClaimProject(e Env, p Project) (Project, error) {
	if p.claimed {
		return p, nil
	}
	p, err := claimProject(e, p)
	if err == nil && p.Key != "" && p.Key == RemoteKey(p.Remote) && !e.hasAnchor(p.Key) {
		if err := e.writeAnchor(p); err != nil {
			return p, err
		}
	}
	return p, err
}

func claimProject(e Env, p Project) (Project, error) {
	if p.migrateTo != "" {
		var err error
		if p, err = migrateProject(e, p); err != nil {
			return p, err
		}
	}
	for range 3 {
		data := p.record()
		path := e.ProjectFile(p.Key)
		if old, err := ReadSmallFile(path, 1<<20); err == nil {
			var q Project
			if json.Unmarshal(old, &q) == nil && q.Root != "" && q.Root != p.Root && !sameDir(q.Root, p.Root) {
				if p.Key == RemoteKey(p.Remote) && e.proves(p.Key, p) && !e.ownerProves(p.Key, q.Root) {
					// The clone takes its key from a folder that cannot
					// show it is this repository (see remoteKeyFor).
					p.claimed = true
					return p, WriteFileAtomic(path, data)
				}
				p.Key = hashedKey(p.Root) // claimed by another root meanwhile
				continue
			}
			p.claimed = true
			if bytes.Equal(old, data) {
				return p, nil
			}
			return p, WriteFileAtomic(path, data) // same project, new facts (a remote)
		}
		err := createExclusive(path, data)
		if errors.Is(err, fs.ErrExist) {
			continue // claimed meanwhile: read who has it
		}
		p.claimed = err == nil
		return p, err
	}
	return p, fmt.Errorf("cannot claim a store folder for %s", e.Tilde(p.Root))
}

// hashedKey is the key of a root whose slug another root owns.
func hashedKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return Slug(root) + "-" + hex.EncodeToString(sum[:4])
}

// createExclusive writes a new file at path with data, durably, failing
// with fs.ErrExist when path exists: the file appears whole or not at all.
func createExclusive(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+tmpMark+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// ProjectRoot is the root recorded for a store key, or "".
func (e Env) ProjectRoot(key string) string {
	root, _, _ := e.keyOwner(key)
	return root
}

// ProjectAt is the project whose root is the folder root, as ResolveProject
// would find it, for a folder that may no longer exist (a transcript's cwd
// from months ago): when it is gone, root is taken as it is (no git, no
// remote), keyed as ResolveProject keys it.
func ProjectAt(e Env, root string) Project {
	if p, err := ResolveProject(e, root); err == nil {
		return p
	}
	p := Project{Root: filepath.Clean(root)}
	var recorded []byte
	p.Key, p.Root, recorded = e.keyFor(p.Root)
	p.claimed = recorded != nil && bytes.Equal(recorded, p.record())
	return p
}

// ProjectKeyOf is the key of the project whose store folder holds path
// ("" for a path outside every project's folder, or the folder itself).
func (e Env) ProjectKeyOf(path string) string {
	rel, err := filepath.Rel(e.ProjectsDir(), path)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return ""
	}
	key, rest, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if rest == "" || !ValidKey(key) {
		return ""
	}
	return key
}
