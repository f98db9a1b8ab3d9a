package sqlitefile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/pkg/lazyregexp"
)

// Table is a table of the database: its name and columns as its schema
// declares them.
type Table struct {
	Name    string
	Columns []string
	root    uint32
	alias   int // the column that is the rowid (INTEGER PRIMARY KEY), or -1
	indexes []index
}

// index is an index of a table usable for an equality on its first
// column (BINARY collation, a plain column).
type index struct {
	column string
	root   uint32
}

// Row is a row of a table.
type Row struct {
	t     *Table
	Rowid int64
	vals  []Value
}

// Value is the value of the named column: nil when it is NULL, absent
// (added to the table after the row was written) or no column of the
// table.
func (r Row) Value(column string) Value {
	i := slices.Index(r.t.Columns, column)
	if i == r.t.alias && i >= 0 {
		return r.Rowid
	}
	if i < 0 || i >= len(r.vals) {
		return nil
	}
	return r.vals[i]
}

// Text is the named column's text, "" when it holds none.
func (r Row) Text(column string) string {
	switch v := r.Value(column).(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// Int is the named column's integer, 0 when it holds none.
func (r Row) Int(column string) int64 {
	switch v := r.Value(column).(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

// Float is the named column's number, 0 when it holds none. (SQLite
// stores a REAL column's whole numbers as integers.)
func (r Row) Float(column string) float64 {
	switch v := r.Value(column).(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// Table finds a table by name (as SQLite does, ignoring ASCII case).
func (d *DB) Table(name string) (*Table, error) {
	for _, o := range d.objects {
		if o.kind != "table" || !strings.EqualFold(o.name, name) {
			continue
		}
		if o.root == 0 {
			return nil, fmt.Errorf("table %s: %w: a virtual table", name, ErrFormat)
		}
		if withoutRowid.MatchString(o.sql) {
			return nil, fmt.Errorf("table %s: %w: a table WITHOUT ROWID", name, ErrFormat)
		}
		t := &Table{Name: o.name, root: o.root, alias: -1}
		for i, def := range definitions(o.sql) {
			col, rest, ok := columnName(def)
			if !ok {
				continue
			}
			if rowidAlias.MatchString(rest) && !rowidDesc.MatchString(rest) {
				t.alias = i
			}
			t.Columns = append(t.Columns, col)
		}
		for _, x := range d.objects {
			if x.kind != "index" || !strings.EqualFold(x.table, o.name) || x.root == 0 || x.sql == "" {
				continue
			}
			if col, ok := indexColumn(x.sql); ok {
				t.indexes = append(t.indexes, index{column: col, root: x.root})
			}
		}
		return t, nil
	}
	return nil, fmt.Errorf("no table %s", name)
}

// Rows calls fn with each row of t until it returns false.
func (d *DB) Rows(t *Table, fn func(Row) bool) error {
	d.startWalk()
	return d.walkTable(t.root, 0, func(rowid int64, vals []Value) bool {
		return fn(Row{t: t, Rowid: rowid, vals: vals})
	})
}

// RowsWhere calls fn with each row of t whose column holds the text
// value, through an index on that column when the table has one (in the
// index's order), else reading every row.
func (d *DB) RowsWhere(t *Table, column, value string, fn func(Row) bool) error {
	i := slices.IndexFunc(t.indexes, func(x index) bool { return strings.EqualFold(x.column, column) })
	if i < 0 {
		return d.Rows(t, func(r Row) bool {
			if s, ok := r.Value(column).(string); ok && s == value {
				return fn(r)
			}
			return true
		})
	}
	d.startWalk()
	var rowids []int64
	if _, err := d.walkIndexEqual(t.indexes[i].root, 0, value, func(rowid int64) bool {
		rowids = append(rowids, rowid)
		return true
	}); err != nil {
		return err
	}
	for _, id := range rowids {
		d.startWalk()
		vals, err := d.findRow(t.root, id)
		if err != nil {
			return err
		}
		if vals == nil {
			return fmt.Errorf("%w: an index names row %d, which is not there", ErrFormat, id)
		}
		r := Row{t: t, Rowid: id, vals: vals}
		if s, ok := r.Value(column).(string); !ok || s != value {
			return fmt.Errorf("%w: an index names row %d for a value it does not hold", ErrFormat, id)
		}
		if !fn(r) {
			return nil
		}
	}
	return nil
}

var (
	withoutRowid = lazyregexp.New(`(?i)\)\s*(?:strict\s*,\s*)?without\s+rowid\b`)
	rowidAlias   = lazyregexp.New(`(?i)^\s*integer\s+primary\s+key\b`)
	// rowidDesc is the one INTEGER PRIMARY KEY that is no rowid (a quirk
	// SQLite keeps).
	rowidDesc = lazyregexp.New(`(?i)^\s*integer\s+primary\s+key\s+desc\b`)
	// tableConstraint starts a table constraint, not a column definition.
	tableConstraint = lazyregexp.New(`(?i)^(?:constraint|primary|unique|check|foreign)\b`)
	onKeyword       = lazyregexp.New(`(?i)\bon\b`)
	collateOrWhere  = lazyregexp.New(`(?i)\b(?:collate|where)\b`)
)

// definitions splits the parenthesised list of a CREATE statement at its
// top-level commas.
func definitions(sql string) []string {
	open := strings.IndexByte(sql, '(')
	if open < 0 {
		return nil
	}
	var out []string
	depth, start := 0, open+1
	var quote byte
	for i := open; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '[':
			quote = ']'
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return append(out, strings.TrimSpace(sql[start:i]))
			}
		case c == ',' && depth == 1:
			out = append(out, strings.TrimSpace(sql[start:i]))
			start = i + 1
		}
	}
	return out
}

// columnName reads the name a column definition starts with, unquoted,
// and what follows it; ok is false for a table constraint.
func columnName(def string) (name, rest string, ok bool) {
	def = strings.TrimSpace(def)
	if def == "" {
		return "", "", false
	}
	if q := def[0]; q == '"' || q == '`' || q == '[' {
		end := map[byte]byte{'"': '"', '`': '`', '[': ']'}[q]
		j := strings.IndexByte(def[1:], end)
		if j < 0 {
			return "", "", false
		}
		return def[1 : 1+j], def[2+j:], true
	}
	if tableConstraint.MatchString(def) {
		return "", "", false
	}
	name, rest, _ = strings.Cut(def, " ")
	if k := strings.IndexAny(name, "\t\n\r"); k >= 0 {
		name, rest = name[:k], name[k:]+" "+rest
	}
	return name, rest, name != ""
}

// indexColumn reads the first column of a CREATE INDEX statement: ok only
// for a plain column under the BINARY collation, with no WHERE (a partial
// index does not hold every row).
func indexColumn(sql string) (string, bool) {
	on := onKeyword.R().FindStringIndex(sql)
	if on == nil || collateOrWhere.MatchString(sql) {
		return "", false
	}
	defs := definitions(sql[on[1]:])
	if len(defs) == 0 {
		return "", false
	}
	name, rest, ok := columnName(defs[0])
	rest = strings.TrimSpace(rest)
	if !ok || rest != "" && !strings.EqualFold(rest, "asc") || strings.ContainsAny(name, "()") {
		return "", false
	}
	return name, true
}
