package command

import (
	"io"
	"text/tabwriter"
)

// NewTable is a tabwriter for aligned columns (two spaces apart) whose
// lines end without the padding of empty trailing cells: output people
// copy or diff has no trailing spaces. Flush it when done.
func NewTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(&trimWriter{w: w}, 0, 0, 2, ' ', 0)
}

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
