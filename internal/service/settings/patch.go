package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// Patch writes next as an edit of the document orig: every part of next
// that orig already holds keeps its bytes exactly (indentation, compact
// objects, the order and spacing of other tools' keys); only what changed
// is written anew, in the style of its surroundings. So removing what was
// added gives back the original bytes. orig must be the valid JSON next
// was parsed from and edited; an empty orig gives next.Marshal().
func Patch(orig []byte, next *Value) ([]byte, error) {
	if len(bytes.TrimSpace(orig)) == 0 {
		return next.Marshal(), nil
	}
	p := &scanner{src: orig}
	p.ws()
	root, err := p.value()
	if err != nil {
		return nil, err
	}
	end := p.pos
	p.ws()
	if p.pos != len(orig) {
		return nil, errors.New("trailing data after the JSON document")
	}
	r := &renderer{src: orig, unit: indentUnit(orig)}
	var b bytes.Buffer
	b.Write(orig[:root.start])
	r.node(&b, root, next, lineIndent(orig, root.start), bytes.IndexByte(orig, '\n') >= 0)
	b.Write(orig[end:])
	return b.Bytes(), nil
}

// node is a JSON value of the original text and where it lies.
type node struct {
	kind       Kind
	start, end int
	members    []member // Object
	items      []member // Array (key unused)
	closeWS    string   // whitespace before the closing bracket
}

// member is one member of an object or item of an array: the whitespace
// before it, its key (objects), the text from the key (or value) to the
// value's end, and the whitespace after it before the comma or bracket.
type member struct {
	lead       string
	key        string
	bodyStart  int // the key's (object) or value's (array) first byte
	valueStart int // the text between bodyStart and valueStart is `"key": `
	val        *node
	trail      string
}

type scanner struct {
	src []byte
	pos int
}

var errSyntax = errors.New("invalid JSON")

func (p *scanner) ws() string {
	start := p.pos
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
	return string(p.src[start:p.pos])
}

func (p *scanner) value() (*node, error) {
	if p.pos >= len(p.src) {
		return nil, errSyntax
	}
	n := &node{start: p.pos}
	switch c := p.src[p.pos]; {
	case c == '{' || c == '[':
		n.kind = Object
		closing := byte('}')
		if c == '[' {
			n.kind, closing = Array, ']'
		}
		p.pos++
		for {
			lead := p.ws()
			if p.pos < len(p.src) && p.src[p.pos] == closing {
				n.closeWS = lead
				p.pos++
				break
			}
			m := member{lead: lead, bodyStart: p.pos}
			if n.kind == Object {
				ks := p.pos
				if err := p.str(); err != nil {
					return nil, err
				}
				if k := p.src[ks+1 : p.pos-1]; bytes.IndexByte(k, '\\') < 0 {
					m.key = string(k)
				} else if err := json.Unmarshal(p.src[ks:p.pos], &m.key); err != nil {
					return nil, errSyntax
				}
				p.ws()
				if p.pos >= len(p.src) || p.src[p.pos] != ':' {
					return nil, errSyntax
				}
				p.pos++
				p.ws()
			}
			m.valueStart = p.pos
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			m.val = v
			m.trail = p.ws()
			if p.pos >= len(p.src) {
				return nil, errSyntax
			}
			switch p.src[p.pos] {
			case ',':
				p.pos++
			case closing:
				// The whitespace before the bracket belongs to the object.
				n.closeWS, m.trail = m.trail, ""
				p.pos++
				if n.kind == Object {
					n.members = append(n.members, m)
				} else {
					n.items = append(n.items, m)
				}
				n.end = p.pos
				return n, nil
			default:
				return nil, errSyntax
			}
			if n.kind == Object {
				n.members = append(n.members, m)
			} else {
				n.items = append(n.items, m)
			}
		}
	case c == '"':
		n.kind = Scalar
		if err := p.str(); err != nil {
			return nil, err
		}
	default:
		n.kind = Scalar
		for p.pos < len(p.src) && strings.IndexByte(",}] \t\r\n", p.src[p.pos]) < 0 {
			p.pos++
		}
		if p.pos == n.start {
			return nil, errSyntax
		}
	}
	n.end = p.pos
	return n, nil
}

func (p *scanner) str() error {
	if p.pos >= len(p.src) || p.src[p.pos] != '"' {
		return errSyntax
	}
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			return nil
		}
		p.pos++
	}
	return errSyntax
}

// same tells whether the original node o is the edited value v, as Equal
// would say of o's Value (the same text, key order included), without
// building it: comparing costs o's size, and Patch descends only into
// what differs, so a large file with a small edit is compared about once.
func (r *renderer) same(o *node, v *Value) bool {
	if o.kind != v.Kind {
		return false
	}
	switch o.kind {
	case Object:
		if len(o.members) != len(v.Keys) {
			return false
		}
		for i, m := range o.members {
			if m.key != v.Keys[i] || !r.same(m.val, v.Vals[i]) {
				return false
			}
		}
		return true
	case Array:
		if len(o.items) != len(v.Items) {
			return false
		}
		for i, m := range o.items {
			if !r.same(m.val, v.Items[i]) {
				return false
			}
		}
		return true
	}
	return string(r.src[o.start:o.end]) == v.Raw
}

type renderer struct {
	src  []byte
	unit string // one level of indentation, as the document uses
}

// node writes v, the edited value whose original is o (nil: new), at an
// object or array that starts a line indented by indent; multi says
// whether its surroundings are written on several lines.
func (r *renderer) node(b *bytes.Buffer, o *node, v *Value, indent string, multi bool) {
	if o != nil && r.nonEmpty(o) {
		multi = r.multiline(o) // a value keeps its own style
	}
	switch {
	case o != nil && r.same(o, v):
		b.Write(r.src[o.start:o.end])
	case o != nil && o.kind == v.Kind && v.Kind == Object:
		r.object(b, o, v, indent, multi)
	case o != nil && o.kind == v.Kind && v.Kind == Array:
		r.array(b, o, v, indent, multi)
	default:
		r.fresh(b, v, indent, multi)
	}
}

// multiline tells whether an original object or array spans lines.
func (r *renderer) multiline(o *node) bool {
	return bytes.IndexByte(r.src[o.start:o.end], '\n') >= 0
}

// nonEmpty tells whether an original object or array has members.
func (r *renderer) nonEmpty(o *node) bool { return len(o.members)+len(o.items) > 0 }

// part is one member (or item) of the output: its original (nil: new)
// and its edited value.
type part struct {
	orig *member
	key  string
	val  *Value
}

func (r *renderer) object(b *bytes.Buffer, o *node, v *Value, indent string, multi bool) {
	used := make([]bool, len(o.members))
	parts := make([]part, 0, len(v.Keys))
	for i, k := range v.Keys {
		var om *member
		for j := range o.members {
			if !used[j] && o.members[j].key == k {
				used[j], om = true, &o.members[j]
				break
			}
		}
		parts = append(parts, part{om, k, v.Vals[i]})
	}
	r.join(b, o, o.members, parts, indent, multi, '{', '}')
}

func (r *renderer) array(b *bytes.Buffer, o *node, v *Value, indent string, multi bool) {
	used := make([]bool, len(o.items))
	parts := make([]part, len(v.Items))
	// Items equal to an original item keep its text; then a changed item
	// takes the unused original at its own position.
	for i, it := range v.Items {
		for j := range o.items {
			if !used[j] && r.same(o.items[j].val, it) {
				used[j], parts[i] = true, part{orig: &o.items[j], val: it}
				break
			}
		}
	}
	for i, it := range v.Items {
		if parts[i].orig == nil {
			parts[i].val = it
			if i < len(o.items) && !used[i] && o.items[i].val.kind == it.Kind {
				used[i], parts[i].orig = true, &o.items[i]
			}
		}
	}
	r.join(b, o, o.items, parts, indent, multi, '[', ']')
}

// join writes an object or array of parts in the original's style: a
// kept part with the whitespace it had; a new one with its neighbours'
// (or, in an empty one, one level deeper than the bracket's line).
func (r *renderer) join(b *bytes.Buffer, o *node, origs []member, parts []part, indent string, multi bool, open, close byte) {
	b.WriteByte(open)
	var lead, inner string
	switch {
	case len(origs) > 0:
		lead = origs[len(origs)-1].lead
		inner = leadIndent(lead, indent)
	case multi:
		inner = indent + r.unit
		lead = "\n" + inner
	}
	closeWS := o.closeWS
	if len(origs) == 0 && len(parts) > 0 && multi && !strings.Contains(closeWS, "\n") {
		closeWS = "\n" + indent
	}
	var last *member
	if len(origs) > 0 {
		last = &origs[len(origs)-1]
	}
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		if p.orig != nil {
			b.WriteString(p.orig.lead)
			b.Write(r.src[p.orig.bodyStart:p.orig.valueStart])
			r.node(b, p.orig.val, p.val, leadIndent(p.orig.lead, inner), strings.Contains(p.orig.lead, "\n"))
			if p.orig != last {
				b.WriteString(p.orig.trail)
			}
			continue
		}
		b.WriteString(lead)
		if open == '{' {
			b.WriteString(String(p.key).Raw)
			if lead == "" {
				b.WriteString(":")
			} else {
				b.WriteString(": ")
			}
		}
		r.fresh(b, p.val, inner, lead != "")
	}
	b.WriteString(closeWS)
	b.WriteByte(close)
}

// fresh writes a new value: indented like the document when multi-line,
// else on one line.
func (r *renderer) fresh(b *bytes.Buffer, v *Value, indent string, multi bool) {
	if !multi {
		b.WriteString(compactJSON(v))
		return
	}
	var tmp bytes.Buffer
	v.write(&tmp, "")
	text := tmp.String()
	if r.unit != "  " {
		text = reindent(text, r.unit)
	}
	b.WriteString(strings.ReplaceAll(text, "\n", "\n"+indent))
}

// compactJSON is v on one line, as a compact file writes it.
func compactJSON(v *Value) string {
	switch v.Kind {
	case Object:
		parts := make([]string, len(v.Keys))
		for i, k := range v.Keys {
			parts[i] = String(k).Raw + ":" + compactJSON(v.Vals[i])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case Array:
		parts := make([]string, len(v.Items))
		for i, it := range v.Items {
			parts[i] = compactJSON(it)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return v.Raw
}

// reindent replaces the two-space indentation of Marshal by unit.
func reindent(text, unit string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		n := len(l) - len(strings.TrimLeft(l, " "))
		lines[i] = strings.Repeat(unit, n/2) + l[n:]
	}
	return strings.Join(lines, "\n")
}

// leadIndent is the indentation a member's leading whitespace gives it:
// what follows its last newline, or indent when it has none.
func leadIndent(lead, indent string) string {
	if i := strings.LastIndexByte(lead, '\n'); i >= 0 {
		return lead[i+1:]
	}
	return indent
}

// lineIndent is the indentation of the line holding offset off.
func lineIndent(src []byte, off int) string {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	end := start
	for end < off && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// indentUnit guesses one level of the document's indentation: the
// smallest indentation of a line that has any (a tab if lines start with
// tabs), two spaces when nothing tells.
func indentUnit(src []byte) string {
	best := ""
	for _, l := range strings.Split(string(src), "\n") {
		t := strings.TrimLeft(l, " \t")
		if t == "" || len(t) == len(l) {
			continue
		}
		ind := l[:len(l)-len(t)]
		if strings.HasPrefix(ind, "\t") {
			return "\t"
		}
		if best == "" || len(ind) < len(best) {
			best = ind
		}
	}
	if best == "" {
		return "  "
	}
	return best
}
