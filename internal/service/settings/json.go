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
	// clearest to show a person (json.Valid allocates nothing; only an
	// invalid document is decoded again for its message).
	if !json.Valid(data) {
		var probe any
		return nil, syntaxError(data, json.Unmarshal(data, &probe))
	}
	return parseRaw(data)
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

// parseRaw builds a Value from a valid JSON document, keeping the text of
// scalars verbatim (a string's escapes stay as the user wrote them). It is
// one pass of the scanner Patch uses, so a document of tens of megabytes
// (the client's .claude.json keeps every project's history) costs about a
// copy of it, not a decode per level of nesting.
func parseRaw(raw []byte) (*Value, error) {
	p := &scanner{src: raw}
	p.ws()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos != len(raw) {
		return nil, errSyntax
	}
	return toValue(raw, n), nil
}

// toValue is the Value of an original node.
func toValue(src []byte, n *node) *Value {
	switch n.kind {
	case Object:
		v := &Value{Kind: Object, Keys: make([]string, len(n.members)), Vals: make([]*Value, len(n.members))}
		for i, m := range n.members {
			v.Keys[i], v.Vals[i] = m.key, toValue(src, m.val)
		}
		return v
	case Array:
		v := &Value{Kind: Array, Items: make([]*Value, len(n.items))}
		for i, m := range n.items {
			v.Items[i] = toValue(src, m.val)
		}
		return v
	}
	return &Value{Kind: Scalar, Raw: string(src[n.start:n.end])}
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
