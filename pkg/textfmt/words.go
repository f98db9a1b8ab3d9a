package textfmt

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Plural is "1 silo" or "2 silos": n with the form of the noun it takes.
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Nearest is the candidate closest to word, for a "did you mean" hint: at
// most two edits away (a swap of neighbours counts one) and closer than
// half the word's length, so short words suggest only near misses; "" when
// none is that close.
func Nearest(word string, candidates []string) string {
	word = strings.ToLower(word)
	best, bestD := "", 3
	for _, c := range candidates {
		d := editDistance(word, strings.ToLower(c))
		if d < bestD && d*2 <= utf8.RuneCountInString(word) {
			best, bestD = c, d
		}
	}
	if bestD == 0 {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours, each one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Wrap reflows text for a terminal width columns wide: each paragraph
// (lines up to a blank line) is joined and broken at spaces so no line is
// longer than width, where it can be. A list item (a line starting with
// "- ", after any indentation) starts a new line, its continuation lines
// hang under its text; any other indented line is an example, kept as it
// is. Trailing spaces go. indent spaces open every line.
func Wrap(text string, width, indent int) string {
	pad := strings.Repeat(" ", indent)
	var out []string
	var para []string // words of the current group
	hang := ""        // what continuation lines of the group start with
	flush := func() {
		if len(para) > 0 {
			out = append(out, fill(para, width-indent, hang)...)
		}
		para, hang = nil, ""
	}
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		line = strings.TrimRight(line, " \t")
		trimmed := strings.TrimLeft(line, " ")
		lead := line[:len(line)-len(trimmed)]
		switch {
		case trimmed == "":
			flush()
			out = append(out, "")
		case strings.HasPrefix(trimmed, "- "):
			flush()
			hang = lead + "  "
			f := strings.Fields(trimmed)
			para = append([]string{lead + f[0]}, f[1:]...)
		case lead != "" && (hang == "" || lead != hang):
			flush()
			out = append(out, line)
		default:
			para = append(para, strings.Fields(line)...)
		}
	}
	flush()
	for i, l := range out {
		if l != "" {
			out[i] = pad + l
		}
	}
	return strings.Join(out, "\n")
}

// Hanging breaks s at spaces into lines of at most width characters, the
// lines after the first starting with hang (a usage line, a table cell).
func Hanging(s string, width int, hang string) string {
	return strings.Join(fill(strings.Fields(s), width, hang), "\n")
}

// Columns lays out two-column rows (a name, its description) indented by
// two spaces, the descriptions aligned and wrapped under themselves to
// width; a name longer than maxName puts its description on the next line.
func Columns(rows [][2]string, width, maxName int) string {
	col := 0
	for _, r := range rows {
		if n := utf8.RuneCountInString(r[0]); n <= maxName {
			col = max(col, n)
		}
	}
	hang := strings.Repeat(" ", 2+col+2)
	var b strings.Builder
	for _, r := range rows {
		name, n := r[0], utf8.RuneCountInString(r[0])
		words := strings.Fields(r[1])
		b.WriteString("  " + name)
		if len(words) == 0 {
			b.WriteString("\n")
			continue
		}
		if n > col {
			b.WriteString("\n" + hang)
		} else {
			b.WriteString(strings.Repeat(" ", col-n+2))
		}
		words[0] = hang + words[0]
		b.WriteString(strings.TrimLeft(strings.Join(fill(words, width, hang), "\n"), " ") + "\n")
	}
	return b.String()
}

// fill breaks words into lines of at most width characters (a longer word
// gets a line of its own), continuation lines starting with hang.
func fill(words []string, width int, hang string) []string {
	var lines []string
	line := ""
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = hang + w
		}
	}
	return append(lines, line)
}
