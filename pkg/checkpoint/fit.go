package checkpoint

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/episode"
)

// Size is what the note takes in the episode's JSON, as the codec writes
// it (indented, escaped).
func (x Note) Size() int {
	if x.Limit > 0 && len(x.Text) > x.Limit {
		// A raw note keeps at most limit of its characters.
		if r := utf8.RuneCountInString(x.Text); r > x.Limit {
			x.Text = x.Text[:len(x.Text)*x.Limit/r]
		}
	}
	n := len("      {\n        \"turn\": ,\n        \"kind\": \"\",\n        \"text\": \n      },\n") + len(strconv.Itoa(x.Turn)) + len(x.Kind) + jsonLen(x.Text)
	if x.At != "" {
		n += len("        \"at\": ,\n") + jsonLen(x.At)
	}
	if x.Cmd != "" {
		n += len("        \"cmd\": ,\n") + jsonLen(x.Cmd)
	}
	if len(x.After) > 0 {
		n += len("        \"after\": [\n        ],\n")
		for _, a := range x.After {
			n += 12 + jsonLen(a)
		}
	}
	return n
}

// Size is what the digest takes in the episode's JSON.
func (d *Digest) Size() int {
	n := 64
	for _, x := range d.Notes {
		n += x.Size()
	}
	for _, s := range d.Commands {
		n += 8 + jsonLen(s)
	}
	for _, s := range d.Read {
		n += 8 + jsonLen(s)
	}
	return n
}

// jsonLen is the length of s as a JSON string, as appendJSONString writes
// it, counted without writing it.
func jsonLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// Fit brings the digest under max bytes. What gives way, in order, until
// it fits: (1) answers but the last three are cut to 300 characters, (2)
// then dropped, oldest first; (3) prompts but the first and the last three
// are cut to 600 characters (their start is kept); (4) failures and fixes
// but the last five are dropped, oldest first; (5) the command and file
// lists keep their first 20 and last 30; (6) every prompt is cut to 200
// characters, then 80, and the last answers to 300; (7) only then are
// prompts dropped, from the middle, keeping the first ten and the last
// ten. So the start of every prompt and the latest conclusions stay
// longest.
func (d *Digest) Fit(max int) {
	total := d.Size()
	if max <= 0 || total <= max {
		return
	}
	lastOf := func(kind string, n int) map[int]bool { // indices of the last n notes of kind
		out := map[int]bool{}
		for i := len(d.Notes) - 1; i >= 0 && len(out) < n; i-- {
			if d.Notes[i].Kind == kind {
				out[i] = true
			}
		}
		return out
	}
	cut := func(i, n int) {
		if x := &d.Notes[i]; x.Limit > 0 {
			// Not redacted yet: it is cut after (redact before you
			// shorten), to n characters at most.
			if n < x.Limit {
				before := x.Size()
				x.Limit = n
				total -= before - x.Size()
			}
			return
		}
		if r := []rune(d.Notes[i].Text); len(r) > n {
			before := d.Notes[i].Size()
			d.Cut += len(r) - n
			d.Notes[i].Text = strings.TrimSpace(string(r[:n-1])) + "…"
			total -= before - d.Notes[i].Size()
		}
	}
	drop := func(keep func(i int, x Note) bool) {
		out := make([]Note, 0, len(d.Notes))
		for i, x := range d.Notes {
			if !keep(i, x) && total > max {
				total -= x.Size()
				d.Dropped++
				continue
			}
			out = append(out, x)
		}
		d.Notes = out
	}
	// (1) and (2)
	last := lastOf(episode.NoteAnswer, 3)
	for i, x := range d.Notes {
		if x.Kind == episode.NoteAnswer && !last[i] && total > max {
			cut(i, 300)
		}
	}
	drop(func(i int, x Note) bool { return x.Kind != episode.NoteAnswer || last[i] })
	if total <= max {
		return
	}
	// (3)
	lastP, firstP := lastOf(episode.NotePrompt, 3), -1
	for i, x := range d.Notes {
		if x.Kind == episode.NotePrompt {
			if firstP < 0 {
				firstP = i
				continue
			}
			if !lastP[i] && total > max {
				cut(i, 600)
			}
		}
	}
	// (4)
	lastF := map[int]bool{}
	for i := len(d.Notes) - 1; i >= 0 && len(lastF) < 5; i-- {
		if k := d.Notes[i].Kind; k == episode.NoteFailure || k == episode.NoteFix {
			lastF[i] = true
		}
	}
	drop(func(i int, x Note) bool {
		return x.Kind != episode.NoteFailure && x.Kind != episode.NoteFix || lastF[i]
	})
	// (5)
	if total > max {
		d.Commands = headTail(d.Commands, 20, 30)
		d.Read = headTail(d.Read, 20, 30)
		total = d.Size()
	}
	// (6)
	for _, n := range []int{200, 80} {
		for i, x := range d.Notes {
			if total <= max {
				return
			}
			if x.Kind == episode.NotePrompt || x.Kind == episode.NoteTriage {
				cut(i, n)
			}
		}
	}
	for i, x := range d.Notes {
		if x.Kind == episode.NoteAnswer && total > max {
			cut(i, 300)
		}
	}
	// (7): prompts from the middle outwards, keeping the first and the
	// last ten; then, if even that is not enough, the oldest notes.
	var prompts []int
	for i, x := range d.Notes {
		if x.Kind == episode.NotePrompt {
			prompts = append(prompts, i)
		}
	}
	gone := make([]bool, len(d.Notes))
	// From the middle prompt outwards: m, m+1, m-1, m+2, m-2, …
	m := len(prompts) / 2
	for k := 0; total > max && k < len(prompts); k++ {
		j := m + (k+1)/2
		if k%2 == 0 {
			j = m - k/2
		}
		if j < 10 || j >= len(prompts)-10 {
			continue
		}
		i := prompts[j]
		gone[i] = true
		total -= d.Notes[i].Size()
		d.Dropped++
	}
	for i := 0; total > max && i < len(d.Notes)-1; i++ {
		if !gone[i] {
			gone[i] = true
			total -= d.Notes[i].Size()
			d.Dropped++
		}
	}
	out := d.Notes[:0]
	for i, x := range d.Notes {
		if !gone[i] {
			out = append(out, x)
		}
	}
	d.Notes = out
}

// headTail keeps the first h and the last t of list.
func headTail(list []string, h, t int) []string {
	if len(list) <= h+t {
		return list
	}
	return append(slices.Clone(list[:h]), list[len(list)-t:]...)
}

// Order puts the notes in the order of the session, whatever order they
// were read in: by turn, each turn's prompt first and its conclusion
// last, the rest as they came. A subagent's transcript is read after the
// session's (and, live, sometimes in a later hook run), so without this
// its failures would land after the turn's answer, or in another turn's
// place, depending on when the client wrote them.
func (d *Digest) Order() {
	rank := func(n Note) int {
		switch n.Kind {
		case episode.NotePrompt:
			return 0
		case episode.NoteAnswer:
			return 2
		}
		return 1
	}
	slices.SortStableFunc(d.Notes, func(a, b Note) int {
		if a.Turn != b.Turn {
			return a.Turn - b.Turn
		}
		return rank(a) - rank(b)
	})
}
