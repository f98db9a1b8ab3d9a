// Package inject composes the memory block a session starts with: pure
// functions from sections of lines to one text inside the client's inline
// limit, with a visible marker wherever something was cut, byte-identical
// for identical inputs.
package inject

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Section is one part of the injected block, before it is fitted.
type Section struct {
	// Name identifies the section: global, learned, briefing, project,
	// records, episodes or nudge.
	Name string
	// Title is the heading line shown above the lines.
	Title string
	// Path is the file a cut points the reader at.
	Path string
	// Lines are the lines that may be shown, at most Cap of them.
	Lines []string
	// Full, when set, is a longer rendering of all of Lines (each entry
	// with its body), shown instead of Lines when it fits.
	Full []string
	// Total is how many lines the source has in all.
	Total int
	// Cap is the section's configured line cap.
	Cap int
	// Approx is set when Total is an estimate (a very big file).
	Approx bool
	// Share is the fraction of the block (after the preamble and the
	// nudge) the section is guaranteed when it needs it; what a section
	// leaves unused goes to the others, in priority order.
	Share float64
	// Whole marks a section shown whole or not at all, without a cut
	// marker (a note that means nothing in part: what triage left); it
	// is given its room after the nudge, before the shares.
	Whole bool
	// Refs, when set, name the memory on each of Lines ("" for none), so
	// that what the block shows is known later (see Block.Refs).
	Refs []string
}

// SectionReport says what became of one section in the fitted block.
type SectionReport struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Cap   int    `json:"cap"`
	Total int    `json:"total_lines"`
	Shown int    `json:"shown_lines"`
	Chars int    `json:"chars"`
	// Guaranteed is the characters the section's share assures it: it is
	// cut below that only when it needs less.
	Guaranteed int `json:"guaranteed_chars"`
	// Full is set when the section was shown in its longer rendering.
	Full bool `json:"full,omitempty"`
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
	// Refs name the memories the block shows (the Refs of the lines kept).
	Refs []string `json:"-"`
}

// priority lists sections from the first served to the last: the nudge (a
// line) is reserved first, then the scopes, most durable first. Other names
// come after, in their order.
var priority = []string{"nudge", "triage", "global", "project", "briefing", "learned", "records", "episodes"}

// fitState is one section being fitted.
type fitState struct {
	sec       Section
	keep      int   // lines of Lines shown
	full      bool  // shown as Full instead
	prefix    []int // prefix[k]: cost of the first k lines of Lines, newlines included
	fullCost  int   // cost of all of Full's lines
	fixed     int   // separator and title
	pathChars int   // the length of Path, for markerChars
	guarantee int
}

// markerChars is the length of marker(hidden, …) for this section, counted
// without building it (most tries every line count).
func (st *fitState) markerChars(hidden int) int {
	n := len("* ") + digits(hidden) + len(" more ") + len(" in ") + st.pathChars // "…" is one character
	if st.sec.Approx {
		n += len("about ")
	}
	if hidden == 1 {
		return n + len("line")
	}
	return n + len("lines")
}

func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// cost is what the section adds to the block as it stands.
func (st *fitState) cost() int {
	if st.keep == 0 && st.sec.Total > 0 {
		// Fully cut: only its marker line remains, no title.
		return len(sectionSep) + st.markerChars(st.sec.Total)
	}
	c := st.fixed
	if st.full {
		c += st.fullCost
	} else {
		c += st.prefix[st.keep]
	}
	if hidden := st.sec.Total - st.keep; hidden > 0 {
		c += 1 + st.markerChars(hidden)
	}
	return c
}

// most is the most lines, at least from, the section can show in room
// characters (from when none fits).
func (st *fitState) most(from, room int) int {
	keep := st.keep
	defer func() { st.keep = keep }()
	for k := len(st.sec.Lines); k > from; k-- {
		st.keep = k
		if st.cost() <= room {
			return k
		}
	}
	return from
}

// Fit composes preamble and sections into one block of at most budget
// characters (as the client counts them). Each section first gets what it
// needs up to its guaranteed share; the room left goes to the sections
// still wanting, in priority order. A section over its room loses lines
// from its end, and every cut leaves a visible "… N more lines in PATH"
// line. Empty sections are left out. The result is a pure function of its
// inputs, so unchanged files give identical bytes.
func Fit(preamble string, sections []Section, budget int) Block {
	states := make([]*fitState, 0, len(sections))
	for _, s := range sections {
		if len(s.Lines) == 0 && s.Total == 0 {
			continue
		}
		s.Lines = fenceLines(s.Lines)
		if s.Full != nil {
			s.Full = fenceLines(s.Full)
		}
		s.Title, s.Path = textfmt.Line(s.Title), textfmt.Line(s.Path)
		st := &fitState{sec: s, keep: len(s.Lines), fixed: len(sectionSep) + textfmt.Chars(s.Title), pathChars: textfmt.Chars(s.Path)}
		st.prefix = make([]int, len(s.Lines)+1)
		for i, l := range s.Lines {
			st.prefix[i+1] = st.prefix[i] + 1 + textfmt.Chars(l)
		}
		for _, l := range s.Full {
			st.fullCost += 1 + textfmt.Chars(l)
		}
		states = append(states, st)
	}
	ordered := slices.Clone(states)
	rank := func(name string) int {
		if i := slices.Index(priority, name); i >= 0 {
			return i
		}
		return len(priority)
	}
	slices.SortStableFunc(ordered, func(a, b *fitState) int { return rank(a.sec.Name) - rank(b.sec.Name) })

	// The guarantees: the nudge's whole line, then each share of what is
	// left after the preamble and the nudge.
	room := budget - textfmt.Chars(preamble)
	for _, st := range ordered {
		if st.sec.Name == "nudge" {
			room -= st.cost()
		}
	}
	room = max(0, room)
	// A whole section takes its room next, or is left out.
	dropped := map[*fitState]bool{}
	for _, st := range ordered {
		if st.sec.Whole && st.sec.Name != "nudge" {
			if c := st.cost(); c <= room {
				room -= c
			} else {
				dropped[st] = true
			}
		}
	}
	budgetCut := map[*fitState]bool{}
	for _, st := range ordered {
		if st.sec.Name == "nudge" || st.sec.Whole {
			st.guarantee = st.cost()
			if dropped[st] {
				st.guarantee = 0
				budgetCut[st] = true
			}
			continue
		}
		st.guarantee = int(math.Floor(min(1, max(0, st.sec.Share)) * float64(room)))
		// Within its guarantee: the longer rendering if it fits, else the
		// lines that fit.
		if st.sec.Full != nil {
			st.full = true
			if st.cost() > st.guarantee {
				st.full = false
			}
		}
		if st.cost() > st.guarantee {
			// The most lines within the guarantee (a cut adds a marker
			// line, so fewer lines can cost more: search them all).
			st.keep = st.most(0, st.guarantee)
			budgetCut[st] = true
		}
	}
	total := textfmt.Chars(preamble)
	for _, st := range states {
		if !dropped[st] {
			total += st.cost()
		}
	}
	// The room left, in priority order: each section takes back the most
	// lines the budget allows, then its longer rendering.
	for _, st := range ordered {
		if st.sec.Whole {
			continue
		}
		before := st.cost()
		if k := st.most(st.keep, budget-total+before); k > st.keep {
			st.keep = k
			total += st.cost() - before
		}
		if st.sec.Full != nil && !st.full && st.keep == len(st.sec.Lines) {
			before := st.cost()
			st.full = true
			if total+st.cost()-before > budget {
				st.full = false
			} else {
				total += st.cost() - before
			}
		}
		if st.keep == len(st.sec.Lines) && (st.sec.Full == nil || st.full) {
			delete(budgetCut, st)
		}
	}
	// Only with paths too long for the budget: drop whole sections,
	// marker included, lowest priority first.
	for i := len(ordered) - 1; i >= 0 && total > budget; i-- {
		st := ordered[i]
		if dropped[st] {
			continue
		}
		total -= st.cost()
		dropped[st] = true
		budgetCut[st] = true
	}

	var b strings.Builder
	b.WriteString(preamble)
	reports := make([]SectionReport, 0, len(states))
	var refs []string
	for _, st := range states {
		r := SectionReport{Name: st.sec.Name, Path: st.sec.Path, Cap: st.sec.Cap, Total: st.sec.Total, Guaranteed: st.guarantee}
		if !dropped[st] {
			start := b.Len()
			writeSection(&b, st)
			r.Shown, r.Full = st.keep, st.full
			r.Chars = textfmt.Chars(b.String()[start:])
			for _, ref := range st.sec.Refs[:min(st.keep, len(st.sec.Refs))] {
				if ref != "" {
					refs = append(refs, ref)
				}
			}
		}
		switch {
		case budgetCut[st]:
			r.Cut = "budget"
		case r.Shown < r.Total:
			r.Cut = "cap"
		}
		reports = append(reports, r)
	}
	text := claudecode.Neutralize(b.String())
	// Only the preamble is left and it alone is too long (a pathological
	// home path): cut whole lines from its end.
	chars := textfmt.Chars(text)
	for chars > budget {
		i := strings.LastIndexByte(text, '\n')
		if i < 0 {
			text = ""
		} else {
			text = text[:i]
		}
		chars = textfmt.Chars(text)
	}
	return Block{Text: text, Chars: chars, Budget: budget, Sections: reports, Refs: refs}
}

const sectionSep = "\n\n"

// fenceLines makes each line of a section's content one safe line (no
// control character, no CR or line separator that a reader could take for
// a line break: textfmt.Line) that cannot pass for a section header (a copy;
// the caller's lines are not changed).
func fenceLines(lines []string) []string {
	var out []string
	for i, l := range lines {
		if e := escapeHeader(textfmt.Line(l)); e != l {
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

func writeSection(b *strings.Builder, st *fitState) {
	s, keep := st.sec, st.keep
	b.WriteString(sectionSep)
	if keep == 0 && s.Total > 0 {
		b.WriteString(marker(s.Total, s.Path, s.Approx))
		return
	}
	b.WriteString(s.Title)
	shown := s.Lines[:keep]
	if st.full {
		shown = s.Full
	}
	for _, l := range shown {
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
