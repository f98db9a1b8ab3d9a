// Package yamlite reads the part of YAML that ccmem's config files and
// memory frontmatter use — block mappings and sequences, flow lists and
// maps, plain, quoted and block scalars, comments — so that the hooks,
// which run before every prompt and tool call, link no YAML library
// (whose start-up alone cost a fifth of a hook's time). Anchors,
// aliases, tags, complex keys and several documents are refused with an
// error naming the line. Plain scalars resolve as yaml.v3 resolves them
// (YAML 1.2's core schema), except timestamps, which stay strings.
// FuzzAgainstYAMLv3 holds it to yaml.v3 on what it accepts.
package yamlite

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kinds of node.
const (
	Scalar = iota
	Map
	Seq
)

// Node is a parsed value with the line it starts on.
type Node struct {
	Kind int
	Line int
	// Keys and Values are a mapping's entries, in order.
	Keys   []string
	Values []*Node
	// Items are a sequence's.
	Items []*Node
	// Text is a scalar's text; Plain tells an unquoted scalar (whose type
	// resolves from its text) from a quoted or block one (a string).
	Text  string
	Plain bool
}

// Error is a document ccmem cannot read, with its line.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// maxDepth bounds nesting: a hostile file must not exhaust the stack.
const maxDepth = 100

type line struct {
	indent int
	text   string // without the indentation, the line end and trailing spaces
	raw    string // without the indentation and the line end
	num    int
}

type parser struct {
	lines []line
	i     int
	depth int
	// open is set when the last line has no line end.
	open bool
}

// Parse reads a document; an empty one (or one of comments only) is nil.
func Parse(data []byte) (*Node, error) {
	if !utf8.Valid(data) {
		return nil, &Error{1, "the file is not UTF-8"}
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	for i, r := range text {
		if !printable(r) {
			return nil, &Error{1 + strings.Count(text[:i], "\n"), fmt.Sprintf("a control character (%U)", r)}
		}
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if i := strings.IndexAny(text, "\r\u0085\u2028\u2029"); i >= 0 {
		return nil, &Error{1 + strings.Count(text[:i], "\n"), "a line break other than LF or CRLF"}
	}
	raw := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	p := &parser{open: !strings.HasSuffix(text, "\n")}
	started := false
	for n, r := range raw {
		body := strings.TrimLeft(r, " ")
		ind := len(r) - len(body)
		if strings.HasPrefix(body, "\t") {
			return nil, &Error{n + 1, "a tab in the indentation (YAML indents with spaces)"}
		}
		if ind == 0 && !started && (body == "---" || strings.HasPrefix(body, "--- ")) {
			if rest := trimWS(strings.TrimPrefix(body, "---")); rest != "" && !strings.HasPrefix(rest, "#") {
				return nil, &Error{n + 1, "content after the document marker"}
			}
			started = true
			continue
		}
		if ind == 0 && (body == "---" || strings.HasPrefix(body, "--- ")) {
			return nil, &Error{n + 1, "more than one document"}
		}
		if ind == 0 && (body == "..." || strings.HasPrefix(body, "... ")) {
			return nil, &Error{n + 1, "document end markers (...) are not supported"}
		}
		if ind == 0 && strings.HasPrefix(body, "%") {
			return nil, &Error{n + 1, "YAML directives are not supported"}
		}
		if !blankOrComment(body) {
			started = true
		}
		p.lines = append(p.lines, line{indent: ind, text: strings.TrimRight(body, " \t"), raw: body, num: n + 1})
	}
	p.skip()
	if p.i >= len(p.lines) {
		return nil, nil
	}
	n, err := p.block(p.lines[p.i].indent)
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.i < len(p.lines) {
		return nil, &Error{p.lines[p.i].num, "unexpected text after the document (check the indentation)"}
	}
	return n, nil
}

// tabBeforeValue tells whether a tab comes before the value of a line:
// in the key, or between the indicator (":" or "-") and the value. A tab
// inside a value is text.
func tabBeforeValue(raw string, indicator byte) bool {
	i := strings.IndexByte(raw, indicator)
	if i < 0 {
		return strings.ContainsRune(raw, '\t')
	}
	if strings.ContainsRune(raw[:i], '\t') {
		return true
	}
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\t':
			return true
		case ' ':
		default:
			return false
		}
	}
	return false
}

// printable tells the characters a YAML stream may hold.
func printable(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0x7e || r == 0x85 ||
		r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd && r != 0xfeff || r >= 0x10000 && r <= 0x10ffff
}

func blankOrComment(s string) bool {
	t := trimWS(s)
	return t == "" || strings.HasPrefix(t, "#")
}

// skip moves past blank and comment lines.
func (p *parser) skip() {
	for p.i < len(p.lines) && blankOrComment(p.lines[p.i].text) {
		p.i++
	}
}

// block reads the block node whose first line is the current one, at
// indentation ind.
func (p *parser) block(ind int) (*Node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, &Error{p.lines[p.i].num, "nested too deeply"}
	}
	l := p.lines[p.i]
	switch {
	case isSeqItem(l.text):
		return p.sequence(ind)
	case isKeyLine(l.text):
		return p.mapping(ind)
	}
	// A flow collection as the node; a lone scalar is no document ccmem
	// reads.
	if t := stripComment(l.text); t != "" && (t[0] == '[' || t[0] == '{') {
		p.i++
		return p.value(t, l, ind-1)
	}
	return nil, &Error{l.num, "expected \"key: value\" or a list"}
}

func isSeqItem(s string) bool { return s == "-" || strings.HasPrefix(s, "- ") }

// isKeyLine tells a mapping entry ("key: value", "key:") from a scalar.
func isKeyLine(s string) bool {
	_, _, ok, _ := splitKey(s)
	return ok
}

// splitKey cuts "key: rest"; a quoted key may hold ": ".
func splitKey(s string) (key, rest string, ok bool, err error) {
	switch {
	case s == "" || s[0] == '#' || s[0] == '[' || s[0] == '{' || isSeqItem(s):
		return "", "", false, nil
	case s[0] == '"' || s[0] == '\'':
		q, n, qerr := quoted(s)
		if qerr != nil {
			return "", "", false, nil
		}
		after := strings.TrimLeft(s[n:], " ")
		if after == ":" || strings.HasPrefix(after, ": ") {
			return q, trimWS(after[1:]), true, nil
		}
		return "", "", false, nil
	case s[0] == '?':
		return "", "", false, &Error{0, "complex keys (?) are not supported"}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			if i+1 == len(s) || s[i+1] == ' ' {
				key := strings.TrimRight(s[:i], " \t")
				return key, trimWS(s[i+1:]), key != "", nil
			}
		case '#':
			if i > 0 && s[i-1] == ' ' {
				return "", "", false, nil
			}
		}
	}
	return "", "", false, nil
}

func (p *parser) mapping(ind int) (*Node, error) {
	n := &Node{Kind: Map, Line: p.lines[p.i].num}
	seen := map[string]bool{}
	for {
		p.skip()
		if p.i >= len(p.lines) {
			return n, nil
		}
		l := p.lines[p.i]
		if l.indent < ind {
			return n, nil
		}
		if l.indent > ind {
			return nil, &Error{l.num, "bad indentation (more than the lines before)"}
		}
		key, rest, ok, err := splitKey(l.text)
		if err != nil {
			return nil, &Error{l.num, err.(*Error).Msg}
		}
		if !ok {
			if isSeqItem(l.text) {
				return nil, &Error{l.num, "a list item where a key was expected (check the indentation)"}
			}
			return nil, &Error{l.num, "a line that is not \"key: value\" inside a mapping"}
		}
		if strings.HasPrefix(key, "&") || strings.HasPrefix(key, "*") || strings.HasPrefix(key, "!") {
			return nil, &Error{l.num, "anchors, aliases and tags are not supported"}
		}
		if key == "<<" {
			return nil, &Error{l.num, "merge keys (<<) are not supported"}
		}
		if l.text[0] != '"' && l.text[0] != '\'' {
			if _, ok := Resolve(key).(string); !ok || !validPlain(key) {
				return nil, &Error{l.num, fmt.Sprintf("the key %q is not a name (quote it)", key)}
			}
		}
		if len(l.text)-len(rest) > 1024 {
			return nil, &Error{l.num, "a key over 1024 characters"}
		}
		if seen[key] {
			return nil, &Error{l.num, fmt.Sprintf("mapping key %q already defined", key)}
		}
		seen[key] = true
		p.i++
		v, err := p.value(stripComment(rest), l, ind)
		if err != nil {
			return nil, err
		}
		n.Keys = append(n.Keys, key)
		n.Values = append(n.Values, v)
	}
}

func (p *parser) sequence(ind int) (*Node, error) {
	n := &Node{Kind: Seq, Line: p.lines[p.i].num}
	for {
		p.skip()
		if p.i >= len(p.lines) {
			return n, nil
		}
		l := p.lines[p.i]
		if l.indent < ind {
			return n, nil
		}
		if l.indent > ind {
			return nil, &Error{l.num, "bad indentation (more than the lines before)"}
		}
		if !isSeqItem(l.text) {
			return n, nil // a mapping's key at the same indentation ends it
		}
		if tabBeforeValue(l.raw, '-') {
			return nil, &Error{l.num, "a tab before a value (YAML separates with spaces)"}
		}
		item := strings.TrimLeft(l.text[1:], " ")
		if item != "" && !strings.HasPrefix(item, "#") && (isSeqItem(item) || isKeyLine(item)) {
			// "- key: value" or "- - x": a block node starting inside the
			// line, at the item's column.
			col := ind + len(l.text) - len(item)
			raw := strings.TrimLeft(l.raw[1:], " ")
			p.lines[p.i] = line{indent: col, text: item, raw: raw, num: l.num}
			v, err := p.block(col)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, v)
			continue
		}
		p.i++
		v, err := p.value(stripComment(item), l, ind)
		if err != nil {
			return nil, err
		}
		n.Items = append(n.Items, v)
	}
}

// value reads the value that follows a key or a list item on line l
// (rest: the text after it, comment stripped); ind is the indentation of
// the key or item: what is nested under it is indented more.
func (p *parser) value(rest string, l line, ind int) (*Node, error) {
	switch {
	case rest == "":
		p.skip()
		if p.i < len(p.lines) {
			next := p.lines[p.i]
			if next.indent > ind {
				return p.block(next.indent)
			}
			if next.indent == ind && isSeqItem(next.text) && !isSeqItem(l.text) {
				return p.sequence(ind) // "key:\n- a": a list at the key's indentation
			}
		}
		return &Node{Kind: Scalar, Line: l.num, Plain: true}, nil
	case rest[0] == '&' || rest[0] == '*' || rest[0] == '!':
		return nil, &Error{l.num, "anchors, aliases and tags are not supported"}
	case rest[0] == '@' || rest[0] == '`':
		return nil, &Error{l.num, fmt.Sprintf("a plain value cannot start with %q: quote it", rest[0])}
	case rest[0] == '|' || rest[0] == '>':
		return p.blockScalar(rest, l, ind)
	case rest[0] == '[' || rest[0] == '{':
		text := rest
		if !balanced(text) {
			return nil, &Error{l.num, "a flow collection must close on its line"}
		}
		f := &flow{s: text, line: l.num}
		v, err := f.value(0)
		if err != nil {
			return nil, err
		}
		f.space()
		if f.pos < len(f.s) {
			return nil, &Error{l.num, "text after a closing bracket"}
		}
		return v, nil
	case rest[0] == '"' || rest[0] == '\'':
		v, n, err := quoted(rest)
		if err != nil {
			return nil, &Error{l.num, "a quoted value must close on its line (" + err.Error() + ")"}
		}
		if after := trimWS(rest[n:]); after != "" && !strings.HasPrefix(after, "#") {
			return nil, &Error{l.num, "text after a quoted value"}
		}
		return &Node{Kind: Scalar, Line: l.num, Text: v}, nil
	}
	// A plain scalar, maybe folded over more indented lines.
	text := rest
	for p.i < len(p.lines) {
		next := p.lines[p.i]
		t := trimWS(next.text)
		if next.indent <= ind || t == "" || strings.HasPrefix(t, "#") || isKeyLine(t) && next.indent <= ind+1 {
			break
		}
		if isKeyLine(t) || isSeqItem(t) || strings.ContainsRune(next.raw, '\t') {
			return nil, &Error{next.num, "bad indentation (more than the lines before)"}
		}
		text += " " + stripComment(t)
		p.i++
	}
	if strings.Contains(text, ": ") || strings.Contains(text, ":\t") || strings.HasSuffix(text, ":") {
		return nil, &Error{l.num, "a plain value holding \": \" (quote it)"}
	}
	if !validPlain(text) {
		return nil, &Error{l.num, fmt.Sprintf("a plain value cannot start with %q: quote it", text[0])}
	}
	return &Node{Kind: Scalar, Line: l.num, Text: text, Plain: true}, nil
}

// validPlain tells whether s may be a plain scalar: not starting with an
// indicator, nor with "-", "?" or ":" followed by a space.
func validPlain(s string) bool {
	if s == "" {
		return true
	}
	switch s[0] {
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	case '-', '?', ':':
		return len(s) > 1 && s[1] != ' ' && s[1] != '\t'
	}
	return true
}

// blockScalar reads a literal (|) or folded (>) block.
func (p *parser) blockScalar(header string, l line, ind int) (*Node, error) {
	style, chomp, explicit := header[0], byte(0), 0
	for _, c := range header[1:] {
		switch {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = byte(c)
		case c >= '1' && c <= '9' && explicit == 0:
			explicit = int(c - '0')
		default:
			return nil, &Error{l.num, "a bad block scalar header " + strconv.Quote(header)}
		}
	}
	// The block's indentation: the explicit one, or its first line's.
	start := p.i
	indent := 0
	if explicit > 0 {
		indent = max(ind, 0) + explicit
	} else {
		for j := start; j < len(p.lines); j++ {
			if x := p.lines[j]; x.text != "" {
				if x.indent > ind {
					indent = x.indent
				}
				break
			}
		}
	}
	content := func(x line) bool { return x.text != "" || indent > 0 && x.indent > indent }
	end, last := start, start // end: past the block; last: past its last content line
	for end < len(p.lines) {
		x := p.lines[end]
		if x.text != "" && (indent == 0 || x.indent < indent) {
			break
		}
		if x.text == "" && indent > 0 && x.indent > indent && last == start && explicit == 0 {
			return nil, &Error{x.num, "a leading blank line with more spaces than the block's first line"}
		}
		end++
		if content(x) {
			last = end
		}
	}
	var lines []string
	for _, x := range p.lines[start:last] {
		if !content(x) {
			lines = append(lines, "")
			continue
		}
		lines = append(lines, strings.Repeat(" ", x.indent-indent)+x.raw)
	}
	trailing := end - last
	p.i = end
	text := strings.Join(lines, "\n")
	if style == '>' {
		text = foldBlanks(lines)
	}
	// The last line of the file may have no line end to keep.
	contentBreak := len(lines) > 0 && !(p.open && last == len(p.lines))
	trailingBreaks := trailing
	if p.open && end == len(p.lines) && trailing > 0 {
		trailingBreaks--
	}
	switch chomp {
	case '-':
	case '+':
		if contentBreak {
			text += "\n"
		}
		text += strings.Repeat("\n", trailingBreaks)
	default:
		if contentBreak {
			text += "\n"
		}
	}
	return &Node{Kind: Scalar, Line: l.num, Text: text}, nil
}

// foldBlanks folds the lines of a folded block scalar: lines of text
// joined by a space, a run of n blank lines between two such lines is n
// line breaks, and lines indented more than the block keep their breaks.
func foldBlanks(lines []string) string {
	var b strings.Builder
	blanks := 0
	prevText, prevMore := false, false
	for _, s := range lines {
		if s == "" {
			blanks++
			continue
		}
		more := strings.HasPrefix(s, " ")
		if prevText {
			switch {
			case blanks > 0 && !more && !prevMore:
				b.WriteString(strings.Repeat("\n", blanks))
			case blanks > 0:
				b.WriteString(strings.Repeat("\n", blanks+1))
			case more || prevMore:
				b.WriteByte('\n')
			default:
				b.WriteByte(' ')
			}
		} else if blanks > 0 {
			b.WriteString(strings.Repeat("\n", blanks))
		}
		b.WriteString(s)
		blanks, prevText, prevMore = 0, true, more
	}
	return b.String()
}

// stripComment drops a comment: "#" at the start or after white space,
// outside a quoted value (quotes count only where a value starts: inside
// a plain value a quote is text).
func stripComment(s string) string {
	if s == "" {
		return s
	}
	from := 0
	switch s[0] {
	case '"', '\'':
		if _, n, err := quoted(s); err == nil {
			from = n
		} else {
			return s // an open quote: the caller reads on
		}
	case '[', '{':
		inS, inD := false, false
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '\\' && inD:
				i++
			case c == '"' && !inS && (inD || i == 0 || strings.IndexByte(" [{,:", s[i-1]) >= 0):
				inD = !inD
			case c == '\'' && !inD && (inS || i == 0 || strings.IndexByte(" [{,:", s[i-1]) >= 0):
				if inS && i+1 < len(s) && s[i+1] == '\'' {
					i++
					continue
				}
				inS = !inS
			case c == '#' && !inS && !inD && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t'):
				return strings.TrimRight(s[:i], " \t")
			}
		}
		return s
	}
	for i := max(from, 1); i < len(s); i++ {
		if s[i] == '#' && (s[i-1] == ' ' || s[i-1] == '\t') {
			return strings.TrimRight(s[:i], " \t")
		}
	}
	if s[0] == '#' {
		return ""
	}
	return s
}

// balanced tells whether the brackets of a flow value are closed.
func balanced(s string) bool {
	depth := 0
	inS, inD := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && inD:
			i++
		case c == '"' && !inS:
			inD = !inD
		case c == '\'' && !inD:
			inS = !inS
		case inS || inD:
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		}
	}
	return depth <= 0 && !inS && !inD
}

// quoted reads a quoted scalar at the start of s: its value and how many
// bytes it took.
func quoted(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case q == '\'' && c == '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), i + 1, nil
		case q == '"' && c == '"':
			return b.String(), i + 1, nil
		case q == '"' && c == '\\':
			if i+1 >= len(s) {
				return "", 0, fmt.Errorf("an escape at the end")
			}
			i++
			switch e := s[i]; e {
			case '0':
				b.WriteByte(0)
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 't', '\t':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'v':
				b.WriteByte('\v')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case 'e':
				b.WriteByte(0x1b)
			case ' ', '"', '\\':
				b.WriteByte(e)
			case 'N':
				b.WriteString("\u0085")
			case '_':
				b.WriteString("\u00a0")
			case 'L':
				b.WriteString("\u2028")
			case 'P':
				b.WriteString("\u2029")
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if i+n >= len(s) {
					return "", 0, fmt.Errorf("a short escape")
				}
				v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
				if err != nil || v > utf8.MaxRune {
					return "", 0, fmt.Errorf("a bad escape")
				}
				b.WriteRune(rune(v))
				i += n
			default:
				return "", 0, fmt.Errorf("an unknown escape \\%c", e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("no closing quote")
}

// flow reads a flow collection: [a, b], {k: v}.
type flow struct {
	s    string
	pos  int
	line int
}

func (f *flow) space() {
	for f.pos < len(f.s) && (f.s[f.pos] == ' ' || f.s[f.pos] == '\t') {
		f.pos++
	}
}

func (f *flow) err(msg string) error { return &Error{f.line, msg} }

func (f *flow) value(depth int) (*Node, error) {
	if depth > maxDepth {
		return nil, f.err("nested too deeply")
	}
	f.space()
	if f.pos >= len(f.s) {
		return nil, f.err("a flow value ends early")
	}
	switch c := f.s[f.pos]; c {
	case '[':
		f.pos++
		n := &Node{Kind: Seq, Line: f.line, Items: []*Node{}}
		for {
			f.space()
			if f.pos < len(f.s) && f.s[f.pos] == ']' {
				f.pos++
				return n, nil
			}
			v, err := f.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, v)
			f.space()
			if f.pos < len(f.s) && f.s[f.pos] == ',' {
				f.pos++
				continue
			}
			if f.pos < len(f.s) && f.s[f.pos] == ']' {
				f.pos++
				return n, nil
			}
			return nil, f.err("a flow list without its closing bracket")
		}
	case '{':
		f.pos++
		n := &Node{Kind: Map, Line: f.line}
		seen := map[string]bool{}
		for {
			f.space()
			if f.pos < len(f.s) && f.s[f.pos] == '}' {
				f.pos++
				return n, nil
			}
			k, err := f.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if k.Kind != Scalar {
				return nil, f.err("complex keys are not supported")
			}
			if _, ok := Resolve(k.Text).(string); k.Plain && (!ok || !validPlain(k.Text)) {
				return nil, f.err(fmt.Sprintf("the key %q is not a name (quote it)", k.Text))
			}
			f.space()
			var v *Node
			if f.pos < len(f.s) && f.s[f.pos] == ':' {
				f.pos++
				if v, err = f.value(depth + 1); err != nil {
					return nil, err
				}
			} else {
				v = &Node{Kind: Scalar, Line: f.line, Plain: true}
			}
			if seen[k.Text] {
				return nil, f.err(fmt.Sprintf("mapping key %q already defined", k.Text))
			}
			seen[k.Text] = true
			n.Keys = append(n.Keys, k.Text)
			n.Values = append(n.Values, v)
			f.space()
			if f.pos < len(f.s) && f.s[f.pos] == ',' {
				f.pos++
				continue
			}
			if f.pos < len(f.s) && f.s[f.pos] == '}' {
				f.pos++
				return n, nil
			}
			return nil, f.err("a flow map without its closing brace")
		}
	case '"', '\'':
		s, n, err := quoted(f.s[f.pos:])
		if err != nil {
			return nil, f.err("a quoted value: " + err.Error())
		}
		f.pos += n
		return &Node{Kind: Scalar, Line: f.line, Text: s}, nil
	case '&', '*', '!':
		return nil, f.err("anchors, aliases and tags are not supported")
	case ']', '}', ',':
		return nil, f.err("an empty item in a flow collection")
	}
	start := f.pos
	for f.pos < len(f.s) {
		c := f.s[f.pos]
		if strings.IndexByte(",[]{}", c) >= 0 || c == ':' && (f.pos+1 == len(f.s) || strings.ContainsRune(" ,]}", rune(f.s[f.pos+1]))) ||
			c == '#' && f.pos > start && f.s[f.pos-1] == ' ' {
			break
		}
		f.pos++
	}
	text := trimWS(f.s[start:f.pos])
	if strings.HasPrefix(text, "?") || strings.HasPrefix(text, ":") || strings.HasSuffix(text, "?") || strings.Contains(text, "? ") {
		return nil, f.err("a \"?\" in a flow value (quote it)")
	}
	if !validPlain(text) {
		return nil, f.err(fmt.Sprintf("a plain value cannot start with %q: quote it", text[0]))
	}
	return &Node{Kind: Scalar, Line: f.line, Text: text, Plain: true}, nil
}

// yamlFloat tells YAML's float syntax: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
// (by hand: a regexp compiled at start costs every hook 0.1 ms).
func yamlFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// Resolve is a plain scalar's value as YAML's core schema reads it: nil,
// a bool, an int (int64 or uint64 when it does not fit), a float64, or
// the string itself.
func Resolve(s string) any {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return nil
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	case ".nan", ".NaN", ".NAN":
		return math.NaN()
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1)
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1)
	}
	switch c := s[0]; {
	case c == '.':
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return v
		}
		return s
	case c != '+' && c != '-' && (c < '0' || c > '9'):
		return s
	}
	plain := strings.ReplaceAll(s, "_", "")
	integer := func(digits string, base int, neg bool) (any, bool) {
		if neg {
			if v, err := strconv.ParseInt("-"+digits, base, 64); err == nil {
				return int(v), true
			}
			return nil, false
		}
		if v, err := strconv.ParseInt(digits, base, 64); err == nil {
			if v == int64(int(v)) {
				return int(v), true
			}
			return v, true
		}
		if v, err := strconv.ParseUint(digits, base, 64); err == nil {
			return v, true
		}
		return nil, false
	}
	if v, ok := integer(plain, 0, false); ok {
		return v
	}
	if yamlFloat(plain) {
		if v, err := strconv.ParseFloat(plain, 64); err == nil {
			return v
		}
	}
	// Binary and YAML 1.2 octal, as yaml.v3 reads them.
	for _, p := range []struct {
		prefix string
		base   int
		neg    bool
	}{{"0b", 2, false}, {"-0b", 2, true}, {"0o", 8, false}, {"-0o", 8, true}} {
		if strings.HasPrefix(plain, p.prefix) {
			if v, ok := integer(plain[len(p.prefix):], p.base, p.neg); ok {
				return v
			}
			if p.prefix == "0b" || p.prefix == "-0b" {
				break // yaml.v3 tries octal only when the text is not binary
			}
		}
	}
	return s
}

// Interface is the node as Go values: map[string]any, []any, and the
// scalars as Resolve reads them (quoted and block scalars: strings).
func (n *Node) Interface() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case Map:
		m := make(map[string]any, len(n.Keys))
		for i, k := range n.Keys {
			m[k] = n.Values[i].Interface()
		}
		return m
	case Seq:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			out[i] = it.Interface()
		}
		return out
	}
	if n.Plain {
		return Resolve(n.Text)
	}
	return n.Text
}

// trimWS trims YAML's white space: spaces and tabs (not every Unicode
// space, which YAML reads as text).
func trimWS(s string) string { return strings.Trim(s, " \t") }
