package command

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/ccmem/ccmem/pkg/textfmt"
)

// TestTableAsTabwriter: for ASCII cells the table is text/tabwriter's
// (two spaces apart, blocks of rows aligned column by column), without
// trailing spaces; random tables with ragged rows and empty cells.
func TestTableAsTabwriter(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	words := []string{"", "a", "session", "2026-11-25", "42", "go test ./...", "x y z"}
	for round := range 500 {
		var rows [][]string
		for range r.Intn(6) + 1 {
			row := make([]string, r.Intn(5)+1)
			for i := range row {
				row[i] = words[r.Intn(len(words))]
			}
			rows = append(rows, row)
		}
		var want bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
		got := &bytes.Buffer{}
		tb := NewTable(got)
		for _, row := range rows {
			tw.Write([]byte(strings.Join(row, "\t") + "\n"))
			cells := make([]any, len(row))
			for i, c := range row {
				cells[i] = c
			}
			tb.Row(cells...)
		}
		tw.Flush()
		tb.Flush()
		var trimmed []string
		for _, l := range strings.Split(strings.TrimSuffix(want.String(), "\n"), "\n") {
			trimmed = append(trimmed, strings.TrimRight(l, " "))
		}
		if w := strings.Join(trimmed, "\n") + "\n"; got.String() != w {
			t.Fatalf("round %d, rows %q:\ngot\n%s\nwant\n%s", round, rows, got, w)
		}
	}
}

// TestTableAlignsWideCharacters: a column of Chinese and Japanese words
// lines up as a terminal shows it, each such character two columns wide.
func TestTableAlignsWideCharacters(t *testing.T) {
	var out bytes.Buffer
	tb := NewTable(&out)
	tb.Row("word", "weight")
	tb.Row("幫我", "0.00")
	tb.Row("確認一下", "1.25")
	tb.Row("deploy", "3.50")
	tb.Flush()
	col := -1
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		i := strings.LastIndex(l, "  ")
		at := textfmt.Width(l[:i+2])
		if col >= 0 && at != col {
			t.Fatalf("the second column starts at display column %d and %d:\n%s", col, at, out.String())
		}
		col = at
	}
	if textfmt.Width("確認a") != 5 || textfmt.Width("e\u0301") != 1 || textfmt.Width("ｶ") != 1 || textfmt.Width("Ａ") != 2 {
		t.Fatal("textfmt.Width counts wrong")
	}
}
