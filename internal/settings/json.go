// Package settings edits Claude Code's settings.json the way a careful person
// would: it keeps every key, its order and every value it does not touch,
// and it adds or removes only ccmem's own hook entries.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Kind is the kind of a JSON value.
type Kind int

// The kinds of JSON value.
const (
	Scalar Kind = iota
	Object
	Array
)

// Value is a JSON value that remembers the order of object keys, so a file
// written back looks like the one read, apart from indentation.
type Value struct {
	Kind  Kind
	Keys  []string // Object: member names, in order
	Vals  []*Value // Object: member values, parallel to Keys
	Items []*Value // Array
	Raw   string   // Scalar: the JSON text of a string, number, bool or null
}

// Parse reads a JSON document. Whitespace alone is an empty object, as a
// freshly created settings file may be.
func Parse(data []byte) (*Value, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return NewObject(), nil
	}
	// Validate first: the standard decoder's messages and offsets are the
	// clearest to show a person.
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, syntaxError(data, err)
	}
	return parseRaw(bytes.TrimSpace(data))
}

func syntaxError(data []byte, err error) error {
	off := int64(len(data))
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	// Offset is just past the offending byte; count lines before it.
	line := 1 + bytes.Count(data[:max(0, min(int(off)-1, len(data)))], []byte("\n"))
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg = "unexpected end of file"
	}
	return fmt.Errorf("invalid JSON at line %d: %s", line, msg)
}

// parseRaw builds a Value from one valid JSON value, keeping the text of
// scalars verbatim (a string's escapes stay as the user wrote them).
func parseRaw(raw []byte) (*Value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' && raw[0] != '[' {
		return &Value{Kind: Scalar, Raw: string(raw)}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // '{' or '['
		return nil, err
	}
	v := &Value{Kind: Array}
	if raw[0] == '{' {
		v.Kind = Object
	}
	for dec.More() {
		key := ""
		if v.Kind == Object {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ = kt.(string)
		}
		var member json.RawMessage
		if err := dec.Decode(&member); err != nil {
			return nil, err
		}
		mv, err := parseRaw(member)
		if err != nil {
			return nil, err
		}
		if v.Kind == Object {
			v.Keys = append(v.Keys, key)
			v.Vals = append(v.Vals, mv)
		} else {
			v.Items = append(v.Items, mv)
		}
	}
	return v, nil
}

// NewObject returns an empty object.
func NewObject() *Value { return &Value{Kind: Object} }

// String returns a JSON string value.
func String(s string) *Value {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return &Value{Kind: Scalar, Raw: strings.TrimSuffix(b.String(), "\n")}
}

// Int returns a JSON number value.
func Int(n int) *Value { return &Value{Kind: Scalar, Raw: fmt.Sprint(n)} }

// Str returns the value of a JSON string, and false for anything else.
func (v *Value) Str() (string, bool) {
	if v == nil || v.Kind != Scalar || !strings.HasPrefix(v.Raw, `"`) {
		return "", false
	}
	var s string
	if json.Unmarshal([]byte(v.Raw), &s) != nil {
		return "", false
	}
	return s, true
}

// Get returns the member named key of an object (the last, if repeated).
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Keys) - 1; i >= 0; i-- {
		if v.Keys[i] == key {
			return v.Vals[i]
		}
	}
	return nil
}

// Set replaces the member named key, or appends it.
func (v *Value) Set(key string, val *Value) {
	for i := len(v.Keys) - 1; i >= 0; i-- {
		if v.Keys[i] == key {
			v.Vals[i] = val
			return
		}
	}
	v.Keys = append(v.Keys, key)
	v.Vals = append(v.Vals, val)
}

// Delete removes every member named key.
func (v *Value) Delete(key string) {
	keys, vals := v.Keys[:0], v.Vals[:0]
	for i, k := range v.Keys {
		if k != key {
			keys = append(keys, k)
			vals = append(vals, v.Vals[i])
		}
	}
	v.Keys, v.Vals = keys, vals
}

// Marshal writes the value indented by two spaces, with a final newline.
func (v *Value) Marshal() []byte {
	var b bytes.Buffer
	v.write(&b, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func (v *Value) write(b *bytes.Buffer, indent string) {
	inner := indent + "  "
	switch v.Kind {
	case Scalar:
		b.WriteString(v.Raw)
	case Object:
		if len(v.Keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range v.Keys {
			b.WriteString(inner)
			b.WriteString(String(k).Raw)
			b.WriteString(": ")
			v.Vals[i].write(b, inner)
			if i < len(v.Keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case Array:
		if len(v.Items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, it := range v.Items {
			b.WriteString(inner)
			it.write(b, inner)
			if i < len(v.Items)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	}
}

// Equal tells whether two values are the same JSON text, key order included.
func Equal(a, b *Value) bool { return bytes.Equal(a.Marshal(), b.Marshal()) }

// Clone returns a deep copy.
func (v *Value) Clone() *Value {
	c := &Value{Kind: v.Kind, Raw: v.Raw, Keys: append([]string(nil), v.Keys...)}
	for _, x := range v.Vals {
		c.Vals = append(c.Vals, x.Clone())
	}
	for _, x := range v.Items {
		c.Items = append(c.Items, x.Clone())
	}
	return c
}
