// Package opencodestore reads the sessions opencode keeps in its SQLite
// database (opencode.db, and a channel's opencode-<channel>.db) with
// pkg/sqlitefile: read-only, with its write-ahead log, never written. It
// registers itself with pkg/session when linked, and only pkg/importer
// links it, so that only a binary that imports sessions (ccmem) carries a
// database reader; the hooks do not.
package opencodestore

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/sqlitefile"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/transcript"
)

func init() { session.UseStoreReader(reader{}) }

// reader is opencode's database, as pkg/session reads stored sessions.
type reader struct{}

// maxSessions bounds the sessions listed of one store.
const maxSessions = 20000

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

// Begin starts a run that keeps stores open until end.
func (reader) Begin() (end func()) {
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

// List lists the sessions of opencode's stores (opencode.db
// first, then each channel's), a subagent's (one with a parent) left out
// and a session listed once; a store that cannot be read is said in notes.
func (reader) List(ctx context.Context, e store.Env) (out []session.StoreSession, notes []string) {
	ents, err := os.ReadDir(e.OpencodeDir)
	if err != nil {
		return nil, nil
	}
	var stores []string
	for _, ent := range ents {
		if ent.Type().IsRegular() && session.IsOpencodeStore(ent.Name()) {
			stores = append(stores, ent.Name())
		}
	}
	// The stable channel's first ('-' sorts before '.').
	slices.SortFunc(stores, func(a, b string) int {
		return cmp.Or(cmp.Compare(storeRank(a), storeRank(b)), strings.Compare(a, b))
	})
	seen := map[string]bool{}
	for _, name := range stores {
		if ctx.Err() != nil {
			break
		}
		list, note := listOneOpencodeStore(ctx, e, filepath.Join(e.OpencodeDir, name))
		for _, tf := range list {
			if !seen[tf.ID] {
				seen[tf.ID] = true
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
func listOneOpencodeStore(ctx context.Context, e store.Env, path string) (out []session.StoreSession, note string) {
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
			out = append(out, session.StoreSession{Path: filepath.Join(path, sid), ID: sid, Updated: time.UnixMilli(r.Int("time_updated")), Cwd: r.Text("directory")})
			return len(out) < maxSessions && ctx.Err() == nil
		})
	})
	if err != nil {
		return out, "opencode's sessions in " + e.Tilde(path) + " could not be read (" + err.Error() + "); its JSON storage is read"
	}
	return out, ""
}

// Read reads a session's messages and parts, at most max rows.
func (reader) Read(ctx context.Context, path string, max int) (session.StoreRows, error) {
	dbPath, sid := filepath.Dir(path), filepath.Base(path)
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
			return rows < max && ctx.Err() == nil
		}); err != nil {
			return err
		}
		return db.RowsWhere(pt, "session_id", sid, func(r sqlitefile.Row) bool {
			mid := r.Text("message_id")
			parts[mid] = append(parts[mid], row(r))
			return rows < max && ctx.Err() == nil
		})
	})
	return session.StoreRows{Stamp: stamp, Messages: messages, Parts: parts}, err
}
