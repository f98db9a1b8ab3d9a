// Package jsonread reads JSON into typed places by hand: what a hook reads
// on every run (its checkpoint, transcript lines) without encoding/json's
// reflective set-up, which costs a short-lived process more than the
// reading. Callers hold it to encoding/json with fuzz tests.
package jsonread

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Reader reads one JSON value into typed places, as encoding/json would
// read it into a struct (keys matched exactly, else case-insensitively;
// null leaves a value as it is, empties a slice or map), without its
// reflective set-up. Like encoding/json, it stops at a syntax error but
// goes on past a value of the wrong type (leaving its place as it was),
// and reports the first error of either kind.
type Reader struct {
	data    []byte
	i       int
	err     error // a syntax error: reading stopped
	typeErr error // the first value of the wrong type
}

// New is a Reader of data.
func New(data []byte) *Reader { return &Reader{data: data} }

// Err is the first error met, or nil.
func (d *Reader) Err() error {
	if d.err != nil {
		return d.err
	}
	return d.typeErr
}

// SyntaxError is the syntax error that stopped the reading, or nil
// (encoding/json decodes nothing from input with one).
func (d *Reader) SyntaxError() error { return d.err }

// End checks that nothing but white space follows the value read, and
// returns the first error met.
func (d *Reader) End() error {
	d.ws()
	if d.err == nil && d.i < len(d.data) {
		d.fail("invalid character after top-level value")
	}
	return d.Err()
}

// Raw reads any value and returns its bytes, as a json.RawMessage field
// holds them (null too, as "null").
func (d *Reader) Raw() []byte {
	d.ws()
	start := d.i
	d.Skip()
	if d.err != nil {
		return nil
	}
	return d.data[start:d.i]
}

// Fail stops the reading with an error at the current position.
func (d *Reader) Fail(msg string) { d.fail(msg) }

func (d *Reader) fail(msg string) {
	if d.err == nil {
		d.err = fmt.Errorf("json: %s at offset %d", msg, d.i)
	}
	d.i = len(d.data)
}

func (d *Reader) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// Peek is the next byte after white space (0 at the end, an error).
func (d *Reader) Peek() byte {
	d.ws()
	if d.i < len(d.data) {
		return d.data[d.i]
	}
	d.fail("unexpected end of JSON input")
	return 0
}

func (d *Reader) literal(word string) bool {
	if d.err == nil && len(d.data)-d.i >= len(word) && string(d.data[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// Nullable reads null (calling onNull) or another value (onValue reads it).
func (d *Reader) Nullable(onNull, onValue func()) {
	if d.Peek() == 'n' {
		if !d.literal("null") {
			d.fail("invalid character in literal null")
		}
		onNull()
		return
	}
	if d.err == nil {
		onValue()
	}
}

// Value reads an object with read, or null (a no-op, as for a struct).
func (d *Reader) Value(read func()) { d.Nullable(func() {}, read) }

// Object reads an object, calling field with each key to read its value.
func (d *Reader) Object(field func(key string)) {
	if d.Peek() != '{' {
		d.typeError()
		return
	}
	d.i++
	if d.Peek() == '}' {
		d.i++
		return
	}
	for d.err == nil {
		if d.Peek() != '"' {
			d.fail("looking for beginning of object key string")
			return
		}
		key := d.quoted()
		if d.Peek() != ':' {
			d.fail("after object key")
			return
		}
		d.i++
		field(key)
		switch d.Peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return
		default:
			d.fail("after object key:value pair")
		}
	}
}

// Array reads an array, calling elem to read each element.
func (d *Reader) Array(elem func()) {
	if d.Peek() != '[' {
		d.typeError()
		return
	}
	d.i++
	if d.Peek() == ']' {
		d.i++
		return
	}
	for d.err == nil {
		elem()
		switch d.Peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return
		default:
			d.fail("after array element")
		}
	}
}

// Field is the known key k names: itself, else the one it equals
// case-insensitively, else "".
func (d *Reader) Field(k string, keys []string) string {
	if slices.Contains(keys, k) {
		return k
	}
	for _, known := range keys {
		if strings.EqualFold(k, known) {
			return known
		}
	}
	return ""
}

// typeError skips a value of the wrong type and records the error, as
// encoding/json does (a syntax error in it is reported as such).
func (d *Reader) typeError() {
	at := d.i
	d.Skip()
	if d.err == nil && d.typeErr == nil {
		d.typeErr = fmt.Errorf("json: cannot unmarshal the value at offset %d into a field of another type", at)
	}
}

// Str reads a string (or null) into p.
func (d *Reader) Str(p *string) {
	d.Nullable(func() {}, func() {
		if d.Peek() != '"' {
			d.typeError()
			return
		}
		*p = d.quoted()
	})
}

// Strs reads an array of strings (null: nil) into p.
func (d *Reader) Strs(p *[]string) {
	d.Nullable(func() { *p = nil }, func() {
		out := (*p)[:0]
		if out == nil {
			out = []string{}
		}
		d.Array(func() {
			var s string
			d.Str(&s)
			out = append(out, s)
		})
		*p = out
	})
}

// Bool reads a boolean (or null) into p.
func (d *Reader) Bool(p *bool) {
	d.Nullable(func() {}, func() {
		switch {
		case d.literal("true"):
			*p = true
		case d.literal("false"):
			*p = false
		default:
			d.typeError()
		}
	})
}

// number reads a number literal, checked against JSON's grammar.
func (d *Reader) number() (string, bool) {
	c := d.Peek()
	if c != '-' && (c < '0' || c > '9') {
		d.typeError()
		return "", false
	}
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.data[d.i] == '-' {
		d.i++
	}
	if d.i < len(d.data) && d.data[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		d.fail("in numeric literal")
		return "", false
	}
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		if digits() == 0 {
			d.fail("after decimal point in numeric literal")
			return "", false
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			d.fail("in exponent of numeric literal")
			return "", false
		}
	}
	return string(d.data[start:d.i]), true
}

// Int64 reads an integer of bits bits (or null) into p.
func (d *Reader) Int64(p *int64, bits int) {
	d.Nullable(func() {}, func() {
		if lit, ok := d.number(); ok {
			n, err := strconv.ParseInt(lit, 10, bits)
			if err != nil {
				d.fail("cannot unmarshal number " + lit + " into an integer")
				return
			}
			*p = n
		}
	})
}

// Int reads an int (or null) into p.
func (d *Reader) Int(p *int) {
	n := int64(*p)
	d.Int64(&n, strconv.IntSize)
	*p = int(n)
}

// Uint64 reads an unsigned integer (or null) into p.
func (d *Reader) Uint64(p *uint64) {
	d.Nullable(func() {}, func() {
		if lit, ok := d.number(); ok {
			n, err := strconv.ParseUint(lit, 10, 64)
			if err != nil {
				d.fail("cannot unmarshal number " + lit + " into an unsigned integer")
				return
			}
			*p = n
		}
	})
}

// Float reads a number (or null) into p.
func (d *Reader) Float(p *float64) {
	d.Nullable(func() {}, func() {
		if lit, ok := d.number(); ok {
			f, err := strconv.ParseFloat(lit, 64)
			if err != nil {
				d.fail("cannot unmarshal number " + lit + " into a float")
				return
			}
			*p = f
		}
	})
}

// IntMap reads an object of integers (null: nil) into p.
func (d *Reader) IntMap(p *map[string]int) {
	d.Nullable(func() { *p = nil }, func() {
		if *p == nil {
			*p = map[string]int{}
		}
		d.Object(func(k string) {
			var v int
			d.Int(&v)
			(*p)[k] = v
		})
	})
}

// Skip reads any value.
func (d *Reader) Skip() {
	switch c := d.Peek(); {
	case d.err != nil:
	case c == '{':
		d.Object(func(string) { d.Skip() })
	case c == '[':
		d.Array(d.Skip)
	case c == '"':
		d.skipString()
	case c == 't' || c == 'f' || c == 'n':
		if !d.literal("true") && !d.literal("false") && !d.literal("null") {
			d.fail("invalid literal")
		}
	default:
		if c == '-' || c >= '0' && c <= '9' {
			d.number()
		} else {
			d.fail("looking for beginning of value")
		}
	}
}

// skipString reads past a string at d.i, checking it as quoted would
// (control characters and bad escapes fail) without building it: most of
// what a transcript line holds is skipped.
func (d *Reader) skipString() {
	d.i++ // the opening quote
	data := d.data
	for d.i < len(data) {
		// Plain bytes, eight at a time while they last.
		i := d.i
		for i+8 <= len(data) && plain[data[i]] && plain[data[i+1]] && plain[data[i+2]] && plain[data[i+3]] &&
			plain[data[i+4]] && plain[data[i+5]] && plain[data[i+6]] && plain[data[i+7]] {
			i += 8
		}
		for i < len(data) && plain[data[i]] {
			i++
		}
		d.i = i
		if i >= len(data) {
			break
		}
		c := data[i]
		switch {
		case c == '"':
			d.i++
			return
		case c < 0x20:
			d.fail("invalid character in string literal")
			return
		case c == '\\':
			if d.i+1 >= len(d.data) {
				d.fail("unexpected end of JSON input")
				return
			}
			switch d.data[d.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i += 2
			case 'u':
				d.i += 2
				if _, ok := d.hex4(); !ok {
					return
				}
			default:
				d.fail("invalid character in string escape code")
				return
			}
		default:
			d.i++
		}
	}
	d.fail("unexpected end of JSON input")
}

// plain are the bytes a string holds as they are: not a quote, a
// backslash or a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// TextPrefix decodes the first n bytes (at least) of raw, a JSON string
// already known to be valid (read with Raw), as encoding/json would decode
// all of it: a tool result's head costs what the head is, not the file.
func TextPrefix(raw []byte, n int) (string, error) {
	d := New(raw)
	d.ws()
	if d.Peek() != '"' {
		return "", fmt.Errorf("not a string")
	}
	s := d.quotedUpTo(n)
	return s, d.err
}

// quoted reads a string at d.i, as encoding/json unquotes it: invalid
// UTF-8 and lone surrogates become U+FFFD.
func (d *Reader) quoted() string { return d.quotedUpTo(-1) }

// quotedUpTo is quoted, stopping once n bytes (n ≥ 0) are decoded; the
// rest of the string is then not read.
func (d *Reader) quotedUpTo(n int) string {
	d.i++ // the opening quote
	start := d.i
	// The common case: no escapes, valid UTF-8.
	for d.i < len(d.data) {
		c := d.data[d.i]
		if c == '"' {
			s := d.data[start:d.i]
			if utf8.Valid(s) {
				d.i++
				return string(s)
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
		d.i++
	}
	d.i = start
	var b []byte
	for {
		if n >= 0 && len(b) >= n {
			return string(b)
		}
		if d.i >= len(d.data) {
			d.fail("unexpected end of JSON input")
			return ""
		}
		c := d.data[d.i]
		// A run of plain bytes is copied at once.
		if plain[c] {
			j := d.i + 1
			for j < len(d.data) && plain[d.data[j]] {
				j++
			}
			run := d.data[d.i:j]
			if utf8.Valid(run) {
				b = append(b, run...)
			} else {
				// Each invalid byte becomes U+FFFD, as encoding/json does.
				for k := 0; k < len(run); {
					r, size := utf8.DecodeRune(run[k:])
					b = utf8.AppendRune(b, r)
					k += size
				}
			}
			d.i = j
			continue
		}
		switch {
		case c == '"':
			d.i++
			return string(b)
		case c < 0x20:
			d.fail("invalid character in string literal")
			return ""
		case c == '\\':
			if d.i+1 >= len(d.data) {
				d.fail("unexpected end of JSON input")
				return ""
			}
			e := d.data[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return ""
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if d.i+1 < len(d.data) && d.data[d.i] == '\\' && d.data[d.i+1] == 'u' {
						save := d.i
						d.i += 2
						if r2, ok = d.hex4(); !ok {
							return ""
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							continue
						}
						d.i = save // not a pair: the second is read on its own
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				d.fail("invalid character in string escape code")
				return ""
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.data[d.i:])
			d.i += size
			b = utf8.AppendRune(b, r)
		}
	}
}

func (d *Reader) hex4() (rune, bool) {
	if len(d.data)-d.i < 4 {
		d.fail("unexpected end of JSON input")
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.data[d.i:d.i+4]), 16, 32)
	if err != nil || strings.ContainsAny(string(d.data[d.i:d.i+4]), "+-") {
		d.fail("invalid character in \\u hexadecimal character escape")
		return 0, false
	}
	d.i += 4
	return rune(n), true
}
