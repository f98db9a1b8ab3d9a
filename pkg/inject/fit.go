// Package inject composes the memory block a session starts with: pure
// functions from sections of lines to one text inside the client's inline
// limit, with a visible marker wherever something was cut, byte-identical
// for identical inputs.
package inject

import (
	"fmt"
	"strings"

	"github.com/ccmem/ccmem/internal/str"
)

// Section is one part of the injected block, before it is fitted.
type Section struct {
	// Name identifies the section: global, learned, briefing, project,
	// episodes or nudge.
	Name string
	// Title is the heading line shown above the lines.
	Title string
	// Path is the file a cut points the reader at.
	Path string
	// Lines are the lines that may be shown, at most Cap of them.
	Lines []string
	// Total is how many lines the source has in all.
	Total int
	// Cap is the section's configured line cap.
	Cap int
	// Approx is set when Total is an estimate (a very big file).
	Approx bool
}

// SectionReport says what became of one section in the fitted block.
type SectionReport struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Cap   int    `json:"cap"`
	Total int    `json:"total_lines"`
	Shown int    `json:"shown_lines"`
	Chars int    `json:"chars"`
	// Cut says why lines were left out: "" (none), "cap" (over the section's
	// cap or read limit) or "budget" (cut to fit the whole block).
	Cut string `json:"cut,omitempty"`
}

// Block is the fitted memory block.
type Block struct {
	Text     string          `json:"text"`
	Chars    int             `json:"chars"`
	Budget   int             `json:"budget"`
	Sections []SectionReport `json:"sections"`
}

// cutOrder lists sections from the first to give way to the last.
var cutOrder = []string{"episodes", "records", "learned", "briefing", "project", "global"}

// MaxInline is the client's inline limit for injected context: a longer
// value is spilled to a file and the model sees only a preview.
const MaxInline = 10000

// Fit composes preamble and sections into one block of at most budget
// characters (as the client counts them). Sections over budget lose lines
// from their end, lowest priority first, and every cut leaves a visible
// "… N more lines in PATH" line. Empty sections are left out. The result is
// a pure function of its inputs, so unchanged files give identical bytes.
func Fit(preamble string, sections []Section, budget int) Block {
	type state struct {
		sec   Section
		keep  int
		costs []int // cost of each line, newline included
		fixed int   // separator and title
	}
	states := make([]*state, 0, len(sections))
	for _, s := range sections {
		if len(s.Lines) == 0 && s.Total == 0 {
			continue
		}
		s.Lines = escapeHeaders(s.Lines)
		st := &state{sec: s, keep: len(s.Lines), fixed: str.Chars(sectionSep) + str.Chars(s.Title)}
		for _, l := range s.Lines {
			st.costs = append(st.costs, 1+str.Chars(l))
		}
		states = append(states, st)
	}
	cost := func(st *state) int {
		if st.keep == 0 && st.sec.Total > 0 {
			// Fully cut: only its marker line remains, no title.
			return str.Chars(sectionSep) + str.Chars(marker(st.sec.Total, st.sec.Path, st.sec.Approx))
		}
		c := st.fixed
		for _, lc := range st.costs[:st.keep] {
			c += lc
		}
		if hidden := st.sec.Total - st.keep; hidden > 0 {
			c += 1 + str.Chars(marker(hidden, st.sec.Path, st.sec.Approx))
		}
		return c
	}
	total := str.Chars(preamble)
	for _, st := range states {
		total += cost(st)
	}
	byName := func(name string) []*state {
		var out []*state
		for _, st := range states {
			if st.sec.Name == name {
				out = append(out, st)
			}
		}
		return out
	}
	budgetCut := map[*state]bool{}
	// Phase 1: drop lines, lowest priority first. A section left with no
	// lines shrinks to its marker line, so the cut stays visible.
	for _, name := range cutOrder {
		for _, st := range byName(name) {
			for total > budget && st.keep > 0 {
				before := cost(st)
				st.keep--
				total += cost(st) - before
				budgetCut[st] = true
			}
		}
	}
	// Phase 2 (only with paths too long for the budget): drop whole
	// sections, marker included, same order, then the rest (the nudge).
	dropped := map[*state]bool{}
	drop := func(st *state) {
		if total > budget && !dropped[st] {
			total -= cost(st)
			dropped[st] = true
			budgetCut[st] = true
		}
	}
	for _, name := range cutOrder {
		for _, st := range byName(name) {
			drop(st)
		}
	}
	for _, st := range states {
		drop(st)
	}

	var b strings.Builder
	b.WriteString(preamble)
	reports := make([]SectionReport, 0, len(states))
	for _, st := range states {
		r := SectionReport{Name: st.sec.Name, Path: st.sec.Path, Cap: st.sec.Cap, Total: st.sec.Total}
		if !dropped[st] {
			start := b.Len()
			writeSection(&b, st.sec, st.keep)
			r.Shown = st.keep
			r.Chars = str.Chars(b.String()[start:])
		}
		switch {
		case budgetCut[st]:
			r.Cut = "budget"
		case r.Shown < r.Total:
			r.Cut = "cap"
		}
		reports = append(reports, r)
	}
	text := Neutralize(b.String())
	// Phase 3: only the preamble is left and it alone is too long (a
	// pathological home path): cut whole lines from its end.
	for str.Chars(text) > budget {
		i := strings.LastIndexByte(text, '\n')
		if i < 0 {
			text = ""
			break
		}
		text = text[:i]
	}
	return Block{Text: text, Chars: str.Chars(text), Budget: budget, Sections: reports}
}

const sectionSep = "\n\n"

// escapeHeaders escapes the lines of a section's content that would pass
// for a section header (a copy; the caller's lines are not changed).
func escapeHeaders(lines []string) []string {
	var out []string
	for i, l := range lines {
		if e := escapeHeader(l); e != l {
			if out == nil {
				out = append([]string(nil), lines...)
			}
			out[i] = e
		}
	}
	if out == nil {
		return lines
	}
	return out
}

func writeSection(b *strings.Builder, s Section, keep int) {
	b.WriteString(sectionSep)
	if keep == 0 && s.Total > 0 {
		b.WriteString(marker(s.Total, s.Path, s.Approx))
		return
	}
	b.WriteString(s.Title)
	for _, l := range s.Lines[:keep] {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	if hidden := s.Total - keep; hidden > 0 {
		b.WriteByte('\n')
		b.WriteString(marker(hidden, s.Path, s.Approx))
	}
}

// marker is the visible line left where lines were cut; approx marks an
// estimated count ("about").
func marker(hidden int, path string, approx bool) string {
	unit := "lines"
	if hidden == 1 {
		unit = "line"
	}
	about := ""
	if approx {
		about = "about "
	}
	return fmt.Sprintf("… %s%d more %s in %s", about, hidden, unit, path)
}
