package claudecode

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// MaxString bounds each string of a hook's input: a tool's error, a
// command, a prompt or a file's content may run to megabytes, and a hook
// only ever uses its head (a command's words, an error's signature, a
// prompt's first sentences). Past it the string is cut as it is read, so
// a hook's work follows this bound, not the input's size: a 60 MB command
// costs a pass over its bytes, not a 60 MB string to decode, match and
// collect.
const MaxString = 256 << 10

// cutMark ends a string that was cut.
const cutMark = " …"

// shortenStrings copies the JSON text of r with every string longer than
// max bytes cut, reading at most limit bytes (more is an error). A cut
// never falls inside an escape or a character, and falls at the last
// white space of the string's final 4 KB when there is one, so no word —
// no secret — is kept in part (the redactor sees whole words or none).
// Text that is not JSON is copied as it is, for Decode to refuse.
func shortenStrings(r io.Reader, max, limit int) ([]byte, bool, error) {
	var out bytes.Buffer
	buf := make([]byte, 64<<10)
	var (
		inStr, esc, skip bool
		hex              int // hex digits of a \u escape still to come
		start            int // where the current string's contents begin in out
		safe             int // a cut point: a character boundary outside an escape
		space            int // the cut point after the last white space, or -1
		total            int
	)
	// check cuts the current string once its contents pass max.
	check := func() {
		if out.Len()-start <= max {
			return
		}
		cut := safe
		if space > start && space > cut-4096 {
			cut = space
		}
		out.Truncate(cut)
		skip = true
	}
	for {
		n, err := r.Read(buf)
		total += n
		if total > limit {
			return nil, true, nil
		}
		b := buf[:n]
		for i := 0; i < len(b); i++ {
			c := b[i]
			if !inStr {
				// Outside strings: copy up to the next quote at once.
				j := bytes.IndexByte(b[i:], '"')
				if j < 0 {
					out.Write(b[i:])
					break
				}
				out.Write(b[i : i+j+1])
				i += j
				inStr, skip, hex = true, false, 0
				start = out.Len()
				safe, space = start, -1
				continue
			}
			if skip && !esc && hex == 0 {
				// Past the cut: jump to the next quote or backslash.
				j := bytes.IndexAny(b[i:], "\"\\")
				if j < 0 {
					break
				}
				i += j
				c = b[i]
			}
			switch {
			case esc:
				esc = false
				if c == 'u' {
					hex = 4
				}
				if !skip {
					out.WriteByte(c)
					if hex == 0 {
						safe = out.Len()
						if c == 'n' || c == 't' || c == 'r' {
							space = safe
						}
					}
					check()
				}
				continue
			case hex > 0:
				hex--
				if !skip {
					out.WriteByte(c)
					if hex == 0 {
						safe = out.Len()
					}
					check()
				}
				continue
			case c == '\\':
				esc = true
				if !skip {
					safe = out.Len()
					out.WriteByte(c)
					check()
				}
				continue
			case c == '"':
				if skip {
					out.WriteString(cutMark)
				}
				out.WriteByte('"')
				inStr = false
				continue
			}
			if skip {
				continue
			}
			if utf8.RuneStart(c) {
				safe = out.Len()
			}
			out.WriteByte(c)
			if c == ' ' || c == '\t' {
				space = out.Len()
			}
			check()
		}
		if err == io.EOF {
			return out.Bytes(), false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}
