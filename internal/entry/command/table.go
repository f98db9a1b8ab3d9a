package command

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ccmem/ccmem/pkg/textfmt"
)

// NewTable makes a table of aligned columns (two spaces apart) whose lines
// end without the padding of empty trailing cells: output people copy or
// diff has no trailing spaces. Flush it when done.
func NewTable(w io.Writer) *Rows {
	return &Rows{tabwriter.NewWriter(&trimWriter{w: w}, 0, 0, 2, ' ', 0)}
}

// Rows is an aligned table for people. Every cell is shown as one safe
// line (textfmt.Line: a file name or a memory with a newline, an escape
// sequence or a tab cannot break a row or drive the terminal).
type Rows struct{ tw *tabwriter.Writer }

// Row writes one row, each cell as fmt.Sprint shows it.
func (t *Rows) Row(cells ...any) {
	for i, c := range cells {
		if i > 0 {
			io.WriteString(t.tw, "\t")
		}
		io.WriteString(t.tw, strings.ReplaceAll(textfmt.Line(fmt.Sprint(c)), "\t", " "))
	}
	io.WriteString(t.tw, "\n")
}

// Flush writes the table out.
func (t *Rows) Flush() error { return t.tw.Flush() }

// trimWriter drops the spaces before each newline.
type trimWriter struct {
	w       io.Writer
	pending []byte // spaces not yet known to be trailing
}

func (t *trimWriter) Write(p []byte) (int, error) {
	var out []byte
	for _, b := range p {
		switch b {
		case ' ':
			t.pending = append(t.pending, b)
		case '\n':
			t.pending = t.pending[:0]
			out = append(out, b)
		default:
			out = append(out, t.pending...)
			t.pending = t.pending[:0]
			out = append(out, b)
		}
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
