package command

import (
	"fmt"
	"io"
	"strings"

	"github.com/ccmem/ccmem/pkg/textfmt"
)

// NewTable makes a table of aligned columns (two spaces apart) whose lines
// end without the padding of empty trailing cells: output people copy or
// diff has no trailing spaces. Columns are aligned by the width the
// terminal shows (a Chinese or Japanese character takes two columns).
// Flush it when done.
func NewTable(w io.Writer) *Rows { return &Rows{w: w} }

// Rows is an aligned table for people. Every cell is shown as one safe
// line (textfmt.Line: a file name or a memory with a newline, an escape
// sequence or a tab cannot break a row or drive the terminal).
type Rows struct {
	w    io.Writer
	rows [][]string
}

// Row writes one row, each cell as fmt.Sprint shows it.
func (t *Rows) Row(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = strings.ReplaceAll(textfmt.Line(fmt.Sprint(c)), "\t", " ")
	}
	t.rows = append(t.rows, row)
}

// padding is the space between columns.
const padding = 2

// Flush writes the table out. As text/tabwriter does, a column is
// aligned over each run of consecutive rows that have a cell after it
// (a row's last cell is never padded); widths are display widths.
func (t *Rows) Flush() error {
	var b strings.Builder
	widths := make([][]int, len(t.rows)) // per row, the width of each of its padded cells
	for i, r := range t.rows {
		widths[i] = make([]int, max(len(r)-1, 0))
	}
	t.align(widths, 0, 0, len(t.rows))
	for i, r := range t.rows {
		for j, c := range r {
			b.WriteString(c)
			if j < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i][j]-textfmt.Width(c)))
			}
		}
		// No trailing spaces: an empty last cell leaves the padding of
		// the one before it.
		line := strings.TrimRight(b.String(), " ")
		b.Reset()
		if _, err := io.WriteString(t.w, line+"\n"); err != nil {
			return err
		}
	}
	t.rows = nil
	return nil
}

// align sets the width of column col for rows [from, to), block by block:
// a block is a run of rows with a padded cell in col, its width the widest
// of them plus padding; then the next column within each block.
func (t *Rows) align(widths [][]int, col, from, to int) {
	for i := from; i < to; {
		if col >= len(t.rows[i])-1 {
			i++
			continue
		}
		start, w := i, 0
		for ; i < to && col < len(t.rows[i])-1; i++ {
			w = max(w, textfmt.Width(t.rows[i][col])+padding)
		}
		for k := start; k < i; k++ {
			widths[k][col] = w
		}
		t.align(widths, col+1, start, i)
	}
}
