package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
)

// opencode keeps its sessions, since its JSON storage, in a SQLite
// database, opencode.db in its data folder (tables session, message and
// part; a message's and a part's data column is the JSON its file held,
// less the ids the other columns hold). A release channel other than the
// stable ones keeps its own database, opencode-<channel>.db, beside it. A
// session of a store is named, where a transcript's path would be, <data
// folder>/opencode.db/<session id>.
//
// The database is read by pkg/opencodestore, which registers itself here
// (UseStoreReader): only pkg/importer links it, so no hook carries a
// database reader. Without one, a store's sessions
// are neither listed nor read; opencode's JSON storage still is.

// A StoreReader reads the sessions an agent keeps in a database.
type StoreReader interface {
	// List lists the sessions of the stores in the agent's data folder
	// (e.OpencodeDir), a session once, a subagent's left out, until ctx
	// ends; a store that cannot be read is said in notes.
	List(ctx context.Context, e store.Env) (sessions []StoreSession, notes []string)
	// Read reads the messages and parts of the session named path (see
	// above) as JSON rows in their files' shape, at most max rows, with a
	// stamp that changes when any of them does.
	Read(ctx context.Context, path string, max int) (StoreRows, error)
	// Begin starts a run that keeps the stores it opens open until end.
	Begin() (end func())
}

// StoreSession is one session a StoreReader lists.
type StoreSession struct {
	Path, ID, Cwd string
	Updated       time.Time
}

// StoreRows are a stored session's messages and their parts (by message
// id), and their stamp.
type StoreRows struct {
	Stamp    int64
	Messages [][]byte
	Parts    map[string][][]byte
}

var storeReader StoreReader

// UseStoreReader makes r the reader of opencode's database (see above).
func UseStoreReader(r StoreReader) { storeReader = r }

// BeginStoreRun starts a run of the store reader, if there is one: the
// stores it opens stay open until end.
func BeginStoreRun() (end func()) {
	if storeReader == nil {
		return func() {}
	}
	return storeReader.Begin()
}

// ListStored lists the sessions of opencode's stores, when this binary
// reads them (see StoreReader.List).
func ListStored(ctx context.Context, e store.Env) (sessions []StoreSession, notes []string) {
	if storeReader == nil {
		return nil, nil
	}
	return storeReader.List(ctx, e)
}

// catchUpOpencodeStore rebuilds the record of a session of opencode's
// store from its messages and parts when any of them changed, as
// catchUpOpencode does for its JSON storage (nothing, in a binary that
// does not read the store).
func (c *Checkpoint) catchUpOpencodeStore(ctx context.Context, path string) error {
	if storeReader == nil {
		return nil
	}
	rows, err := storeReader.Read(ctx, path, maxOpencodeFiles)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return fmt.Errorf("opencode session: %w", err)
	}
	return c.rebuildOpencode(ctx, path, rows.Stamp, rows.Messages, rows.Parts)
}

// IsOpencodeStore tells whether a file name is one of opencode's
// databases: opencode.db, or opencode-<channel>.db.
func IsOpencodeStore(name string) bool { return isOpencodeStore(name) }

// isOpencodeStore tells whether a file name is one of opencode's
// databases: opencode.db, or opencode-<channel>.db.
func isOpencodeStore(name string) bool {
	ch, ok := strings.CutPrefix(name, "opencode")
	ch, ok2 := strings.CutSuffix(ch, ".db")
	return ok && ok2 && (ch == "" || len(ch) > 1 && ch[0] == '-')
}

// opencodeDBSession splits a session's name into its store's path and the
// session's id; ok is false for any other path.
func opencodeDBSession(path string) (db, sid string, ok bool) {
	db, sid = filepath.Dir(path), filepath.Base(path)
	return db, sid, isOpencodeStore(filepath.Base(db)) && strings.HasPrefix(sid, "ses_")
}
