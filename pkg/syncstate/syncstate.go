// Package syncstate is what a hook needs of ccmem sync, and no more: the
// last sync's state (this machine's own, in the store's sync/ folder),
// whether an automatic sync is due, starting one in the background, and
// the status line's word on it. The syncing itself (pkg/gitsync) runs git
// and never links into a hook.
package syncstate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/store"
)

// MaxDuration bounds a sync started automatically.
const MaxDuration = 2 * time.Minute

// State is what the last sync did, kept in the store's sync/ folder (this
// machine's own).
type State struct {
	Remote   string    `json:"remote,omitempty"`
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
	OK       bool      `json:"ok"`
	Error    string    `json:"error,omitempty"`
	Report   Report    `json:"report"`
	// PID is the sync running now (0: none).
	PID int `json:"pid,omitempty"`
}

// Report is what one sync did.
type Report struct {
	Joined bool `json:"joined,omitempty"`
	// RemoteEmpty says the remote held no memory (no machine had synced
	// there yet): this machine's is there now, and another machine's
	// comes with its own sync.
	RemoteEmpty bool     `json:"remote_empty,omitempty"`
	Committed   int      `json:"committed"`
	Fetched     bool     `json:"fetched"`
	Merged      bool     `json:"merged"`
	Pushed      bool     `json:"pushed"`
	KeptBoth    []string `json:"kept_both,omitempty"`
	// Unsettled are the files in which both machines changed one fact
	// differently: both versions wait for the person (ccmem learn review).
	Unsettled []string `json:"unsettled,omitempty"`
	Held      []Held   `json:"held,omitempty"`
	Rebuilt   int      `json:"rebuilt_indexes"`
	Deduped   []string `json:"deduplicated,omitempty"`
	// Refused are the remote's files this sync did not take.
	Refused []Refused `json:"refused,omitempty"`
	// Restored are files the remote deleted that this machine kept and
	// put back (ccmem sync --keep-deleted); Deleted counts the remote's
	// deletions applied after a person's yes (--accept-deletions).
	Restored []string `json:"restored,omitempty"`
	Deleted  int      `json:"deleted,omitempty"`
	// Removed are the memory files this sync took away without asking
	// (deleted, emptied or moved to the archive there, a few of them):
	// ccmem sync --undo puts them back.
	Removed []string `json:"removed,omitempty"`
	// RemovedLines is how many lines of MEMORY.md and its topic files
	// this sync took away (recorded like Removed, for --undo).
	RemovedLines int `json:"removed_lines,omitempty"`
	// Settled counts the sessions that had ended here, archived before
	// the commit so the other machines have them.
	Settled int       `json:"settled,omitempty"`
	When    time.Time `json:"when,omitzero"`
}

// Held is a file kept off the remote: it holds a secret, in its contents
// or its name, cannot be checked whole, or is not a file sync carries.
type Held struct {
	Path  string   `json:"path"`
	Kinds []string `json:"kinds"`
}

// Refused is a file of the remote's tree that sync did not write here: a
// path that is not one of ccmem's own files, plainly named, or not a
// regular file. Commit is the remote's commit that held it.
type Refused struct {
	Commit string `json:"commit"`
	Path   string `json:"path"`
	Why    string `json:"why"`
}

// Dir is the folder of this machine's sync state and lock.
func Dir(e store.Env) string { return filepath.Join(e.Store, "sync") }

func statePath(e store.Env) string { return filepath.Join(Dir(e), "state.json") }

// ReadState reads the last sync's state (zero when none).
func ReadState(e store.Env) State {
	var st State
	if data, err := store.ReadSmallFile(statePath(e), 1<<20); err == nil {
		_ = json.Unmarshal(data, &st)
	}
	return st
}

// Write records st as the last sync's state.
func Write(e store.Env, st State) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(Dir(e), 0o700); err != nil {
		return err
	}
	return store.WriteFileAtomic(statePath(e), append(data, '\n'))
}

// IsSetUp tells whether the store is a sync repository.
func IsSetUp(e store.Env) bool {
	fi, err := os.Lstat(filepath.Join(e.Store, ".git"))
	return err == nil && fi.IsDir()
}

// Due tells whether an automatic sync should start now: the store syncs,
// no sync is running, and the last finished interval ago or more. It reads
// one small file; the network is never touched.
func Due(e store.Env, interval time.Duration) bool {
	if !IsSetUp(e) {
		return false
	}
	st := ReadState(e)
	now := e.Time()
	if st.PID != 0 && st.Finished.IsZero() && now.Sub(st.Started) < MaxDuration {
		return false // one at a time
	}
	return st.Finished.IsZero() || now.Sub(st.Finished) >= interval
}

// StartDetached starts `ccmem sync --auto` (ccmem at path) in the
// background, in a session of its own, with no input or output: the
// caller (a hook) returns at once, and the sync outlives it, bounded by
// MaxDuration. The state file says when it started, so the next session
// start does not start another meanwhile.
func StartDetached(e store.Env, ccmem string) error {
	pid, err := proc.StartDetached(ccmem, []string{"sync", "--auto"}, e.Store)
	if err != nil {
		return err
	}
	st := ReadState(e)
	st.PID, st.Started, st.Finished = pid, e.Time(), time.Time{}
	return Write(e, st)
}

// Note is the status line's word on sync: "" when all is well (or sync is
// not set up), else what needs a look.
func Note(e store.Env) string {
	if !IsSetUp(e) {
		return ""
	}
	st := ReadState(e)
	switch {
	case st.PID != 0 && st.Finished.IsZero() && e.Time().Sub(st.Started) < MaxDuration:
		return "syncing"
	case !st.Finished.IsZero() && !st.OK:
		return "sync failed (ccmem sync status)"
	case len(st.Report.Held) > 0:
		return "a file held from sync (ccmem sync status)"
	}
	return ""
}
