package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The fixture (testdata/make.sh) is a database in opencode's schema that
// the real SQLite wrote, with a log holding both committed frames and
// stale ones; golden.txt is what SQLite itself read from it.

func fixture(t testing.TB) (db, wal []byte) {
	t.Helper()
	db, err := os.ReadFile("testdata/opencode.db")
	if err != nil {
		t.Fatal(err)
	}
	wal, err = os.ReadFile("testdata/opencode.db-wal")
	if err != nil {
		t.Fatal(err)
	}
	return db, wal
}

func open(t testing.TB, db, wal []byte) *DB {
	t.Helper()
	var w *bytes.Reader
	if wal != nil {
		w = bytes.NewReader(wal)
	}
	var d *DB
	var err error
	if w != nil {
		d, err = New(bytes.NewReader(db), int64(len(db)), w, int64(len(wal)))
	} else {
		d, err = New(bytes.NewReader(db), int64(len(db)), nil, 0)
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// chars cuts s as SQLite's substr counts: in characters.
func chars(s string, from, n int) string {
	r := []rune(s)
	if from < 0 {
		from = max(len(r)+from, 0)
	}
	return string(r[from:min(from+n, len(r))])
}

func sqliteFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// dump prints the tables as golden.txt's queries print them.
func dump(t *testing.T, d *DB) string {
	var b strings.Builder
	tables := map[string]*Table{}
	for _, name := range []string{"session", "message", "part", "counter"} {
		tb, err := d.Table(name)
		if err != nil {
			t.Fatal(err)
		}
		tables[name] = tb
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(d.Rows(tables["session"], func(r Row) bool {
		fmt.Fprintf(&b, "session|%d|%s|%s|%s|%s|%d\n", r.Rowid, r.Text("id"), r.Text("parent_id"), r.Text("directory"), r.Text("title"), r.Int("time_updated"))
		return true
	}))
	must(d.Rows(tables["message"], func(r Row) bool {
		data := r.Text("data")
		fmt.Fprintf(&b, "message|%d|%s|%s|%d|%d|%s|%s\n", r.Rowid, r.Text("id"), r.Text("session_id"), r.Int("time_created"), len(data), chars(data, 0, 30), chars(data, -30, 30))
		return true
	}))
	must(d.Rows(tables["part"], func(r Row) bool {
		data := r.Text("data")
		fmt.Fprintf(&b, "part|%d|%s|%s|%s|%d|%s|%s\n", r.Rowid, r.Text("id"), r.Text("message_id"), r.Text("session_id"), len(data), chars(data, 0, 30), chars(data, -30, 30))
		return true
	}))
	var counters []string
	must(d.Rows(tables["counter"], func(r Row) bool {
		label := "NULL"
		if v := r.Value("label"); v != nil {
			label = v.(string)
		}
		raw, _ := r.Value("raw").([]byte)
		counters = append(counters, fmt.Sprintf("counter|%d|%s|%s|%X\n", r.Int("n"), label, sqliteFloat(r.Float("weight")), raw))
		return true
	}))
	b.WriteString(strings.Join(counters, ""))
	return b.String()
}

// TestReadsWhatSQLiteReads: every row of every table, the log's committed
// frames taken and its stale ones (an older salt) left, as SQLite read
// them; an INTEGER PRIMARY KEY is the rowid; text, numbers, NULLs and
// blobs as stored; rows that overflow their page whole.
func TestReadsWhatSQLiteReads(t *testing.T) {
	golden, err := os.ReadFile("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	db, wal := fixture(t)
	got := dump(t, open(t, db, wal))
	if got != string(golden) {
		gl, wl := strings.Split(string(golden), "\n"), strings.Split(got, "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d:\n got %s\nwant %s", i+1, wl[i], gl[i])
			}
		}
		t.Fatalf("got %d lines, want %d", len(wl), len(gl))
	}
	if !strings.Contains(got, "msg_b2") || strings.Contains(got, "|prt_f0007|") {
		t.Fatal("the log's last commits were not read")
	}
}

// TestWithoutTheLog: the database file alone is the state before the
// log's commits.
func TestWithoutTheLog(t *testing.T) {
	db, _ := fixture(t)
	got := dump(t, open(t, db, nil))
	if strings.Contains(got, "msg_b2") || !strings.Contains(got, "|prt_f0007|") || !strings.Contains(got, "|ses_b||/work/beta|数据库 迁移|1764001100000") {
		t.Fatal("the database file alone read as if its log were there")
	}
}

// TestATornLogEndsAtItsLastGoodCommit: a frame whose checksum fails ends
// the log; what was committed before it is read, nothing after.
func TestATornLogEndsAtItsLastGoodCommit(t *testing.T) {
	db, wal := fixture(t)
	frame := 24 + 1024
	// The frames under the header's salts, and the last commit among them.
	var commits []int
	for i := 0; 32+(i+1)*frame <= len(wal); i++ {
		h := wal[32+i*frame:]
		if !bytes.Equal(h[8:16], wal[16:24]) {
			break
		}
		if binary.BigEndian.Uint32(h[4:]) != 0 {
			commits = append(commits, i)
		}
	}
	if len(commits) < 2 {
		t.Fatalf("the fixture's log has %d commits", len(commits))
	}
	last := commits[len(commits)-1]
	torn := slices.Clone(wal)
	torn[32+last*frame+24+100] ^= 0xff
	got := dump(t, open(t, db, torn))
	if !strings.Contains(got, "msg_b2") {
		t.Fatal("commits before the torn frame were lost")
	}
	if !strings.Contains(got, "|prt_f0007|") {
		t.Fatal("the torn commit was read")
	}
	// Cut mid-frame: the same.
	got = dump(t, open(t, db, wal[:32+last*frame+500]))
	if !strings.Contains(got, "msg_b2") || !strings.Contains(got, "|prt_f0007|") {
		t.Fatal("a log cut in its last frame read wrong")
	}
}

// TestRowsWhereIsTheScan: the rows an index finds are the rows a scan
// finds, for every session, through a one-column index and a compound
// one, and for a table with no index on the column.
func TestRowsWhereIsTheScan(t *testing.T) {
	db, wal := fixture(t)
	d := open(t, db, wal)
	sessions := []string{"nope", ""}
	st, _ := d.Table("session")
	if err := d.Rows(st, func(r Row) bool { sessions = append(sessions, r.Text("id")); return true }); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"part", "message", "session"} {
		tb, err := d.Table(table)
		if err != nil {
			t.Fatal(err)
		}
		if table != "session" && len(tb.indexes) == 0 {
			t.Fatalf("%s: no index found", table)
		}
		col := "session_id"
		if table == "session" {
			col = "parent_id"
		}
		for _, s := range sessions {
			var scan, where []string
			_ = d.Rows(tb, func(r Row) bool {
				if r.Text(col) == s && r.Value(col) != nil {
					scan = append(scan, r.Text("id"))
				}
				return true
			})
			if err := d.RowsWhere(tb, col, s, func(r Row) bool { where = append(where, r.Text("id")); return true }); err != nil {
				t.Fatal(err)
			}
			slices.Sort(scan)
			slices.Sort(where)
			if !slices.Equal(scan, where) {
				t.Fatalf("%s where %s = %q: index %v, scan %v", table, col, s, where, scan)
			}
		}
	}
	pt, _ := d.Table("part")
	var b []string
	_ = d.RowsWhere(pt, "session_id", "ses_b", func(r Row) bool { b = append(b, r.Text("id")); return true })
	if !slices.Equal(b, []string{"prt_b1", "prt_b2"}) {
		t.Fatalf("ses_b's parts: %v", b)
	}
}

// TestHostileFiles: a cycle of pages, a page out of range, a cell off its
// page, a header that lies: each an error, never a hang or a panic.
func TestHostileFiles(t *testing.T) {
	db, _ := fixture(t)
	d := open(t, db, nil)
	pt, _ := d.Table("part")
	root := pt.root
	p, err := d.page(root)
	if err != nil {
		t.Fatal(err)
	}
	if p[0] != tableInterior {
		t.Fatalf("the part table's root is no interior page (%#x): the fixture changed", p[0])
	}
	scan := func(db []byte) error {
		d, err := New(bytes.NewReader(db), int64(len(db)), nil, 0)
		if err != nil {
			return err
		}
		pt, err := d.Table("part")
		if err != nil {
			return err
		}
		if err := d.Rows(pt, func(Row) bool { return true }); err != nil {
			return err
		}
		return d.RowsWhere(pt, "session_id", "ses_a", func(Row) bool { return true })
	}
	at := int(root-1) * 1024
	cases := map[string]func(b []byte){
		"right child is itself": func(b []byte) { binary.BigEndian.PutUint32(b[at+8:], root) },
		"child out of range":    func(b []byte) { binary.BigEndian.PutUint32(b[at+8:], 1<<30) },
		"cell off its page":     func(b []byte) { binary.BigEndian.PutUint16(b[at+12:], 1023) },
		"many cells":            func(b []byte) { binary.BigEndian.PutUint16(b[at+3:], 60000) },
		"not a b-tree page":     func(b []byte) { b[at] = 0x07 },
		"page size":             func(b []byte) { binary.BigEndian.PutUint16(b[16:], 1000) },
		"UTF-16":                func(b []byte) { binary.BigEndian.PutUint32(b[56:], 2) },
	}
	for name, corrupt := range cases {
		b := slices.Clone(db)
		corrupt(b)
		if err := scan(b); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want a format error", name, err)
		}
	}
	if _, err := New(bytes.NewReader([]byte("SQLite format 3")), 15, nil, 0); err == nil {
		t.Error("a short file opened")
	}
}

func TestColumns(t *testing.T) {
	for sql, want := range map[string]string{
		"CREATE TABLE `a` (`id` text PRIMARY KEY, \"b c\" integer, [d] blob, e, f TEXT DEFAULT ('x,y'), CONSTRAINT pk PRIMARY KEY (id), FOREIGN KEY (e) REFERENCES t(x))": "id|b c|d|e|f",
		"CREATE TABLE t(x\tINTEGER PRIMARY KEY,\ny)": "x|y",
	} {
		var cols []string
		for _, def := range definitions(sql) {
			if c, _, ok := columnName(def); ok {
				cols = append(cols, c)
			}
		}
		if got := strings.Join(cols, "|"); got != want {
			t.Errorf("%s: %s, want %s", sql, got, want)
		}
	}
	for sql, want := range map[string]string{
		"CREATE INDEX `i` ON `part` (`session_id`)":                 "session_id",
		"CREATE INDEX i ON part (session_id, time_created, id)":     "session_id",
		"CREATE INDEX i ON part (session_id COLLATE NOCASE)":        "",
		"CREATE INDEX i ON part (session_id DESC)":                  "",
		"CREATE INDEX i ON part (session_id) WHERE session_id > ''": "",
		"CREATE INDEX i ON part (lower(session_id))":                "",
	} {
		if got, _ := indexColumn(sql); got != want {
			t.Errorf("%s: %q, want %q", sql, got, want)
		}
	}
}

// FuzzNew: whatever the bytes, reading every table ends with rows or an
// error.
func FuzzNew(f *testing.F) {
	db, wal := fixture(f)
	f.Add(db[:8*1024], wal[:32+3*(24+1024)])
	f.Add(db[:1024], []byte{})
	f.Fuzz(func(t *testing.T, db, wal []byte) {
		d, err := New(bytes.NewReader(db), int64(len(db)), bytes.NewReader(wal), int64(len(wal)))
		if err != nil {
			return
		}
		for _, o := range d.objects {
			if tb, err := d.Table(o.name); err == nil {
				_ = d.Rows(tb, func(Row) bool { return true })
				for _, x := range tb.indexes {
					_ = d.RowsWhere(tb, x.column, "ses_a", func(Row) bool { return true })
				}
			}
		}
	})
}
