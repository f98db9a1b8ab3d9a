package inject

import (
	"strings"
)

// Memory files are untrusted input (a cloned repository's MEMORY.md, a
// session goal): their text must not close the client's tags around the
// block (claudecode.Neutralize) nor forge ccmem's own section headers.

// escapeHeader keeps a line of file content from passing for one of the
// block's own section headers ("# …"): a Markdown level-1 header in every
// form CommonMark reads one — "#" then a space, a tab or the line's end,
// after up to three spaces, or a line of "=" under a line of text (a
// setext header) — is escaped ("\# …", "\==="); deeper headers
// ("## Build") stay as they are.
// SafeLines makes text from the disk (a profile, a file's lines) safe to
// place among the lines the model reads: each line one line (str.Line)
// that cannot pass for a header; the newlines between them stay. It is
// what the block's sections get (see Fit), for text given outside it.
func SafeLines(text string) string {
	lines := strings.Split(text, "\n")
	return strings.Join(fenceLines(lines), "\n")
}

func escapeHeader(line string) string {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	rest := line[i:]
	if strings.HasPrefix(rest, "# ") || strings.HasPrefix(rest, "#\t") || rest == "#" {
		return line[:i] + `\` + rest
	}
	if u := strings.TrimRight(rest, " \t"); u != "" && strings.Trim(u, "=") == "" {
		return line[:i] + `\` + rest // a setext underline
	}
	return line
}
