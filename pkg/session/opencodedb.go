package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ccmem/ccmem/pkg/sqlitefile"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// opencode keeps its sessions, since its JSON storage, in a SQLite
// database, opencode.db in its data folder (tables session, message and
// part; a message's and a part's data column is the JSON its file held,
// less the ids the other columns hold). ccmem reads it with
// pkg/sqlitefile: read-only, with its write-ahead log, never written.
// A release channel other than the stable ones keeps its own database,
// opencode-<channel>.db, beside it. A session of a store is named, where a
// transcript's path would be, <data folder>/opencode.db/<session id>.

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

// opencodeStores keeps the stores an import run opened, so that a run
// reads a store's header and log once, not once per session; outside a
// run a store is opened for one use and closed.
var opencodeStores struct {
	sync.Mutex
	runs int
	open map[string]*opencodeStore
}

// opencodeStore is an open store and the state of its files when opened.
type opencodeStore struct {
	db     *sqlitefile.DB
	files  []*os.File
	marker string
}

// beginOpencodeRun starts a run that keeps stores open until end.
func beginOpencodeRun() (end func()) {
	s := &opencodeStores
	s.Lock()
	s.runs++
	s.Unlock()
	return func() {
		s.Lock()
		defer s.Unlock()
		if s.runs--; s.runs == 0 {
			for _, o := range s.open {
				o.close()
			}
			s.open = nil
		}
	}
}

func (o *opencodeStore) close() {
	for _, f := range o.files {
		f.Close()
	}
}

// storeMarker is the size and time of a store's file and its log: what
// tells that opencode wrote since it was opened.
func storeMarker(path string) string {
	var b strings.Builder
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Lstat(p); err == nil {
			fmt.Fprintf(&b, "%d.%d;", fi.Size(), fi.ModTime().UnixNano())
		} else {
			b.WriteString("-;")
		}
	}
	return b.String()
}

// openOpencodeStore opens the store at path and its log, following no
// symlink.
func openOpencodeStore(path string) (*opencodeStore, error) {
	marker := storeMarker(path)
	f, fi, err := store.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	o := &opencodeStore{files: []*os.File{f}, marker: marker}
	var wal io.ReaderAt
	var walSize int64
	if w, wi, err := store.OpenRegular(path + "-wal"); err == nil {
		o.files = append(o.files, w)
		wal, walSize = w, wi.Size()
	}
	if o.db, err = sqlitefile.New(f, fi.Size(), wal, walSize); err != nil {
		o.close()
		return nil, err
	}
	return o, nil
}

// useOpencodeStore calls fn with the store at path: the run's copy while
// its files are unchanged, else a fresh one.
func useOpencodeStore(path string, fn func(*sqlitefile.DB) error) error {
	s := &opencodeStores
	s.Lock()
	defer s.Unlock()
	if s.runs == 0 {
		o, err := openOpencodeStore(path)
		if err != nil {
			return err
		}
		defer o.close()
		return fn(o.db)
	}
	o := s.open[path]
	if o != nil && o.marker != storeMarker(path) {
		o.close()
		o = nil
	}
	if o == nil {
		var err error
		if o, err = openOpencodeStore(path); err != nil {
			delete(s.open, path)
			return err
		}
		if s.open == nil {
			s.open = map[string]*opencodeStore{}
		}
		s.open[path] = o
	}
	return fn(o.db)
}

// listOpencodeStore lists the sessions of opencode's stores (opencode.db
// first, then each channel's), a subagent's (one with a parent) left out
// and a session listed once; a store that cannot be read is said in notes.
func listOpencodeStore(e store.Env) (out []transcriptFile, notes []string) {
	ents, err := os.ReadDir(e.OpencodeDir)
	if err != nil {
		return nil, nil
	}
	var stores []string
	for _, ent := range ents {
		if ent.Type().IsRegular() && isOpencodeStore(ent.Name()) {
			stores = append(stores, ent.Name())
		}
	}
	// The stable channel's first ('-' sorts before '.').
	slices.SortFunc(stores, func(a, b string) int {
		return cmp.Or(cmp.Compare(storeRank(a), storeRank(b)), strings.Compare(a, b))
	})
	seen := map[string]bool{}
	for _, name := range stores {
		list, note := listOneOpencodeStore(e, filepath.Join(e.OpencodeDir, name))
		for _, tf := range list {
			if !seen[tf.sid] {
				seen[tf.sid] = true
				out = append(out, tf)
			}
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	return out, notes
}

// storeRank orders opencode's stores: the stable channel's first.
func storeRank(name string) int {
	if name == "opencode.db" {
		return 0
	}
	return 1
}

// listOneOpencodeStore lists the sessions of the store at path.
func listOneOpencodeStore(e store.Env, path string) (out []transcriptFile, note string) {
	err := useOpencodeStore(path, func(db *sqlitefile.DB) error {
		st, err := db.Table("session")
		if err != nil {
			return err
		}
		return db.Rows(st, func(r sqlitefile.Row) bool {
			sid := r.Text("id")
			if !strings.HasPrefix(sid, "ses_") || !store.ValidID(sid, 128, false) || r.Text("parent_id") != "" {
				return true
			}
			out = append(out, transcriptFile{path: filepath.Join(path, sid), sid: sid, mtime: time.UnixMilli(r.Int("time_updated")), agent: AgentOpencode, cwd: r.Text("directory")})
			return len(out) < maxOpencodeFiles
		})
	})
	if err != nil {
		return out, "opencode's sessions in " + e.Tilde(path) + " could not be read (" + err.Error() + "); its JSON storage is read"
	}
	return out, ""
}

// catchUpOpencodeStore rebuilds the record of a session of opencode's
// store from its messages and parts when any of them changed, as
// catchUpOpencode does for its JSON storage.
func (c *Checkpoint) catchUpOpencodeStore(ctx context.Context, path string) error {
	dbPath, sid, _ := opencodeDBSession(path)
	var stamp int64
	var messages [][]byte
	parts := map[string][][]byte{}
	err := useOpencodeStore(dbPath, func(db *sqlitefile.DB) error {
		mt, err := db.Table("message")
		if err != nil {
			return err
		}
		pt, err := db.Table("part")
		if err != nil {
			return err
		}
		rows := 0
		row := func(r sqlitefile.Row) []byte {
			rows++
			data := r.Text("data")
			stamp += int64(len(data)) + r.Int("time_updated")%1000003
			return transcript.OpencodeRow(r.Text("id"), data)
		}
		if err := db.RowsWhere(mt, "session_id", sid, func(r sqlitefile.Row) bool {
			messages = append(messages, row(r))
			return rows < maxOpencodeFiles && ctx.Err() == nil
		}); err != nil {
			return err
		}
		return db.RowsWhere(pt, "session_id", sid, func(r sqlitefile.Row) bool {
			mid := r.Text("message_id")
			parts[mid] = append(parts[mid], row(r))
			return rows < maxOpencodeFiles && ctx.Err() == nil
		})
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return fmt.Errorf("opencode session: %w", err)
	}
	return c.rebuildOpencode(ctx, path, stamp, messages, parts)
}
