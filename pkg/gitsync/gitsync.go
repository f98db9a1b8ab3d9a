// Package gitsync carries the private store between a person's machines
// through git: the store's durable part is a git repository (init, or join
// a remote that already holds a store), and a sync commits what changed,
// fetches, integrates and pushes, with the user's own git (credentials,
// ssh config, hooks).
//
// Nothing is merged by hand and nothing is lost: files that are one memory
// each (episodes, learned entries, review items, records) merge by
// construction; MEMORY.md and the topic files beside it merge as a union of
// lines, duplicates removed afterwards; when both machines changed one
// file, the newer version stays and the older is archived with where it
// came from — never a conflict marker in a memory file. What is derived or
// one machine's own (INDEX.md, the search index, status, caches, live
// checkpoints, project.json, locks, temporary files) stays out of git and
// is rebuilt after a sync. Before anything is committed, every file passes
// the redactor: one that still holds a secret stays on this machine, and
// the sync says which and why.
package gitsync

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/redact"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/syncstate"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Branch is the branch every machine syncs.
const Branch = "main"

// ignore is the store's .gitignore: what is derived or this machine's own.
const ignore = `# ccmem sync: what is derived or this machine's own stays out of git
# (rebuilt after a sync). Written by ccmem sync init; ccmem rewrites it.
.*
!/.gitignore
!/.gitattributes
Thumbs.db
desktop.ini
*.lock
/search/
/status.json
/import.json
/provenance.json
/sync/
/learned/.cache.tsv
/projects/*/INDEX.md
/projects/*/project.json
/projects/*/anchors
/projects/*/checkpoints/
`

// attributes is the store's .gitattributes: the line files merge as a
// union of both sides' lines.
const attributes = `# ccmem sync: MEMORY.md and the topic files beside it are lists of lines;
# two machines' additions are both kept (duplicates are removed after).
/*.md merge=union
`

// Syncer runs git on one store.
type Syncer struct {
	Env store.Env
	// Git is the git binary ("" looks it up on PATH).
	Git string
	// Machine names this machine in commits and archived copies.
	Machine string
	// Environ is added to the environment git runs with.
	Environ []string
	// Deletions says what to do when the remote deletes most of the
	// store (AskFirst: refuse, saying so).
	Deletions Deletions
}

// ErrNotSetUp is returned by Sync and Status in a store that is not a
// sync repository.
var ErrNotSetUp = errors.New("this store is not synced")

// ErrNoGit is returned when no git binary is found.
var ErrNoGit = errors.New("git is not installed (ccmem sync runs your git)")

// ErrOtherRemote is returned by Init in a store that syncs with another
// remote.
var ErrOtherRemote = errors.New("this store already syncs with")

// RefusedError is a remote whose history git refuses to take (an object
// its checks reject: a malformed commit, tree or tag). Nothing was taken
// from it; this machine's memory is committed here. Syncing goes on with
// another remote (Move).
type RefusedError struct {
	Remote string
	Why    string // git's first line about it
	Err    error
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("git refuses what the remote %s holds (%s): nothing was taken from it, and this machine's memory is kept and committed here", e.Remote, e.Why)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// refused tells a fetch git failed because its object checks rejected what
// the remote sent, and git's line saying so.
func refused(err error) (string, bool) {
	var ge *GitError
	if !errors.As(err, &ge) {
		return "", false
	}
	why, found := "", false
	for _, l := range strings.Split(ge.Stderr, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "error: object ") && why == "":
			// "error: object <id>: badEmail: invalid author/committer line"
			if _, rest, ok := strings.Cut(strings.TrimPrefix(l, "error: object "), ": "); ok {
				why = rest
			}
		case strings.Contains(l, "fsck error") || strings.Contains(l, "bad object") || strings.Contains(l, "invalid object"):
			found = true
			if why == "" {
				why = strings.TrimPrefix(strings.TrimPrefix(l, "fatal: "), "error: ")
			}
		}
	}
	return textfmt.Line(why), found
}

// ErrOldGit is returned for a git older than 2.38, which cannot merge
// without writing the store's files (merge-tree --write-tree).
var ErrOldGit = errors.New("ccmem sync needs git 2.38 or newer")

// checkVersion refuses a git too old to merge in its object store.
func (s *Syncer) checkVersion(ctx context.Context) error {
	out, err := s.git(ctx, "version")
	if err != nil {
		return err
	}
	// "git version 2.39.5", "git version 2.45.1.windows.1"
	f := strings.Fields(out)
	if len(f) < 3 {
		return nil
	}
	parts := strings.SplitN(f[2], ".", 3)
	if len(parts) < 2 {
		return nil
	}
	major, _ := strconv.Atoi(parts[0])
	minor, _ := strconv.Atoi(parts[1])
	if major < 2 || major == 2 && minor < 38 {
		return fmt.Errorf("%w (this is %s)", ErrOldGit, f[2])
	}
	return nil
}

func (s *Syncer) gitPath() (string, error) {
	if s.Git != "" {
		if _, err := exec.LookPath(s.Git); err != nil {
			return "", fmt.Errorf("%w at %s", ErrNoGit, s.Git)
		}
		return s.Git, nil
	}
	p, err := exec.LookPath("git")
	if err != nil {
		return "", ErrNoGit
	}
	return p, nil
}

// git runs git in the store and returns its trimmed output; a failure is
// the command and git's last line.
func (s *Syncer) git(ctx context.Context, args ...string) (string, error) {
	out, err := s.gitRaw(ctx, nil, args...)
	return strings.TrimSpace(string(out)), err
}

func (s *Syncer) gitRaw(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	g, err := s.gitPath()
	if err != nil {
		return nil, err
	}
	// Files are bytes: no line-ending conversion (Git for Windows turns it
	// on by default), so what is hashed is what is written.
	pre := []string{"-C", s.Env.Store, "-c", "core.autocrlf=false", "-c", "core.safecrlf=false"}
	if args[0] == "version" {
		pre = nil // asked before the store exists
	}
	// Another git in the store (a person's shell prompt running git status
	// there, say) may hold a lock for a moment: git gives up at once, so
	// wait it out briefly. git takes its lock before it changes anything,
	// so running the command again is safe.
	for wait := 50 * time.Millisecond; ; wait *= 2 {
		out, stderr, err := s.run(ctx, g, stdin, append(pre, args...))
		if err == nil {
			return out, nil
		}
		if lockHeld(stderr) && wait <= lockWait {
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
			}
		}
		msg := lastLine(stderr)
		if lock := heldLock(stderr); lock != "" {
			msg = "another git holds " + lock + " (if none runs in the store, remove that file)"
		}
		if msg == "" {
			msg = err.Error()
		}
		if len(stderr) > 8<<10 {
			stderr = stderr[:8<<10]
		}
		return out, &GitError{Args: args, Msg: msg, Stderr: stderr, Err: err}
	}
}

// lockWait is the longest single wait for another git's lock; the waits
// double from 50 ms, about 3 s in all.
const lockWait = 1600 * time.Millisecond

// lockHeld says git failed because another git holds one of its lock
// files ("Unable to create '…/index.lock': File exists.").
func lockHeld(stderr string) bool {
	return strings.Contains(stderr, ".lock': File exists")
}

// heldLock is the lock file git found taken, from its message.
func heldLock(stderr string) string {
	end := strings.Index(stderr, ".lock': File exists")
	if end < 0 {
		return ""
	}
	start := strings.LastIndex(stderr[:end], "'")
	if start < 0 {
		return ""
	}
	return stderr[start+1 : end+len(".lock")]
}

func (s *Syncer) run(ctx context.Context, g string, stdin []byte, args []string) ([]byte, string, error) {
	cmd := exec.CommandContext(ctx, g, args...)
	cmd.Env = s.env()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	return out, stderr.String(), err
}

// env is the environment git runs with.
func (s *Syncer) env() []string {
	return append(append(os.Environ(), s.Environ...),
		"GIT_TERMINAL_PROMPT=0", // never wait on a password prompt
		"LC_ALL=C",
		"GIT_MERGE_AUTOEDIT=no",
		// Reading (status) never takes the index lock to save a refreshed
		// index: a status asked while a sync runs would make its add fail.
		"GIT_OPTIONAL_LOCKS=0",
		// A path is a path, never a pattern (":(glob)…" is git's magic).
		"GIT_LITERAL_PATHSPECS=1",
	)
}

// GitError is a git command that failed.
type GitError struct {
	Args []string
	Msg  string
	// Stderr is what git said (its first 8 KB).
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	// The subcommand, past options such as -c name=value.
	sub := ""
	for i := 0; i < len(e.Args); i++ {
		if e.Args[i] == "-c" || e.Args[i] == "-C" {
			i++
			continue
		}
		if !strings.HasPrefix(e.Args[i], "-") {
			sub = e.Args[i]
			break
		}
	}
	if sub == "" && len(e.Args) > 0 {
		sub = e.Args[0]
	}
	return "git " + sub + ": " + e.Msg
}
func (e *GitError) Unwrap() error { return e.Err }

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "hint:") {
			return l
		}
	}
	return ""
}

// Init makes the store a git repository syncing with remote: on a first
// machine it pushes the store there; where the remote already holds a
// store, it joins it, the two stores merged (nothing lost). Run again with
// the same remote, it only syncs.
func (s *Syncer) Init(ctx context.Context, remote string) (syncstate.Report, error) {
	privateUmask()
	if strings.TrimSpace(remote) == "" || strings.HasPrefix(remote, "-") {
		return syncstate.Report{}, fmt.Errorf("%q is not a git remote", remote)
	}
	if _, err := s.gitPath(); err != nil {
		return syncstate.Report{}, err
	}
	if err := s.checkVersion(ctx); err != nil {
		return syncstate.Report{}, err
	}
	if err := os.MkdirAll(s.Env.Store, 0o700); err != nil {
		return syncstate.Report{}, err
	}
	unlock, err := store.Lock(syncstate.Dir(s.Env))
	if err != nil {
		return syncstate.Report{}, err
	}
	if syncstate.IsSetUp(s.Env) {
		cur, _ := s.git(ctx, "remote", "get-url", "origin")
		unlock()
		if cur != remote {
			return syncstate.Report{}, fmt.Errorf("%w %s, not %s", ErrOtherRemote, cur, remote)
		}
		return s.Sync(ctx)
	}
	for _, f := range []struct{ name, text string }{{".gitignore", ignore}, {".gitattributes", attributes}} {
		if err := store.WriteFileAtomic(filepath.Join(s.Env.Store, f.name), []byte(f.text)); err != nil {
			unlock()
			return syncstate.Report{}, err
		}
	}
	steps := [][]string{
		// Git's files get the store's modes (0600, folders 0700), as
		// ccmem's do: nothing in the store readable by another user.
		{"init", "-q", "--shared=0600"},
		{"symbolic-ref", "HEAD", "refs/heads/" + Branch},
		{"remote", "add", "-t", Branch, "--no-tags", "origin", "--", remote},
	}
	for _, args := range steps {
		if _, err := s.git(ctx, args...); err != nil {
			os.RemoveAll(filepath.Join(s.Env.Store, ".git"))
			unlock()
			return syncstate.Report{}, err
		}
	}
	privateTree(filepath.Join(s.Env.Store, ".git")) // what init made from its templates
	unlock()
	return s.Sync(ctx)
}

// Move makes the store sync with remote instead of the one it syncs with
// (one git refuses, one an attacker can write, one given up): what this
// machine holds, history and all, is pushed there, or, where remote
// already holds a store, joins it.
func (s *Syncer) Move(ctx context.Context, remote string) (syncstate.Report, error) {
	if strings.TrimSpace(remote) == "" || strings.HasPrefix(remote, "-") {
		return syncstate.Report{}, fmt.Errorf("%q is not a git remote", remote)
	}
	if !syncstate.IsSetUp(s.Env) {
		return s.Init(ctx, remote)
	}
	unlock, err := store.Lock(syncstate.Dir(s.Env))
	if err != nil {
		return syncstate.Report{}, err
	}
	_, err = s.git(ctx, "remote", "set-url", "origin", "--", remote)
	if err == nil {
		// What the old remote held is not the new one's.
		_, _ = s.git(ctx, "update-ref", "-d", "refs/remotes/origin/"+Branch)
	}
	unlock()
	if err != nil {
		return syncstate.Report{}, err
	}
	return s.Sync(ctx)
}

// Sync commits what changed here, fetches, integrates the remote's
// changes, pushes, and rebuilds what is derived; one sync at a time.
func (s *Syncer) Sync(ctx context.Context) (rep syncstate.Report, err error) {
	privateUmask()
	if !syncstate.IsSetUp(s.Env) {
		return syncstate.Report{}, ErrNotSetUp
	}
	unlock, err := store.Lock(syncstate.Dir(s.Env))
	if err != nil {
		return syncstate.Report{}, err
	}
	defer unlock()
	st := syncstate.ReadState(s.Env)
	st.Started, st.PID, st.Finished = s.Env.Time(), os.Getpid(), time.Time{}
	st.Remote, _ = s.git(ctx, "remote", "get-url", "origin")
	_ = syncstate.Write(s.Env, st)
	defer func() {
		st.PID, st.Finished, st.OK, st.Report, st.Error = 0, s.Env.Time(), err == nil, rep, ""
		if err != nil {
			st.Error = err.Error()
		}
		rep.When = st.Finished
		st.Report = rep
		_ = syncstate.Write(s.Env, st)
	}()
	if err := s.checkVersion(ctx); err != nil {
		return rep, err
	}
	if err := s.recover(ctx); err != nil {
		return rep, err
	}
	// Keep our own files current (an older ccmem may have written others).
	for _, f := range []struct{ name, text string }{{".gitignore", ignore}, {".gitattributes", attributes}} {
		path := filepath.Join(s.Env.Store, f.name)
		if old, _ := os.ReadFile(path); !bytes.Equal(old, []byte(f.text)) {
			if err := store.WriteFileAtomic(path, []byte(f.text)); err != nil {
				return rep, err
			}
		}
	}
	// A session that just ended here is an episode before anything is
	// committed: the other machines see it at their next sync, not when
	// the next session starts in its project here.
	if settled, err := session.SettleAll(ctx, s.Env, nil); err == nil {
		rep.Settled = len(settled.Archived)
	}
	if err := s.commitLocal(ctx, &rep, "ccmem sync from "+s.machine()); err != nil {
		return rep, err
	}
	for attempt := 0; ; attempt++ {
		if _, err := s.git(ctx, fetchArgs...); err != nil && !noBranchThere(err) {
			if why, ok := refused(err); ok {
				return rep, &RefusedError{Remote: st.Remote, Why: why, Err: err}
			}
			return rep, err
		}
		rep.Fetched = true
		theirs := "refs/remotes/origin/" + Branch
		if _, err := s.git(ctx, "rev-parse", "-q", "--verify", theirs); err == nil {
			if err := s.integrate(ctx, &rep, theirs); err != nil {
				return rep, err
			}
		} else if attempt == 0 {
			rep.RemoteEmpty = true // no machine has pushed there yet
		}
		_, err := s.git(ctx, "push", "-q", "origin", "HEAD:refs/heads/"+Branch)
		if err == nil {
			rep.Pushed = true
			break
		}
		if attempt == 2 {
			return rep, err
		}
		// Another machine pushed meanwhile: fetch and integrate again.
	}
	rep.Rebuilt = rebuild(ctx, s.Env)
	return rep, nil
}

// fetchArgs fetch the remote's branch with git's object checks on: a
// malformed object is refused. The checks of names (".git", "..", a
// hidden or full path, a submodule's settings) are left to carried, which
// refuses such a path alone and lets the rest sync: git's own would refuse
// the whole fetch, and a remote that once held such a tree would stop
// every later sync. Objects are inert in the object store; only carried
// files are ever written.
var fetchArgs = []string{
	"-c", "fetch.fsckObjects=true",
	"-c", "fetch.fsck.hasDot=ignore", "-c", "fetch.fsck.hasDotdot=ignore", "-c", "fetch.fsck.hasDotgit=ignore",
	"-c", "fetch.fsck.fullPathname=ignore", "-c", "fetch.fsck.emptyName=ignore",
	"-c", "fetch.fsck.gitmodulesName=ignore", "-c", "fetch.fsck.gitmodulesPath=ignore", "-c", "fetch.fsck.gitmodulesUrl=ignore",
	"-c", "fetch.fsck.gitmodulesSymlink=ignore", "-c", "fetch.fsck.gitmodulesBlob=ignore", "-c", "fetch.fsck.gitmodulesMissing=ignore",
	"-c", "fetch.fsck.gitmodulesLarge=ignore", "-c", "fetch.fsck.gitmodulesParse=ignore",
	"-c", "fetch.fsck.gitattributesSymlink=ignore", "-c", "fetch.fsck.gitattributesBlob=ignore",
	"-c", "fetch.fsck.gitattributesMissing=ignore", "-c", "fetch.fsck.gitattributesLarge=ignore",
	"-c", "fetch.fsck.gitattributesLineLength=ignore",
	// A tree holding a name twice, a malformed or zero-padded mode, an
	// unsorted tree, a null object id, a .gitmodules whose update runs a
	// command: carried refuses each entry (or never reads the file), and
	// git's refusal of the whole fetch would stop every later sync.
	"-c", "fetch.fsck.duplicateEntries=ignore", "-c", "fetch.fsck.zeroPaddedFilemode=ignore",
	"-c", "fetch.fsck.badFilemode=ignore", "-c", "fetch.fsck.treeNotSorted=ignore", "-c", "fetch.fsck.nullSha1=ignore",
	"-c", "fetch.fsck.gitmodulesUpdate=ignore",
	"fetch", "-q", "--no-tags", "--no-recurse-submodules", "origin",
}

// noBranchThere tells a fetch that failed because the remote has no
// branch yet (a new, empty remote): there is nothing to integrate.
func noBranchThere(err error) bool {
	var ge *GitError
	return errors.As(err, &ge) && strings.Contains(ge.Msg, "couldn't find remote ref refs/heads/"+Branch)
}

// fetchRefspec is the one branch a sync fetches: a remote's other
// branches and tags are not brought in.
const fetchRefspec = "+refs/heads/" + Branch + ":refs/remotes/origin/" + Branch

// staleLock is how old a git lock file left in the store's repository
// must be to be taken as a killed git's: a sync killed midway leaves its
// git running to the end (which removes its lock), a machine that lost
// power leaves the lock behind.
const staleLock = 10 * time.Second

// recover clears what a sync killed midway left: a merge in progress (all
// local changes were committed before it began, so aborting loses
// nothing) and git's lock files older than staleLock (syncs are one at a
// time under the sync lock and ccmem's own reads take no git lock, so a
// lock that old was left by a git that died).
func (s *Syncer) recover(ctx context.Context) error {
	// A store set up by an older ccmem fetched every branch and tag.
	if got, _ := s.git(ctx, "config", "--get-all", "remote.origin.fetch"); got != fetchRefspec {
		if _, err := s.git(ctx, "config", "--replace-all", "remote.origin.fetch", fetchRefspec); err != nil {
			return err
		}
	}
	gitDir := filepath.Join(s.Env.Store, ".git")
	// A store set up by an older ccmem: git wrote its files with the
	// umask's modes; from now on the store's, and the ones there are
	// made private once.
	if got, _ := s.git(ctx, "config", "--get", "core.sharedRepository"); got != "0600" {
		if _, err := s.git(ctx, "config", "core.sharedRepository", "0600"); err != nil {
			return err
		}
		privateTree(gitDir)
	}
	for _, l := range []string{"index.lock", "HEAD.lock", "ORIG_HEAD.lock", filepath.Join("refs", "heads", Branch+".lock"), filepath.Join("refs", "remotes", "origin", Branch+".lock")} {
		p := filepath.Join(gitDir, l)
		if fi, err := os.Lstat(p); err == nil && s.Env.Time().Sub(fi.ModTime()) > staleLock {
			os.Remove(p)
		}
	}
	if _, err := os.Lstat(filepath.Join(gitDir, "MERGE_HEAD")); err == nil {
		if _, err := s.git(ctx, "merge", "--abort"); err != nil {
			if _, err := s.git(ctx, "reset", "-q", "--merge"); err != nil {
				return err
			}
		}
	}
	return nil
}

// privateTree takes group and other permissions off everything under dir
// (no symlink followed).
func privateTree(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Mode().Perm()&0o077 != 0 {
			_ = os.Chmod(p, fi.Mode().Perm()&^0o077)
		}
		return nil
	})
}

// machine names this machine in commit messages and archived copies:
// Machine (CCMEM_MACHINE) or the host name, on one line, redacted, then
// shortened (it leaves the machine in every commit).
func (s *Syncer) machine() string {
	name := s.Machine
	if name == "" {
		name, _ = os.Hostname()
	}
	name, _ = redact.Shorten(strings.TrimSpace(textfmt.Line(name)), 64)
	if name == "" {
		return "this machine"
	}
	return name
}

// identity is the committer git falls back to when the user set none.
func (s *Syncer) identity(ctx context.Context) []string {
	if email, _ := s.git(ctx, "config", "user.email"); email != "" {
		return nil
	}
	return []string{"-c", "user.name=ccmem on " + s.machine(), "-c", "user.email=ccmem@localhost"}
}

// commitLocal stages every change, unstages each file that must not
// leave this machine (it stays here, reported), and commits the rest.
// Every path the commit changes is checked as git will commit it: renames
// are an addition and a deletion, a type change is a change, the contents
// are read from the staged blob (not the file, which may change
// meanwhile), whatever its size, and the name itself passes the redactor.
func (s *Syncer) commitLocal(ctx context.Context, rep *syncstate.Report, message string) error {
	if _, err := s.git(ctx, "add", "-A"); err != nil {
		return err
	}
	// This machine's settings are never committed (see localOnly).
	if out, err := s.gitRaw(ctx, nil, "diff", "--cached", "--name-only", "-z", "--no-renames"); err == nil {
		var mine []string
		for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			if localOnly(rel) {
				mine = append(mine, rel)
			}
		}
		if len(mine) > 0 {
			if _, err := s.gitRaw(ctx, []byte(strings.Join(mine, "\x00")), "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
				return err
			}
		}
	}
	out, err := s.gitRaw(ctx, nil, "diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev")
	if err != nil {
		return err
	}
	type staged struct{ rel, mode, obj string }
	var check []staged
	items := bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0})
	for i := 0; i+1 < len(items); i += 2 {
		// :<old mode> <new mode> <old object> <new object> <status>, then the path
		f := strings.Fields(strings.TrimPrefix(string(items[i]), ":"))
		if len(f) != 5 || f[4] == "D" {
			continue // a deletion leaks nothing
		}
		check = append(check, staged{string(items[i+1]), f[1], f[3]})
	}
	var objs []string
	for _, c := range check {
		if c.mode == "100644" || c.mode == "100755" {
			objs = append(objs, c.obj)
		}
	}
	found, err := s.blobSecrets(ctx, objs)
	if err != nil {
		return err
	}
	var held []string
	for _, c := range check {
		var kinds []string
		if !ownFiles[c.rel] {
			if why := carried(c.rel, c.mode); why != "" {
				kinds = append(kinds, "not a file sync carries: "+why)
			}
		}
		if k := kindsOf(redact.String(c.rel)); len(k) > 0 {
			kinds = append(kinds, "in its name: "+strings.Join(k, ", "))
		}
		kinds = append(kinds, found[c.obj]...)
		if len(kinds) == 0 {
			continue
		}
		held = append(held, c.rel)
		shown, _ := redact.String(c.rel)
		rep.Held = append(rep.Held, syncstate.Held{Path: shown, Kinds: kinds})
	}
	if len(held) > 0 {
		if _, err := s.gitRaw(ctx, []byte(strings.Join(held, "\x00")), "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return err
		}
	}
	if _, err := s.git(ctx, "diff", "--cached", "--quiet"); err == nil {
		return nil // nothing staged
	}
	n, _ := s.gitRaw(ctx, nil, "diff", "--cached", "--name-only", "-z")
	rep.Committed += bytes.Count(n, []byte{0})
	_, err = s.git(ctx, append(s.identity(ctx), "commit", "-q", "-m", message)...)
	return err
}

// maxChecked is the largest file the redactor reads whole; a larger one is
// held, like one with a secret.
const maxChecked = 64 << 20

// blobSecrets reads each blob as git will commit it and names the kinds of
// secret the redactor finds in it; a blob too large to check whole is
// held as if it had one.
func (s *Syncer) blobSecrets(ctx context.Context, objs []string) (map[string][]string, error) {
	found := map[string][]string{}
	if len(objs) == 0 {
		return found, nil
	}
	g, err := s.gitPath()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, g, "-C", s.Env.Store, "cat-file", "--batch")
	cmd.Env = s.env()
	cmd.Stdin = strings.NewReader(strings.Join(objs, "\n") + "\n")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(stdout, 64<<10)
	var readErr error
	for range objs {
		// <object> SP <type> SP <size> LF <contents> LF
		head, err := r.ReadString('\n')
		if err != nil {
			readErr = err
			break
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			readErr = fmt.Errorf("git cat-file: %q", strings.TrimSpace(head))
			break
		}
		size, _ := strconv.ParseInt(f[2], 10, 64)
		if size > maxChecked {
			found[f[0]] = []string{"over 64 MB, too large to check for secrets"}
			if _, err := r.Discard(int(size) + 1); err != nil {
				readErr = err
				break
			}
			continue
		}
		data := make([]byte, size+1)
		if _, err := io.ReadFull(r, data); err != nil {
			readErr = err
			break
		}
		if k := kindsOf(redact.String(string(data[:size]))); len(k) > 0 {
			found[f[0]] = k
		}
	}
	if readErr != nil {
		cmd.Process.Kill()
	}
	if err := cmd.Wait(); err != nil && readErr == nil {
		readErr = err
	}
	if readErr != nil {
		return nil, &GitError{Args: []string{"cat-file"}, Msg: readErr.Error(), Err: readErr}
	}
	return found, nil
}

// kindsOf lists the kinds of secret the redactor replaced in out (n of
// them).
func kindsOf(out string, n int) []string {
	if n == 0 {
		return nil
	}
	var kinds []string
	for rest := out; ; {
		i := strings.Index(rest, "[REDACTED:")
		if i < 0 {
			break
		}
		rest = rest[i+len("[REDACTED:"):]
		if j := strings.IndexByte(rest, ']'); j > 0 && !slices.Contains(kinds, rest[:j]) {
			kinds = append(kinds, rest[:j])
		}
	}
	if len(kinds) == 0 {
		kinds = []string{"a secret"}
	}
	return kinds
}

// rebuild heals what is derived from the synced files: each project's
// INDEX.md. (The search index and the status cache follow their sources'
// stamps by themselves.)
func rebuild(ctx context.Context, e store.Env) int {
	n := 0
	ents, _ := os.ReadDir(e.ProjectsDir())
	for _, de := range ents {
		if de.IsDir() && store.ValidKey(de.Name()) {
			if changed, err := session.HealIndex(ctx, e, de.Name()); err == nil && changed {
				n++
			}
		}
	}
	return n
}

// Status is where the store stands against its remote.
type Status struct {
	SetUp   bool            `json:"set_up"`
	Remote  string          `json:"remote,omitempty"`
	Changed int             `json:"changed"` // files changed here since the last sync
	Ahead   int             `json:"ahead"`   // commits here the remote has not seen
	Behind  int             `json:"behind"`  // commits there not integrated (as of the last fetch)
	Last    syncstate.State `json:"last"`
	Running bool            `json:"running"`
}

// Status reads the repository's state without touching the network.
func (s *Syncer) Status(ctx context.Context) (Status, error) {
	st := Status{SetUp: syncstate.IsSetUp(s.Env), Last: syncstate.ReadState(s.Env)}
	if !st.SetUp {
		return st, nil
	}
	// A sync killed midway never says it finished: it counts as running
	// only within the time a sync may take.
	st.Running = st.Last.PID != 0 && st.Last.Finished.IsZero() && s.Env.Time().Sub(st.Last.Started) < syncstate.MaxDuration
	st.Remote, _ = s.git(ctx, "remote", "get-url", "origin")
	out, err := s.gitRaw(ctx, nil, "status", "--porcelain", "-z")
	if err != nil {
		return st, err
	}
	for _, e := range bytes.Split(out, []byte{0}) {
		if len(e) > 3 && e[2] == ' ' && !localOnly(string(e[3:])) {
			st.Changed++
		}
	}
	if counts, err := s.git(ctx, "rev-list", "--left-right", "--count", "HEAD...refs/remotes/origin/"+Branch); err == nil {
		if a, b, ok := strings.Cut(counts, "\t"); ok {
			st.Ahead, _ = strconv.Atoi(a)
			st.Behind, _ = strconv.Atoi(b)
		}
	}
	return st, nil
}
