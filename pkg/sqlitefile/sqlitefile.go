// Package sqlitefile reads the tables of a SQLite database file, with the
// committed pages of its write-ahead log, in pure Go and without SQLite:
// enough for ccmem to import another agent's sessions (opencode keeps
// them in SQLite) with no C, no driver and no write to the file.
//
// It reads rowid tables of a UTF-8 database: every row, or the rows whose
// text column equals a value through an index on that column. Everything
// in the file is untrusted: a page out of range, a cell outside its page,
// a cycle of pages or a record that does not parse is an error, never a
// panic or an endless walk.
package sqlitefile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// ErrFormat is wrapped by every error about the file's contents.
var ErrFormat = errors.New("not a database file ccmem can read")

// maxPayload bounds one row's size (SQLite's own default limit is 1 GB;
// a row of an agent's session is far smaller).
const maxPayload = 64 << 20

// maxDepth bounds a b-tree's depth (SQLite's trees are a few levels deep).
const maxDepth = 40

// DB is an open database file: its header, the log's committed pages, and
// the schema.
type DB struct {
	db, wal    io.ReaderAt
	dbSize     int64
	pageSize   int
	usable     int
	pages      uint32
	walPages   map[uint32]int64 // page → offset of its newest committed copy in the log
	cache      map[uint32][]byte
	objects    []object
	pageBudget int // page reads left to the current walk
}

// object is a line of the schema table.
type object struct {
	kind, name, table, sql string
	root                   uint32
}

// Value is a column's value: nil, int64, float64, string or []byte.
type Value = any

func formatErr(f string, a ...any) error {
	return fmt.Errorf("%w: "+f, append([]any{ErrFormat}, a...)...)
}

// New reads the database in db (size bytes) and, when walSize > 0, the
// committed frames of its write-ahead log (the file beside it named
// "-wal"), as a reader that opened it now would see it.
func New(db io.ReaderAt, size int64, wal io.ReaderAt, walSize int64) (*DB, error) {
	var h [100]byte
	if _, err := db.ReadAt(h[:], 0); err != nil || size < 100 {
		return nil, formatErr("no database header")
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return nil, formatErr("no database header")
	}
	ps := int(binary.BigEndian.Uint16(h[16:]))
	if ps == 1 {
		ps = 65536
	}
	if ps < 512 || ps > 65536 || ps&(ps-1) != 0 {
		return nil, formatErr("page size %d", ps)
	}
	d := &DB{db: db, dbSize: size, pageSize: ps, usable: ps - int(h[20]), cache: map[uint32][]byte{}}
	if d.usable < 480 {
		return nil, formatErr("usable page size %d", d.usable)
	}
	if enc := binary.BigEndian.Uint32(h[56:]); enc > 1 {
		return nil, formatErr("text in UTF-16 (encoding %d)", enc)
	}
	d.pages = uint32(size / int64(ps))
	if n := binary.BigEndian.Uint32(h[28:]); n > 0 && binary.BigEndian.Uint32(h[24:]) == binary.BigEndian.Uint32(h[92:]) && n < d.pages {
		d.pages = n
	}
	if wal != nil && walSize >= 32 {
		if err := d.readLog(wal, walSize); err != nil {
			return nil, err
		}
	}
	if err := d.readSchema(); err != nil {
		return nil, err
	}
	return d, nil
}

// readLog indexes the log's frames up to its last valid commit: a frame
// counts when its salts are the header's and the running checksum holds,
// as SQLite's own recovery reads it. A log of another page size, or of
// none, is no log.
func (d *DB) readLog(wal io.ReaderAt, size int64) error {
	var h [32]byte
	if _, err := wal.ReadAt(h[:], 0); err != nil {
		return nil
	}
	magic := binary.BigEndian.Uint32(h[:])
	if magic&^1 != 0x377f0682 || binary.BigEndian.Uint32(h[8:]) != uint32(d.pageSize) {
		return nil
	}
	big := magic&1 == 1
	s0, s1 := walSum(h[:24], big, 0, 0)
	if s0 != binary.BigEndian.Uint32(h[24:]) || s1 != binary.BigEndian.Uint32(h[28:]) {
		return nil
	}
	salt := h[16:24]
	committed, pending := map[uint32]int64{}, map[uint32]int64{}
	pages := d.pages
	frame := make([]byte, 24+d.pageSize)
	for off := int64(32); off+int64(len(frame)) <= size; off += int64(len(frame)) {
		if _, err := wal.ReadAt(frame, off); err != nil {
			break
		}
		if string(frame[8:16]) != string(salt) {
			break
		}
		s0, s1 = walSum(frame[:8], big, s0, s1)
		s0, s1 = walSum(frame[24:], big, s0, s1)
		if s0 != binary.BigEndian.Uint32(frame[16:]) || s1 != binary.BigEndian.Uint32(frame[20:]) {
			break
		}
		pg := binary.BigEndian.Uint32(frame)
		if pg == 0 {
			break
		}
		pending[pg] = off + 24
		if n := binary.BigEndian.Uint32(frame[4:]); n != 0 {
			for k, v := range pending {
				committed[k] = v
			}
			clear(pending)
			pages = n
		}
	}
	if len(committed) > 0 {
		d.wal, d.walPages, d.pages = wal, committed, pages
	}
	return nil
}

// walSum continues the log's checksum over b (a multiple of 8 bytes).
func walSum(b []byte, big bool, s0, s1 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		var x0, x1 uint32
		if big {
			x0, x1 = binary.BigEndian.Uint32(b[i:]), binary.BigEndian.Uint32(b[i+4:])
		} else {
			x0, x1 = binary.LittleEndian.Uint32(b[i:]), binary.LittleEndian.Uint32(b[i+4:])
		}
		s0 += x0 + s1
		s1 += x1 + s0
	}
	return s0, s1
}

// page reads page n, its newest committed copy.
func (d *DB) page(n uint32) ([]byte, error) {
	if n == 0 || n > d.pages {
		return nil, formatErr("page %d of %d", n, d.pages)
	}
	if d.pageBudget--; d.pageBudget < 0 {
		return nil, formatErr("a walk reads more pages than the file has (a cycle)")
	}
	if p, ok := d.cache[n]; ok {
		return p, nil
	}
	p := make([]byte, d.pageSize)
	var err error
	if off, ok := d.walPages[n]; ok {
		_, err = d.wal.ReadAt(p, off)
	} else if off := int64(n-1) * int64(d.pageSize); off+int64(d.pageSize) <= d.dbSize {
		_, err = d.db.ReadAt(p, off)
	} else {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, formatErr("page %d: %v", n, err)
	}
	if len(d.cache) >= 4096 {
		clear(d.cache)
	}
	d.cache[n] = p
	return p, nil
}

// startWalk gives a walk of the file a budget of page reads: a walk that
// reads every page more than twice is following a cycle.
func (d *DB) startWalk() { d.pageBudget = 2*int(min(d.pages, 1<<28)) + 16 }

// btree is a parsed b-tree page: its kind, its cells' offsets and, for an
// interior page, its right-most child.
type btree struct {
	p     []byte
	kind  byte
	cells []int
	right uint32
}

const (
	indexInterior = 0x02
	tableInterior = 0x05
	indexLeaf     = 0x0a
	tableLeaf     = 0x0d
)

func (d *DB) btree(n uint32) (btree, error) {
	p, err := d.page(n)
	if err != nil {
		return btree{}, err
	}
	h := 0
	if n == 1 {
		h = 100
	}
	b := btree{p: p[:d.usable], kind: p[h]}
	hl := 8
	switch b.kind {
	case indexInterior, tableInterior:
		hl = 12
		b.right = binary.BigEndian.Uint32(p[h+8:])
	case indexLeaf, tableLeaf:
	default:
		return btree{}, formatErr("page %d is no b-tree page (%#x)", n, b.kind)
	}
	nc := int(binary.BigEndian.Uint16(p[h+3:]))
	if h+hl+2*nc > d.usable {
		return btree{}, formatErr("page %d: %d cells", n, nc)
	}
	b.cells = make([]int, nc)
	for i := range b.cells {
		off := int(binary.BigEndian.Uint16(p[h+hl+2*i:]))
		if off < h+hl || off >= d.usable {
			return btree{}, formatErr("page %d: cell %d at %d", n, i, off)
		}
		b.cells[i] = off
	}
	return b, nil
}

// varint reads a SQLite variable-length integer; n is 0 when b ends first.
func varint(b []byte) (v uint64, n int) {
	for i := 0; i < 8; i++ {
		if i >= len(b) {
			return 0, 0
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}

// payload reads a cell's payload of size bytes at p[off:], following its
// overflow pages; table says whether it is a table leaf's (whose local
// share is larger than an index's).
func (d *DB) payload(p []byte, off int, size uint64, table bool) ([]byte, error) {
	if size > maxPayload {
		return nil, formatErr("a row of %d bytes", size)
	}
	u := d.usable
	x := (u-12)*64/255 - 23
	if table {
		x = u - 35
	}
	n := int(size)
	if n <= x {
		if off+n > len(p) {
			return nil, formatErr("a cell runs off its page")
		}
		return p[off : off+n], nil
	}
	m := (u-12)*32/255 - 23
	local := m + (n-m)%(u-4)
	if local > x {
		local = m
	}
	if off+local+4 > len(p) {
		return nil, formatErr("a cell runs off its page")
	}
	out := make([]byte, 0, n)
	out = append(out, p[off:off+local]...)
	next := binary.BigEndian.Uint32(p[off+local:])
	for len(out) < n {
		op, err := d.page(next)
		if err != nil {
			return nil, err
		}
		next = binary.BigEndian.Uint32(op)
		out = append(out, op[4:4+min(u-4, n-len(out))]...)
	}
	return out, nil
}

// record decodes a record: its columns' values.
func record(b []byte) ([]Value, error) {
	hl, n := varint(b)
	if n == 0 || hl < uint64(n) || hl > uint64(len(b)) {
		return nil, formatErr("a record's header")
	}
	var types []uint64
	for i := n; i < int(hl); {
		t, k := varint(b[i:hl])
		if k == 0 {
			return nil, formatErr("a record's header")
		}
		types = append(types, t)
		i += k
	}
	body := b[hl:]
	vals := make([]Value, len(types))
	for i, t := range types {
		var w int
		switch {
		case t == 0, t == 8, t == 9:
			vals[i] = map[uint64]Value{0: nil, 8: int64(0), 9: int64(1)}[t]
			continue
		case t <= 4:
			w = int(t)
		case t == 5:
			w = 6
		case t == 6, t == 7:
			w = 8
		case t >= 12:
			if (t-12)/2 > uint64(len(body)) {
				return nil, formatErr("a record's value runs off")
			}
			w = int((t - 12) / 2)
		default:
			return nil, formatErr("a record's type %d", t)
		}
		if w > len(body) {
			return nil, formatErr("a record's value runs off")
		}
		v := body[:w]
		body = body[w:]
		switch {
		case t == 7:
			vals[i] = math.Float64frombits(binary.BigEndian.Uint64(v))
		case t <= 6:
			var x int64
			if v[0]&0x80 != 0 {
				x = -1
			}
			for _, c := range v {
				x = x<<8 | int64(c)
			}
			vals[i] = x
		case t%2 == 1:
			vals[i] = string(v)
		default:
			vals[i] = append([]byte(nil), v...)
		}
	}
	return vals, nil
}

// readSchema reads the schema table (page 1).
func (d *DB) readSchema() error {
	d.startWalk()
	return d.walkTable(1, 0, func(_ int64, v []Value) bool {
		if len(v) < 5 {
			return true
		}
		o := object{kind: str(v[0]), name: str(v[1]), table: str(v[2]), sql: str(v[4])}
		if r, ok := v[3].(int64); ok && r > 0 && r <= math.MaxUint32 {
			o.root = uint32(r)
		}
		d.objects = append(d.objects, o)
		return true
	})
}

func str(v Value) string { s, _ := v.(string); return s }

// walkTable calls fn with each row of the table b-tree at page n, in
// rowid order, until fn returns false.
func (d *DB) walkTable(n uint32, depth int, fn func(rowid int64, vals []Value) bool) error {
	_, err := d.walkTableFrom(n, depth, fn)
	return err
}

func (d *DB) walkTableFrom(n uint32, depth int, fn func(int64, []Value) bool) (bool, error) {
	if depth > maxDepth {
		return false, formatErr("a b-tree deeper than %d", maxDepth)
	}
	b, err := d.btree(n)
	if err != nil {
		return false, err
	}
	switch b.kind {
	case tableLeaf:
		for _, off := range b.cells {
			rowid, size, at, err := leafCell(b.p, off, n)
			if err != nil {
				return false, err
			}
			pl, err := d.payload(b.p, at, size, true)
			if err != nil {
				return false, err
			}
			vals, err := record(pl)
			if err != nil {
				return false, err
			}
			if !fn(rowid, vals) {
				return false, nil
			}
		}
	case tableInterior:
		for _, off := range b.cells {
			if off+4 > len(b.p) {
				return false, formatErr("a cell of page %d", n)
			}
			if more, err := d.walkTableFrom(binary.BigEndian.Uint32(b.p[off:]), depth+1, fn); !more || err != nil {
				return false, err
			}
		}
		return d.walkTableFrom(b.right, depth+1, fn)
	default:
		return false, formatErr("page %d is no table page", n)
	}
	return true, nil
}

// leafCell reads the head of the table leaf cell at off of page n: its
// rowid, and its payload's size and start.
func leafCell(p []byte, off int, n uint32) (rowid int64, size uint64, at int, err error) {
	size, k := varint(p[off:])
	id, k2 := varint(p[off+k:])
	if k == 0 || k2 == 0 {
		return 0, 0, 0, formatErr("a cell of page %d", n)
	}
	return int64(id), size, off + k + k2, nil
}

// findRow finds the row of a table b-tree by its rowid.
func (d *DB) findRow(n uint32, rowid int64) ([]Value, error) {
	for depth := 0; depth <= maxDepth; depth++ {
		b, err := d.btree(n)
		if err != nil {
			return nil, err
		}
		switch b.kind {
		case tableInterior:
			next := b.right
			for _, off := range b.cells {
				if off+5 > len(b.p) {
					return nil, formatErr("a cell of page %d", n)
				}
				key, k := varint(b.p[off+4:])
				if k == 0 {
					return nil, formatErr("a cell of page %d", n)
				}
				if rowid <= int64(key) {
					next = binary.BigEndian.Uint32(b.p[off:])
					break
				}
			}
			n = next
		case tableLeaf:
			for _, off := range b.cells {
				id, size, at, err := leafCell(b.p, off, n)
				if err != nil {
					return nil, err
				}
				if id == rowid {
					pl, err := d.payload(b.p, at, size, true)
					if err != nil {
						return nil, err
					}
					return record(pl)
				}
			}
			return nil, nil
		default:
			return nil, formatErr("page %d is no table page", n)
		}
	}
	return nil, formatErr("a b-tree deeper than %d", maxDepth)
}

// walkIndexEqual calls fn with the rowid of each entry of the index
// b-tree at page n whose first column is the text key, in order.
func (d *DB) walkIndexEqual(n uint32, depth int, key string, fn func(rowid int64) bool) (bool, error) {
	if depth > maxDepth {
		return false, formatErr("a b-tree deeper than %d", maxDepth)
	}
	b, err := d.btree(n)
	if err != nil {
		return false, err
	}
	if b.kind != indexLeaf && b.kind != indexInterior {
		return false, formatErr("page %d is no index page", n)
	}
	for _, off := range b.cells {
		var child uint32
		if b.kind == indexInterior {
			if off+4 > len(b.p) {
				return false, formatErr("a cell of page %d", n)
			}
			child = binary.BigEndian.Uint32(b.p[off:])
			off += 4
		}
		size, k := varint(b.p[off:])
		if k == 0 {
			return false, formatErr("a cell of page %d", n)
		}
		pl, err := d.payload(b.p, off+k, size, false)
		if err != nil {
			return false, err
		}
		vals, err := record(pl)
		if err != nil || len(vals) < 2 {
			return false, formatErr("an index entry of page %d", n)
		}
		c := compareText(vals[0], key)
		if c >= 0 && child != 0 {
			if more, err := d.walkIndexEqual(child, depth+1, key, fn); !more || err != nil {
				return false, err
			}
		}
		if c > 0 {
			return false, nil // every later entry is greater
		}
		if c == 0 {
			rowid, ok := vals[len(vals)-1].(int64)
			if !ok {
				return false, formatErr("an index entry of page %d", n)
			}
			if !fn(rowid) {
				return false, nil
			}
		}
	}
	if b.kind == indexInterior {
		return d.walkIndexEqual(b.right, depth+1, key, fn)
	}
	return true, nil
}

// compareText orders a value against a text key as SQLite does with the
// BINARY collation: numbers and NULL before text, blobs after.
func compareText(v Value, key string) int {
	switch v := v.(type) {
	case string:
		return strings.Compare(v, key)
	case []byte:
		return 1
	}
	return -1
}
