package session

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/triage"
)

// Every hook reads and writes a checkpoint, and encoding/json's reflective
// set-up for its types cost a tenth of a hook's run. These are a
// hand-written codec for the Checkpoint: marshalCheckpoint writes exactly
// what json.MarshalIndent(c, "", "  ") writes, and unmarshalCheckpoint
// reads into a Checkpoint what json.Unmarshal reads (keys matched exactly,
// else case-insensitively; unknown keys skipped; null leaves a value as it
// is). It is stricter only where encoding/json would read a JSON array into
// "shown" (bytes): such a file counts as damaged and is rebuilt from its
// transcript. FuzzCheckpointCodec holds both to encoding/json.

// marshalCheckpoint is json.MarshalIndent(c, "", "  ").
func marshalCheckpoint(c *Checkpoint) ([]byte, error) {
	w := &jsonWriter{b: make([]byte, 0, 2048)}
	w.open('{')
	w.str("session_id", c.SessionID)
	w.str("project_root", c.ProjectRoot)
	w.str("goal", c.Goal)
	w.int("turns", int64(c.Turns))
	w.intMap("tools", c.Tools)
	if len(c.SubagentTools) > 0 {
		w.intMap("subagent_tools", c.SubagentTools)
	}
	w.int("tool_errors", int64(c.ToolErrors))
	w.strs("files_changed", c.FilesChanged)
	w.int("compactions", int64(c.Compactions))
	w.str("started_at", c.StartedAt)
	w.str("ended_at", c.EndedAt)
	w.str("git_branch", c.GitBranch)
	w.str("model", c.Model)
	w.str("client_version", c.ClientVersion)
	w.str("outcome", c.Outcome)
	w.key("friction")
	w.open('{')
	w.float("score", c.Friction.Score)
	w.str("class", c.Friction.Class)
	w.intMap("signals", c.Friction.Signals)
	w.close('}')
	w.int("redactions", int64(c.Redactions))
	w.key("transcript")
	w.pos(c.Transcript)
	w.key("process")
	w.open('{')
	if c.Process.PID != 0 {
		w.int("pid", int64(c.Process.PID))
	}
	if c.Process.Start != 0 {
		w.uint("start", c.Process.Start)
	}
	w.close('}')
	w.str("updated_at", c.UpdatedAt)
	if c.ArchivedAt != "" {
		w.str("archived_at", c.ArchivedAt)
	}
	w.key("state")
	w.state(&c.State)
	w.close('}')
	return w.b, w.err
}

func (w *jsonWriter) pos(p TranscriptPos) {
	w.open('{')
	w.str("path", p.Path)
	w.int("offset", p.Offset)
	if p.Skip != 0 {
		w.int("skip", p.Skip)
	}
	w.int("size", p.Size)
	w.uint("inode", p.Inode)
	w.close('}')
}

func (w *jsonWriter) state(s *CaptureState) {
	w.open('{')
	f := s.Friction
	w.key("friction")
	w.open('{')
	if len(f.Signals) > 0 {
		w.intMap("signals", f.Signals)
	}
	for _, b := range []struct {
		name string
		v    bool
	}{{"pending", f.Pending}, {"last_failed", f.LastFailed}, {"turn_upset", f.TurnUpset}} {
		if b.v {
			w.key(b.name)
			w.b = append(w.b, "true"...)
		}
	}
	if f.LastCall != 0 {
		w.uint("last_call", f.LastCall)
	}
	if f.CallRun != 0 {
		w.int("call_run", int64(f.CallRun))
	}
	if f.LastInterrupt != "" {
		w.str("last_interrupt", f.LastInterrupt)
	}
	if f.LastTimestamp != "" {
		w.str("last_timestamp", f.LastTimestamp)
	}
	if len(f.Prompts) > 0 {
		w.key("prompts")
		w.open('[')
		for _, p := range f.Prompts {
			w.elem()
			w.b = strconv.AppendUint(w.b, p, 10)
		}
		w.close(']')
	}
	w.close('}')
	if len(s.PendingFiles) > 0 {
		w.key("pending_files")
		w.open('{')
		for _, k := range sortedKeys(s.PendingFiles) {
			w.str(k, s.PendingFiles[k])
		}
		w.close('}')
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"boundaries", s.Boundaries}, {"precompacts", s.PreCompacts}} {
		if n.v != 0 {
			w.int(n.name, int64(n.v))
		}
	}
	if s.CompactTrigger != "" {
		w.str("compact_trigger", s.CompactTrigger)
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"goal_redactions", s.GoalRedactions}, {"outcome_redactions", s.OutcomeRedactions}, {"other_redactions", s.OtherRedactions}} {
		if n.v != 0 {
			w.int(n.name, int64(n.v))
		}
	}
	if len(s.TriageFired) > 0 {
		w.strs("triage_fired", s.TriageFired)
	}
	if len(s.TriagePending) > 0 {
		w.key("triage_pending")
		w.open('[')
		for _, h := range s.TriagePending {
			w.elem()
			w.open('{')
			w.str("category", h.Category)
			w.float("score", h.Score)
			if h.Excerpt != "" {
				w.str("excerpt", h.Excerpt)
			}
			w.close('}')
		}
		w.close(']')
	}
	if len(s.Shown) > 0 {
		w.key("shown")
		w.b = append(w.b, '"')
		w.b = base64.StdEncoding.AppendEncode(w.b, s.Shown)
		w.b = append(w.b, '"')
	}
	if len(s.Subagents) > 0 {
		w.key("subagents")
		w.open('{')
		for _, k := range sortedKeys(s.Subagents) {
			w.key(k)
			w.pos(s.Subagents[k])
		}
		w.close('}')
	}
	w.close('}')
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsonWriter writes indented JSON as json.MarshalIndent(v, "", "  ") does.
type jsonWriter struct {
	b     []byte
	depth int
	empty []bool // per open object or array: nothing written in it yet
	err   error
}

func (w *jsonWriter) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
	w.empty = append(w.empty, true)
}

func (w *jsonWriter) close(c byte) {
	w.depth--
	if !w.empty[len(w.empty)-1] {
		w.newline()
	}
	w.empty = w.empty[:len(w.empty)-1]
	w.b = append(w.b, c)
}

func (w *jsonWriter) newline() {
	w.b = append(w.b, '\n')
	for range w.depth {
		w.b = append(w.b, ' ', ' ')
	}
}

// elem starts a value in an array or a key in an object.
func (w *jsonWriter) elem() {
	if !w.empty[len(w.empty)-1] {
		w.b = append(w.b, ',')
	}
	w.empty[len(w.empty)-1] = false
	w.newline()
}

func (w *jsonWriter) key(k string) {
	w.elem()
	w.b = appendJSONString(w.b, k)
	w.b = append(w.b, ':', ' ')
}

func (w *jsonWriter) str(k, v string) {
	w.key(k)
	w.b = appendJSONString(w.b, v)
}

func (w *jsonWriter) int(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *jsonWriter) uint(k string, v uint64) {
	w.key(k)
	w.b = strconv.AppendUint(w.b, v, 10)
}

func (w *jsonWriter) float(k string, f float64) {
	w.key(k)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		w.err = fmt.Errorf("json: unsupported value: %v", f)
		w.b = append(w.b, '0')
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	w.b = strconv.AppendFloat(w.b, f, format, -1, 64)
	if n := len(w.b); format == 'e' && n >= 4 && w.b[n-4] == 'e' && w.b[n-3] == '-' && w.b[n-2] == '0' {
		w.b[n-2] = w.b[n-1]
		w.b = w.b[:n-1]
	}
}

func (w *jsonWriter) strs(k string, v []string) {
	w.key(k)
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.open('[')
	for _, s := range v {
		w.elem()
		w.b = appendJSONString(w.b, s)
	}
	w.close(']')
}

func (w *jsonWriter) intMap(k string, m map[string]int) {
	w.key(k)
	if m == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.open('{')
	for _, name := range sortedKeys(m) {
		w.int(name, int64(m[name]))
	}
	w.close('}')
}

// appendJSONString quotes s as encoding/json does, HTML characters,
// U+2028 and U+2029 escaped and invalid UTF-8 replaced.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// unmarshalCheckpoint is json.Unmarshal(data, c).
func unmarshalCheckpoint(data []byte, c *Checkpoint) error {
	d := &jsonReader{data: data}
	d.value(func() {
		d.object(func(k string) {
			switch d.field(k, checkpointKeys) {
			case "session_id":
				d.str(&c.SessionID)
			case "project_root":
				d.str(&c.ProjectRoot)
			case "goal":
				d.str(&c.Goal)
			case "turns":
				d.int(&c.Turns)
			case "tools":
				d.intMap(&c.Tools)
			case "subagent_tools":
				d.intMap(&c.SubagentTools)
			case "tool_errors":
				d.int(&c.ToolErrors)
			case "files_changed":
				d.strs(&c.FilesChanged)
			case "compactions":
				d.int(&c.Compactions)
			case "started_at":
				d.str(&c.StartedAt)
			case "ended_at":
				d.str(&c.EndedAt)
			case "git_branch":
				d.str(&c.GitBranch)
			case "model":
				d.str(&c.Model)
			case "client_version":
				d.str(&c.ClientVersion)
			case "outcome":
				d.str(&c.Outcome)
			case "friction":
				d.frictionResult(&c.Friction)
			case "redactions":
				d.int(&c.Redactions)
			case "transcript":
				d.pos(&c.Transcript)
			case "process":
				d.process(&c.Process)
			case "updated_at":
				d.str(&c.UpdatedAt)
			case "archived_at":
				d.str(&c.ArchivedAt)
			case "state":
				d.state(&c.State)
			default:
				d.skip()
			}
		})
	})
	d.ws()
	if d.err == nil && d.i < len(d.data) {
		d.fail("invalid character after top-level value")
	}
	return d.err
}

var (
	checkpointKeys = []string{"session_id", "project_root", "goal", "turns", "tools", "subagent_tools", "tool_errors", "files_changed",
		"compactions", "started_at", "ended_at", "git_branch", "model", "client_version", "outcome", "friction", "redactions",
		"transcript", "process", "updated_at", "archived_at", "state"}
	posKeys     = []string{"path", "offset", "skip", "size", "inode"}
	resultKeys  = []string{"score", "class", "signals"}
	processKeys = []string{"pid", "start"}
	stateKeys   = []string{"friction", "pending_files", "boundaries", "precompacts", "compact_trigger", "goal_redactions", "outcome_redactions", "other_redactions", "triage_fired", "triage_pending", "shown", "subagents"}
	fStateKeys  = []string{"signals", "pending", "last_failed", "turn_upset", "last_call", "call_run", "last_interrupt", "last_timestamp", "prompts"}
	hitKeys     = []string{"category", "score", "excerpt"}
)

func (d *jsonReader) pos(p *TranscriptPos) {
	d.value(func() {
		d.object(func(k string) {
			switch d.field(k, posKeys) {
			case "path":
				d.str(&p.Path)
			case "offset":
				d.int64(&p.Offset, 64)
			case "skip":
				d.int64(&p.Skip, 64)
			case "size":
				d.int64(&p.Size, 64)
			case "inode":
				d.uint64(&p.Inode)
			default:
				d.skip()
			}
		})
	})
}

func (d *jsonReader) frictionResult(r *friction.Result) {
	d.value(func() {
		d.object(func(k string) {
			switch d.field(k, resultKeys) {
			case "score":
				d.float(&r.Score)
			case "class":
				d.str(&r.Class)
			case "signals":
				d.intMap(&r.Signals)
			default:
				d.skip()
			}
		})
	})
}

func (d *jsonReader) process(p *proc.Info) {
	d.value(func() {
		d.object(func(k string) {
			switch d.field(k, processKeys) {
			case "pid":
				d.int(&p.PID)
			case "start":
				d.uint64(&p.Start)
			default:
				d.skip()
			}
		})
	})
}

func (d *jsonReader) state(s *CaptureState) {
	d.value(func() {
		d.object(func(k string) {
			switch d.field(k, stateKeys) {
			case "friction":
				d.frictionState(&s.Friction)
			case "pending_files":
				d.nullable(func() { s.PendingFiles = nil }, func() {
					if s.PendingFiles == nil {
						s.PendingFiles = map[string]string{}
					}
					d.object(func(k string) {
						var v string
						d.str(&v)
						s.PendingFiles[k] = v
					})
				})
			case "boundaries":
				d.int(&s.Boundaries)
			case "precompacts":
				d.int(&s.PreCompacts)
			case "compact_trigger":
				d.str(&s.CompactTrigger)
			case "goal_redactions":
				d.int(&s.GoalRedactions)
			case "outcome_redactions":
				d.int(&s.OutcomeRedactions)
			case "other_redactions":
				d.int(&s.OtherRedactions)
			case "triage_fired":
				d.strs(&s.TriageFired)
			case "triage_pending":
				d.nullable(func() { s.TriagePending = nil }, func() {
					s.TriagePending = s.TriagePending[:0]
					if s.TriagePending == nil {
						s.TriagePending = []triage.Hit{}
					}
					d.array(func() {
						var h triage.Hit
						d.hit(&h)
						s.TriagePending = append(s.TriagePending, h)
					})
				})
			case "shown":
				d.nullable(func() { s.Shown = nil }, func() {
					var text string
					d.str(&text)
					b, err := base64.StdEncoding.DecodeString(text)
					if err != nil {
						d.fail(err.Error())
					}
					s.Shown = b
				})
			case "subagents":
				d.nullable(func() { s.Subagents = nil }, func() {
					if s.Subagents == nil {
						s.Subagents = map[string]TranscriptPos{}
					}
					d.object(func(k string) {
						var p TranscriptPos
						d.pos(&p)
						s.Subagents[k] = p
					})
				})
			default:
				d.skip()
			}
		})
	})
}

func (d *jsonReader) frictionState(f *friction.State) {
	d.value(func() {
		d.object(func(k string) {
			switch d.field(k, fStateKeys) {
			case "signals":
				d.intMap(&f.Signals)
			case "pending":
				d.bool(&f.Pending)
			case "last_failed":
				d.bool(&f.LastFailed)
			case "turn_upset":
				d.bool(&f.TurnUpset)
			case "last_call":
				d.uint64(&f.LastCall)
			case "call_run":
				d.int(&f.CallRun)
			case "last_interrupt":
				d.str(&f.LastInterrupt)
			case "last_timestamp":
				d.str(&f.LastTimestamp)
			case "prompts":
				d.nullable(func() { f.Prompts = nil }, func() {
					f.Prompts = f.Prompts[:0]
					if f.Prompts == nil {
						f.Prompts = []uint64{}
					}
					d.array(func() {
						var u uint64
						d.uint64(&u)
						f.Prompts = append(f.Prompts, u)
					})
				})
			default:
				d.skip()
			}
		})
	})
}

func (d *jsonReader) hit(h *triage.Hit) {
	d.value(func() {
		d.object(func(k string) {
			switch d.field(k, hitKeys) {
			case "category":
				d.str(&h.Category)
			case "score":
				d.float(&h.Score)
			case "excerpt":
				d.str(&h.Excerpt)
			default:
				d.skip()
			}
		})
	})
}

// jsonReader reads JSON into typed places, failing at the first syntax or
// type error (encoding/json goes on past a type error, but then returns an
// error too, and a checkpoint with one is not used).
type jsonReader struct {
	data []byte
	i    int
	err  error
}

func (d *jsonReader) fail(msg string) {
	if d.err == nil {
		d.err = fmt.Errorf("json: %s at offset %d", msg, d.i)
	}
	d.i = len(d.data)
}

func (d *jsonReader) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonReader) peek() byte {
	d.ws()
	if d.i < len(d.data) {
		return d.data[d.i]
	}
	d.fail("unexpected end of JSON input")
	return 0
}

func (d *jsonReader) literal(word string) bool {
	if d.err == nil && len(d.data)-d.i >= len(word) && string(d.data[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// nullable reads null (calling onNull) or another value (onValue reads it).
func (d *jsonReader) nullable(onNull, onValue func()) {
	if d.peek() == 'n' {
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

// value reads an object with read, or null (a no-op, as for a struct).
func (d *jsonReader) value(read func()) { d.nullable(func() {}, read) }

func (d *jsonReader) object(field func(key string)) {
	if d.peek() != '{' {
		d.typeError()
		return
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return
	}
	for d.err == nil {
		if d.peek() != '"' {
			d.fail("looking for beginning of object key string")
			return
		}
		key := d.quoted()
		if d.peek() != ':' {
			d.fail("after object key")
			return
		}
		d.i++
		field(key)
		switch d.peek() {
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

func (d *jsonReader) array(elem func()) {
	if d.peek() != '[' {
		d.typeError()
		return
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return
	}
	for d.err == nil {
		elem()
		switch d.peek() {
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

// field is the known key k names: itself, else the one it equals
// case-insensitively, else "".
func (d *jsonReader) field(k string, keys []string) string {
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

// typeError fails on a value of the wrong type, after checking that it is
// at least valid JSON (a syntax error is reported as such).
func (d *jsonReader) typeError() {
	d.skip()
	if d.err == nil {
		d.fail("cannot unmarshal into a checkpoint field of another type")
	}
}

func (d *jsonReader) str(p *string) {
	d.nullable(func() {}, func() {
		if d.peek() != '"' {
			d.typeError()
			return
		}
		*p = d.quoted()
	})
}

func (d *jsonReader) strs(p *[]string) {
	d.nullable(func() { *p = nil }, func() {
		out := (*p)[:0]
		if out == nil {
			out = []string{}
		}
		d.array(func() {
			var s string
			d.str(&s)
			out = append(out, s)
		})
		*p = out
	})
}

func (d *jsonReader) bool(p *bool) {
	d.nullable(func() {}, func() {
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
func (d *jsonReader) number() (string, bool) {
	c := d.peek()
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

func (d *jsonReader) int64(p *int64, bits int) {
	d.nullable(func() {}, func() {
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

func (d *jsonReader) int(p *int) {
	n := int64(*p)
	d.int64(&n, strconv.IntSize)
	*p = int(n)
}

func (d *jsonReader) uint64(p *uint64) {
	d.nullable(func() {}, func() {
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

func (d *jsonReader) float(p *float64) {
	d.nullable(func() {}, func() {
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

func (d *jsonReader) intMap(p *map[string]int) {
	d.nullable(func() { *p = nil }, func() {
		if *p == nil {
			*p = map[string]int{}
		}
		d.object(func(k string) {
			var v int
			d.int(&v)
			(*p)[k] = v
		})
	})
}

// skip reads any value.
func (d *jsonReader) skip() {
	switch c := d.peek(); {
	case d.err != nil:
	case c == '{':
		d.object(func(string) { d.skip() })
	case c == '[':
		d.array(d.skip)
	case c == '"':
		d.quoted()
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

// quoted reads a string at d.i, as encoding/json unquotes it: invalid
// UTF-8 and lone surrogates become U+FFFD.
func (d *jsonReader) quoted() string {
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
		if d.i >= len(d.data) {
			d.fail("unexpected end of JSON input")
			return ""
		}
		c := d.data[d.i]
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

func (d *jsonReader) hex4() (rune, bool) {
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
