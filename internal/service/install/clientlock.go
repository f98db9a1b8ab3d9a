package install

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The client's own lock on .claude.json. Claude Code saves that file
// (every start, every change of its state) under a lock it takes with the
// proper-lockfile scheme: the folder <file>.lock, made with mkdir (which
// only one process can do), its modification time refreshed while held,
// and taken over when older than ten seconds (its holder died). ccmem
// edits the file under the same lock, so no save of the client's falls
// between ccmem's read and its write (a compare and swap alone left a
// window in which about one client write in fifty was lost).

const (
	// clientLockStale is when a lock is a dead holder's (proper-lockfile's
	// default, which the client keeps).
	clientLockStale = 10 * time.Second
)

// clientLockWait is how long install waits for the client to finish a
// save before giving up.
var clientLockWait = 15 * time.Second

// lockClient takes the client's lock on .claude.json for the whole of an
// install or uninstall (nothing when there is none to edit, or in a dry
// run).
func (o Options) lockClient() (func(), error) {
	if o.ClaudeJSON == "" || o.DryRun {
		return func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(o.ClaudeJSON), 0o700); err != nil {
		return nil, err
	}
	return lockClientFile(o.ClaudeJSON)
}

// errClientBusy is a lock the client held for all of clientLockWait.
var errClientBusy = errors.New("the Claude Code client kept its lock on the file")

// lockClientFile takes path's proper-lockfile lock; unlock gives it back.
func lockClientFile(path string) (unlock func(), err error) {
	lock := path + ".lock"
	deadline := time.Now().Add(clientLockWait)
	for {
		err := os.Mkdir(lock, 0o700)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, err := os.Lstat(lock); err == nil && time.Since(fi.ModTime()) > clientLockStale {
			// A dead holder's: take it over (proper-lockfile removes it
			// and tries again, as here).
			os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: %w (%s); hint: run this again when Claude Code is idle, or remove %s if no Claude Code runs", path, errClientBusy, lock, lock)
		}
		time.Sleep(time.Duration(20+rand.IntN(60)) * time.Millisecond)
	}
	// Keep it fresh while held, as the client does, so nothing takes it
	// over from a slow install.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(clientLockStale / 2)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				os.Chtimes(lock, now, now)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			wg.Wait()
			os.Remove(lock)
		})
	}, nil
}
