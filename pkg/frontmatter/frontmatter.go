// Package frontmatter splits and decodes the YAML block that opens a
// Markdown memory file ("---\n…\n---\n").
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ccmem/ccmem/pkg/yamlite"
)

// ErrNone is returned when a file does not open with a frontmatter block.
var ErrNone = errors.New("no frontmatter")

// Split separates the frontmatter block from the body. It accepts LF and
// CRLF line ends and a leading UTF-8 byte order mark.
func Split(data []byte) (front, body []byte, err error) {
	orig := data
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	first, rest, found := cutLine(data)
	if !found || !isFence(first, false) {
		return nil, orig, ErrNone
	}
	for off := 0; ; {
		line, next, more := cutLine(rest[off:])
		if isFence(line, true) {
			return rest[:off], next, nil
		}
		if !more {
			return nil, orig, errors.New("frontmatter is not closed by a --- line")
		}
		off = len(rest) - len(next)
	}
}

func isFence(line []byte, closing bool) bool {
	t := string(bytes.TrimRight(line, " \t"))
	return t == "---" || closing && t == "..."
}

// cutLine returns the first line of data without its line end, the rest,
// and whether a line end was found.
func cutLine(data []byte) (line, rest []byte, found bool) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return data, nil, false
	}
	return bytes.TrimSuffix(data[:i], []byte("\r")), data[i+1:], true
}

// Meta is the frontmatter of a memory file as Claude Code writes it.
type Meta struct {
	Name        string
	Description string
	// Type is "type" at the top level or under "metadata:".
	Type string
	// Fields holds every top-level key, for callers that need more.
	Fields map[string]any
}

// Parse decodes a frontmatter block.
func Parse(front []byte) (Meta, error) {
	n, err := yamlite.Parse(front)
	if err != nil {
		return Meta{}, fmt.Errorf("frontmatter is not valid YAML: %s", firstLine(err.Error()))
	}
	fields := map[string]any{}
	if n != nil {
		m, ok := n.Interface().(map[string]any)
		if !ok {
			return Meta{}, errors.New("frontmatter is not valid YAML: not a mapping of keys")
		}
		fields = m
	}
	m := Meta{Fields: fields}
	m.Name = str(fields["name"])
	m.Description = str(fields["description"])
	m.Type = str(fields["type"])
	if md, ok := fields["metadata"].(map[string]any); ok && m.Type == "" {
		m.Type = str(md["type"])
	}
	return m, nil
}

// Read splits and parses a whole memory file.
func Read(data []byte) (Meta, []byte, error) {
	front, body, err := Split(data)
	if err != nil {
		return Meta{}, body, err
	}
	m, err := Parse(front)
	return m, body, err
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	default:
		return fmt.Sprint(t)
	}
}

func firstLine(s string) string {
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
