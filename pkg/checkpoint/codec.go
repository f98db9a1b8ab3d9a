package checkpoint

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/jsonread"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/triage"
)

// Every hook reads and writes a checkpoint, and encoding/json's reflective
// set-up for its types cost a tenth of a hook's run. These are a
// hand-written codec for the Record: Marshal writes exactly
// what json.MarshalIndent(c, "", "  ") writes, and Unmarshal
// reads into a Checkpoint what json.Unmarshal reads (keys matched exactly,
// else case-insensitively; unknown keys skipped; null leaves a value as it
// is). It is stricter only where encoding/json would read a JSON array into
// "shown" or "guarded" (bytes): such a file counts as damaged and is rebuilt from its
// transcript. FuzzCheckpointCodec holds both to encoding/json.

// Marshal is json.MarshalIndent(c, "", "  ").
func Marshal(c *Record) ([]byte, error) {
	w := &jsonWriter{b: make([]byte, 0, 2048)}
	w.open('{')
	w.str("session_id", c.SessionID)
	w.str("project_root", c.ProjectRoot)
	w.str("goal", c.Goal)
	if c.Title != "" {
		w.str("title", c.Title)
	}
	w.int("turns", int64(c.Turns))
	w.intMap("tools", c.Tools)
	if len(c.SubagentTools) > 0 {
		w.intMap("subagent_tools", c.SubagentTools)
	}
	w.int("tool_errors", int64(c.ToolErrors))
	if c.Declined != 0 {
		w.int("declined", int64(c.Declined))
	}
	w.strs("files_changed", c.FilesChanged)
	if len(c.SkillsUsed) > 0 {
		w.strs("skills_used", c.SkillsUsed)
	}
	w.int("compactions", int64(c.Compactions))
	w.str("started_at", c.StartedAt)
	w.str("ended_at", c.EndedAt)
	if c.DurationSeconds != 0 {
		w.int("duration_seconds", c.DurationSeconds)
	}
	w.str("git_branch", c.GitBranch)
	if c.GitRemote != "" {
		w.str("git_remote", c.GitRemote)
	}
	w.str("model", c.Model)
	w.str("client_version", c.ClientVersion)
	if c.Agent != "" {
		w.str("agent", c.Agent)
	}
	if c.Entrypoint != "" {
		w.str("entrypoint", c.Entrypoint)
	}
	if c.PromptQueued {
		w.key("prompt_queued")
		w.b = append(w.b, "true"...)
	}
	w.str("outcome", c.Outcome)
	if c.Automated {
		w.key("automated")
		w.b = append(w.b, "true"...)
	}
	if c.AutomatedBy != "" {
		w.str("automated_by", c.AutomatedBy)
	}
	if c.Parent != "" {
		w.str("parent_session", c.Parent)
	}
	w.key("friction")
	w.open('{')
	w.float("score", c.Friction.Score)
	w.str("class", c.Friction.Class)
	w.intMap("signals", c.Friction.Signals)
	w.close('}')
	w.int("redactions", int64(c.Redactions))
	w.key("digest")
	w.digest(&c.Digest)
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
	if c.Use != nil {
		w.key("use")
		w.open('{')
		w.intMap("given", c.Use.Given)
		w.intMap("used", c.Use.Used)
		w.close('}')
	}
	w.key("state")
	w.state(&c.State)
	w.close('}')
	return w.b, w.err
}

func (w *jsonWriter) digest(d *Digest) {
	w.open('{')
	if len(d.Notes) > 0 {
		w.key("notes")
		w.open('[')
		for _, n := range d.Notes {
			w.elem()
			w.open('{')
			w.int("turn", int64(n.Turn))
			if n.At != "" {
				w.str("at", n.At)
			}
			w.str("kind", n.Kind)
			if n.Cmd != "" {
				w.str("cmd", n.Cmd)
			}
			w.str("text", n.Text)
			if len(n.After) > 0 {
				w.strs("after", n.After)
			}
			w.close('}')
		}
		w.close(']')
	}
	if len(d.Commands) > 0 {
		w.strs("commands", d.Commands)
	}
	if len(d.Read) > 0 {
		w.strs("files_read", d.Read)
	}
	if d.Dropped != 0 {
		w.int("dropped", int64(d.Dropped))
	}
	if d.Cut != 0 {
		w.int("cut", int64(d.Cut))
	}
	w.close('}')
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
	if p.Tail != 0 {
		w.uint("tail", p.Tail)
	}
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
	}{{"pending", f.Pending}, {"last_failed", f.LastFailed}, {"turn_upset", f.TurnUpset}, {"stopped", f.Stopped}} {
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
	if len(s.Given) > 0 {
		w.key("given")
		w.open('[')
		for _, g := range s.Given {
			w.elem()
			w.open('{')
			w.str("ref", g.Ref)
			w.str("kind", g.Kind)
			w.int("turn", int64(g.Turn))
			w.close('}')
		}
		w.close(']')
	}
	if len(s.Guarded) > 0 {
		w.key("guarded")
		w.b = append(w.b, '"')
		w.b = base64.StdEncoding.AppendEncode(w.b, s.Guarded)
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
	if len(s.Calls) > 0 {
		w.key("calls")
		w.open('{')
		for _, k := range sortedKeys(s.Calls) {
			w.str(k, s.Calls[k])
		}
		w.close('}')
	}
	if len(s.Failing) > 0 {
		w.key("failing")
		w.open('{')
		for _, k := range sortedKeys(s.Failing) {
			w.key(k)
			f := s.Failing[k]
			if f == nil {
				w.b = append(w.b, "null"...)
				continue
			}
			w.open('{')
			w.int("turn", int64(f.Turn))
			w.str("cmd", f.Cmd)
			if len(f.Changed) > 0 {
				w.strs("changed", f.Changed)
			}
			if len(f.Ran) > 0 {
				w.strs("ran", f.Ran)
			}
			w.close('}')
		}
		w.close('}')
	}
	for _, b := range []struct {
		name string
		v    bool
	}{{"title_open", s.TitleOpen}} {
		if b.v {
			w.key(b.name)
			w.b = append(w.b, "true"...)
		}
	}
	if s.ForkedAt != "" {
		w.str("forked_at", s.ForkedAt)
	}
	if s.CommandOpen != "" {
		w.str("command_open", s.CommandOpen)
	}
	if s.Checked {
		w.key("automation_checked")
		w.b = append(w.b, "true"...)
	}
	if len(s.Spawned) > 0 {
		w.strs("spawned_headless", s.Spawned)
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

// Unmarshal is json.Unmarshal(data, c).
func Unmarshal(data []byte, c *Record) error {
	d := jsonread.New(data)
	d.Value(func() {
		d.Object(func(k string) {
			switch d.Field(k, checkpointKeys) {
			case "session_id":
				d.Str(&c.SessionID)
			case "project_root":
				d.Str(&c.ProjectRoot)
			case "goal":
				d.Str(&c.Goal)
			case "title":
				d.Str(&c.Title)
			case "turns":
				d.Int(&c.Turns)
			case "tools":
				d.IntMap(&c.Tools)
			case "subagent_tools":
				d.IntMap(&c.SubagentTools)
			case "tool_errors":
				d.Int(&c.ToolErrors)
			case "declined":
				d.Int(&c.Declined)
			case "files_changed":
				d.Strs(&c.FilesChanged)
			case "skills_used":
				d.Strs(&c.SkillsUsed)
			case "duration_seconds":
				d.Int64(&c.DurationSeconds, 64)
			case "git_remote":
				d.Str(&c.GitRemote)
			case "compactions":
				d.Int(&c.Compactions)
			case "started_at":
				d.Str(&c.StartedAt)
			case "ended_at":
				d.Str(&c.EndedAt)
			case "git_branch":
				d.Str(&c.GitBranch)
			case "model":
				d.Str(&c.Model)
			case "client_version":
				d.Str(&c.ClientVersion)
			case "entrypoint":
				d.Str(&c.Entrypoint)
			case "agent":
				d.Str(&c.Agent)
			case "prompt_queued":
				d.Bool(&c.PromptQueued)
			case "outcome":
				d.Str(&c.Outcome)
			case "automated":
				d.Bool(&c.Automated)
			case "automated_by":
				d.Str(&c.AutomatedBy)
			case "parent_session":
				d.Str(&c.Parent)
			case "digest":
				readDigest(d, &c.Digest)
			case "friction":
				readFrictionResult(d, &c.Friction)
			case "redactions":
				d.Int(&c.Redactions)
			case "transcript":
				readPos(d, &c.Transcript)
			case "process":
				readProcess(d, &c.Process)
			case "updated_at":
				d.Str(&c.UpdatedAt)
			case "archived_at":
				d.Str(&c.ArchivedAt)
			case "use":
				d.Nullable(func() { c.Use = nil }, func() {
					c.Use = &Use{}
					d.Object(func(k string) {
						switch d.Field(k, useKeys) {
						case "given":
							d.IntMap(&c.Use.Given)
						case "used":
							d.IntMap(&c.Use.Used)
						default:
							d.Skip()
						}
					})
				})
			case "state":
				readState(d, &c.State)
			default:
				d.Skip()
			}
		})
	})
	return d.End()
}

var (
	checkpointKeys = []string{"session_id", "project_root", "goal", "title", "turns", "tools", "subagent_tools", "tool_errors", "declined", "files_changed", "skills_used", "duration_seconds", "git_remote",
		"compactions", "started_at", "ended_at", "git_branch", "model", "client_version", "agent", "entrypoint", "prompt_queued", "outcome", "automated", "automated_by", "parent_session",
		"friction", "redactions", "digest", "transcript", "process", "updated_at", "archived_at", "use", "state"}
	digestKeys  = []string{"notes", "commands", "files_read", "dropped", "cut"}
	noteKeys    = []string{"turn", "at", "kind", "cmd", "text", "after"}
	failingKeys = []string{"turn", "cmd", "changed", "ran"}
	posKeys     = []string{"path", "offset", "skip", "size", "inode", "tail"}
	resultKeys  = []string{"score", "class", "signals"}
	processKeys = []string{"pid", "start"}
	stateKeys   = []string{"friction", "pending_files", "boundaries", "precompacts", "compact_trigger", "goal_redactions", "outcome_redactions", "other_redactions", "triage_fired", "triage_pending", "shown", "given", "guarded", "subagents",
		"calls", "failing", "title_open", "forked_at", "command_open", "automation_checked", "spawned_headless"}
	fStateKeys = []string{"signals", "pending", "last_failed", "turn_upset", "stopped", "last_call", "call_run", "last_interrupt", "last_timestamp", "prompts"}
	hitKeys    = []string{"category", "score", "excerpt"}
	useKeys    = []string{"given", "used"}
	givenKeys  = []string{"ref", "kind", "turn"}
)

func readDigest(d *jsonread.Reader, g *Digest) {
	d.Value(func() {
		d.Object(func(k string) {
			switch d.Field(k, digestKeys) {
			case "notes":
				d.Nullable(func() { g.Notes = nil }, func() {
					g.Notes = g.Notes[:0]
					if g.Notes == nil {
						g.Notes = []Note{}
					}
					d.Array(func() {
						var n Note
						d.Value(func() {
							d.Object(func(k string) {
								switch d.Field(k, noteKeys) {
								case "turn":
									d.Int(&n.Turn)
								case "at":
									d.Str(&n.At)
								case "kind":
									d.Str(&n.Kind)
								case "cmd":
									d.Str(&n.Cmd)
								case "text":
									d.Str(&n.Text)
								case "after":
									d.Strs(&n.After)
								default:
									d.Skip()
								}
							})
						})
						g.Notes = append(g.Notes, n)
					})
				})
			case "commands":
				d.Strs(&g.Commands)
			case "files_read":
				d.Strs(&g.Read)
			case "dropped":
				d.Int(&g.Dropped)
			case "cut":
				d.Int(&g.Cut)
			default:
				d.Skip()
			}
		})
	})
}

func readPos(d *jsonread.Reader, p *TranscriptPos) {
	d.Value(func() {
		d.Object(func(k string) {
			switch d.Field(k, posKeys) {
			case "path":
				d.Str(&p.Path)
			case "offset":
				d.Int64(&p.Offset, 64)
			case "skip":
				d.Int64(&p.Skip, 64)
			case "size":
				d.Int64(&p.Size, 64)
			case "inode":
				d.Uint64(&p.Inode)
			case "tail":
				d.Uint64(&p.Tail)
			default:
				d.Skip()
			}
		})
	})
}

func readFrictionResult(d *jsonread.Reader, r *friction.Result) {
	d.Value(func() {
		d.Object(func(k string) {
			switch d.Field(k, resultKeys) {
			case "score":
				d.Float(&r.Score)
			case "class":
				d.Str(&r.Class)
			case "signals":
				d.IntMap(&r.Signals)
			default:
				d.Skip()
			}
		})
	})
}

func readProcess(d *jsonread.Reader, p *proc.Info) {
	d.Value(func() {
		d.Object(func(k string) {
			switch d.Field(k, processKeys) {
			case "pid":
				d.Int(&p.PID)
			case "start":
				d.Uint64(&p.Start)
			default:
				d.Skip()
			}
		})
	})
}

func readState(d *jsonread.Reader, s *CaptureState) {
	d.Value(func() {
		d.Object(func(k string) {
			switch d.Field(k, stateKeys) {
			case "friction":
				readFrictionState(d, &s.Friction)
			case "pending_files":
				d.Nullable(func() { s.PendingFiles = nil }, func() {
					if s.PendingFiles == nil {
						s.PendingFiles = map[string]string{}
					}
					d.Object(func(k string) {
						var v string
						d.Str(&v)
						s.PendingFiles[k] = v
					})
				})
			case "boundaries":
				d.Int(&s.Boundaries)
			case "precompacts":
				d.Int(&s.PreCompacts)
			case "compact_trigger":
				d.Str(&s.CompactTrigger)
			case "goal_redactions":
				d.Int(&s.GoalRedactions)
			case "outcome_redactions":
				d.Int(&s.OutcomeRedactions)
			case "other_redactions":
				d.Int(&s.OtherRedactions)
			case "triage_fired":
				d.Strs(&s.TriageFired)
			case "triage_pending":
				d.Nullable(func() { s.TriagePending = nil }, func() {
					s.TriagePending = s.TriagePending[:0]
					if s.TriagePending == nil {
						s.TriagePending = []triage.Hit{}
					}
					d.Array(func() {
						var h triage.Hit
						readHit(d, &h)
						s.TriagePending = append(s.TriagePending, h)
					})
				})
			case "shown":
				d.Nullable(func() { s.Shown = nil }, func() {
					var text string
					d.Str(&text)
					b, err := base64.StdEncoding.DecodeString(text)
					if err != nil {
						d.Fail(err.Error())
					}
					s.Shown = b
				})
			case "given":
				d.Nullable(func() { s.Given = nil }, func() {
					s.Given = s.Given[:0]
					if s.Given == nil {
						s.Given = []Given{}
					}
					d.Array(func() {
						var g Given
						d.Value(func() {
							d.Object(func(k string) {
								switch d.Field(k, givenKeys) {
								case "ref":
									d.Str(&g.Ref)
								case "kind":
									d.Str(&g.Kind)
								case "turn":
									d.Int(&g.Turn)
								default:
									d.Skip()
								}
							})
						})
						s.Given = append(s.Given, g)
					})
				})
			case "guarded":
				d.Nullable(func() { s.Guarded = nil }, func() {
					var text string
					d.Str(&text)
					b, err := base64.StdEncoding.DecodeString(text)
					if err != nil {
						d.Fail(err.Error())
					}
					s.Guarded = b
				})
			case "calls":
				d.Nullable(func() { s.Calls = nil }, func() {
					if s.Calls == nil {
						s.Calls = map[string]string{}
					}
					d.Object(func(k string) {
						var v string
						d.Str(&v)
						s.Calls[k] = v
					})
				})
			case "failing":
				d.Nullable(func() { s.Failing = nil }, func() {
					if s.Failing == nil {
						s.Failing = map[string]*Failing{}
					}
					d.Object(func(k string) {
						var f *Failing
						d.Nullable(func() {}, func() {
							f = &Failing{}
							d.Object(func(k string) {
								switch d.Field(k, failingKeys) {
								case "turn":
									d.Int(&f.Turn)
								case "cmd":
									d.Str(&f.Cmd)
								case "changed":
									d.Strs(&f.Changed)
								case "ran":
									d.Strs(&f.Ran)
								default:
									d.Skip()
								}
							})
						})
						s.Failing[k] = f
					})
				})
			case "title_open":
				d.Bool(&s.TitleOpen)
			case "forked_at":
				d.Str(&s.ForkedAt)
			case "command_open":
				d.Str(&s.CommandOpen)
			case "automation_checked":
				d.Bool(&s.Checked)
			case "spawned_headless":
				d.Strs(&s.Spawned)
			case "subagents":
				d.Nullable(func() { s.Subagents = nil }, func() {
					if s.Subagents == nil {
						s.Subagents = map[string]TranscriptPos{}
					}
					d.Object(func(k string) {
						var p TranscriptPos
						readPos(d, &p)
						s.Subagents[k] = p
					})
				})
			default:
				d.Skip()
			}
		})
	})
}

func readFrictionState(d *jsonread.Reader, f *friction.State) {
	d.Value(func() {
		d.Object(func(k string) {
			switch d.Field(k, fStateKeys) {
			case "signals":
				d.IntMap(&f.Signals)
			case "pending":
				d.Bool(&f.Pending)
			case "last_failed":
				d.Bool(&f.LastFailed)
			case "turn_upset":
				d.Bool(&f.TurnUpset)
			case "stopped":
				d.Bool(&f.Stopped)
			case "last_call":
				d.Uint64(&f.LastCall)
			case "call_run":
				d.Int(&f.CallRun)
			case "last_interrupt":
				d.Str(&f.LastInterrupt)
			case "last_timestamp":
				d.Str(&f.LastTimestamp)
			case "prompts":
				d.Nullable(func() { f.Prompts = nil }, func() {
					f.Prompts = f.Prompts[:0]
					if f.Prompts == nil {
						f.Prompts = []uint64{}
					}
					d.Array(func() {
						var u uint64
						d.Uint64(&u)
						f.Prompts = append(f.Prompts, u)
					})
				})
			default:
				d.Skip()
			}
		})
	})
}

func readHit(d *jsonread.Reader, h *triage.Hit) {
	d.Value(func() {
		d.Object(func(k string) {
			switch d.Field(k, hitKeys) {
			case "category":
				d.Str(&h.Category)
			case "score":
				d.Float(&h.Score)
			case "excerpt":
				d.Str(&h.Excerpt)
			default:
				d.Skip()
			}
		})
	})
}
