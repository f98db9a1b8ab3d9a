// Package evalset is the evaluation corpus that looks like real use: long
// multi-turn sessions in three projects (two repositories and a personal
// folder), facts stated in passing, deep inside long prompts, in
// conclusions and as failures and their fixes, facts updated by later
// sessions, English, Chinese, Japanese and Spanish, Claude Code in Zed,
// a person's claude -p, automated runs, declined tool calls, tool output
// and small talk. Its sessions are written as Claude Code 2.1.x writes
// transcripts and replayed through the real hook binaries; its questions
// were written before any ranking was tuned on them (facts.go).
//
// Run measures ccmem (search over what capture kept, and per-prompt
// recall: what reaches the model) beside three references over the same
// sessions' full text: ccmem's own engine (the capture-fidelity bound), a
// plain BM25, and grep -i.
package evalset

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"time"
)

// Base is the corpus's first day.
var Base = time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)

// Session is one generated session: its transcript, turn by turn.
type Session struct {
	ID, Project, Lang, Kind string
	Start                   time.Time
	// Turns are the transcript lines each turn appends.
	Turns [][]string
	// Text is what was said (every prompt and assistant text), for the
	// full-text references.
	Text string
	// Facts are the ids of the facts the session states.
	Facts []string
}

// Corpus is the generated sessions and the questions.
type Corpus struct {
	Sessions  []*Session
	Questions []Question
	SmallTalk []string
	// FactSession maps a fact to the session that states it.
	FactSession map[string]string
	// FactText is each fact's sentence.
	FactText map[string]string
	// AskedAt is when the questions are asked (zero: 40 days after Base).
	AskedAt time.Time
	// SmallTalkIn is the project each small-talk prompt is typed in
	// (none: shop).
	SmallTalkIn map[string]string
	// Unrelated are short requests that no session bears on, each typed
	// in the project of SmallTalkIn.
	Unrelated []string
}

// Question is a question and the sessions that answer it.
type Question struct {
	Text, Lang string
	Sessions   []string
	All        bool
	// Facts are the sentences that answer it.
	Facts []string
	// Kind and Split are a chat question's kind (single, paraphrase,
	// multihop, temporal, opening) and split (dev, held).
	Kind, Split string
}

// line builds transcript lines as the client writes them.
type line struct {
	sid, cwd, branch string
	n                int
	t                time.Time
	parent           string
}

func (l *line) next() (uuid, parent string, ts string) {
	l.n++
	parent = l.parent
	uuid = fmt.Sprintf("%08x-0000-4000-8000-%012x", l.n, l.n*7919)
	l.parent = uuid
	l.t = l.t.Add(7 * time.Second)
	return uuid, parent, l.t.Format("2006-01-02T15:04:05.000Z")
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

type promptOrigin struct{ entrypoint, source, origin string }

func (l *line) prompt(text string, o promptOrigin) string {
	uuid, parent, ts := l.next()
	m := map[string]any{"parentUuid": nilIfEmpty(parent), "isSidechain": false, "promptId": uuid, "type": "user",
		"message": map[string]any{"role": "user", "content": text}, "uuid": uuid, "timestamp": ts, "permissionMode": "acceptEdits",
		"userType": "external", "entrypoint": o.entrypoint, "cwd": l.cwd, "sessionId": l.sid, "version": "2.1.328", "gitBranch": l.branch}
	if o.source != "" {
		m["promptSource"], m["turnOrigin"] = o.source, o.origin
	}
	return marshal(m)
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (l *line) assistant(blocks []map[string]any) string {
	uuid, parent, ts := l.next()
	return marshal(map[string]any{"parentUuid": parent, "isSidechain": false, "message": map[string]any{"id": "msg_" + uuid[:8], "model": "claude-opus-5-5",
		"role": "assistant", "content": blocks}, "type": "assistant", "uuid": uuid, "timestamp": ts, "userType": "external", "cwd": l.cwd,
		"sessionId": l.sid, "version": "2.1.328", "gitBranch": l.branch})
}

func (l *line) result(id, out string, isErr bool) string {
	uuid, parent, ts := l.next()
	res := any(map[string]any{"stdout": out, "stderr": "", "interrupted": false})
	if isErr {
		res = "Error: " + out
	}
	return marshal(map[string]any{"parentUuid": parent, "isSidechain": false, "type": "user", "message": map[string]any{"role": "user",
		"content": []map[string]any{{"tool_use_id": id, "type": "tool_result", "content": out, "is_error": isErr}}},
		"uuid": uuid, "timestamp": ts, "toolUseResult": res, "userType": "external", "cwd": l.cwd, "sessionId": l.sid, "version": "2.1.328"})
}

// noise is what else a transcript holds: attachments, API request lines,
// and (as older clients wrote them) progress lines nesting whole messages.
func (l *line) noise(r *rand.Rand) []string {
	_, _, ts := l.next()
	out := []string{
		marshal(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_success", "content": "", "hookName": "SessionStart"}, "timestamp": ts, "sessionId": l.sid}),
		marshal(map[string]any{"type": "api-request", "sessionId": l.sid, "id": fmt.Sprintf("req_%d", l.n), "timestamp": ts, "version": "2.1.328", "querySource": "repl_main_thread"}),
	}
	if r.Intn(2) == 0 {
		out = append(out, marshal(map[string]any{"parentUuid": l.parent, "isSidechain": false, "userType": "external", "cwd": l.cwd, "sessionId": l.sid,
			"version": "2.1.145", "gitBranch": l.branch, "type": "progress", "data": map[string]any{"type": "agent_progress",
				"message": map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "nested progress copy of a prompt"}}},
			"toolUseID": "toolu_p", "timestamp": ts}))
	}
	return out
}

// Generate builds the corpus: the sessions of facts.go, filler sessions
// and automated runs, deterministic for a seed.
func Generate(seed int64) *Corpus {
	r := rand.New(rand.NewSource(seed))
	c := &Corpus{SmallTalk: smallTalk, FactSession: map[string]string{}, FactText: map[string]string{}}
	tool := 0
	toolID := func() string { tool++; return fmt.Sprintf("toolu_%04d", tool) }
	pick := func(list []string) string { return list[r.Intn(len(list))] }
	var all []sessionSpec
	all = append(all, sessions...)
	// Filler sessions: the everyday work around the facts.
	for _, project := range []string{"shop", "api", "home"} {
		for i, topic := range topics[project] {
			lang := "en"
			switch {
			case hasRunes(topic, 0x4e00, 0x9fff):
				lang = "zh"
				if hasRunes(topic, 0x3040, 0x30ff) {
					lang = "ja"
				}
			case hasRunes(topic, 0x3040, 0x30ff):
				lang = "ja"
			case strings.ContainsAny(topic, "ñáéíóú") || strings.HasPrefix(topic, "Añade") || strings.HasPrefix(topic, "Documenta") || strings.HasPrefix(topic, "Ayúdame"):
				lang = "es"
			}
			all = append(all, sessionSpec{id: fmt.Sprintf("%s-f%02d", project, i), project: project, lang: lang, day: r.Intn(32), opening: topic, turns: 3 + r.Intn(6)})
		}
	}
	// Automated runs: an observer plugin's claude -p after sessions.
	for i := range 12 {
		all = append(all, sessionSpec{id: fmt.Sprintf("shop-auto%02d", i), project: "shop", lang: "en", day: 2 + i*2, kind: "automated",
			opening: observerPrompt + fmt.Sprintf("Bash: go test ./internal/cart (run %d)\nEdit: internal/pay/client.go\n</tool_calls>", i), turns: 1})
	}
	for _, spec := range all {
		s := &Session{ID: spec.id, Project: spec.project, Lang: spec.lang, Kind: spec.kind}
		if s.Kind == "" {
			s.Kind = "person"
		}
		s.Start = Base.Add(time.Duration(spec.day)*24*time.Hour + time.Duration(r.Intn(8))*time.Hour + time.Duration(r.Intn(60))*time.Minute)
		sid := sessionUUID(spec.id)
		l := &line{sid: sid, cwd: "$" + strings.ToUpper(spec.project), branch: "main", t: s.Start}
		if spec.project == "home" {
			l.branch = ""
		}
		origin := promptOrigin{entrypoint: "cli"}
		readTool, editTool := "Read", "Edit"
		switch s.Kind {
		case "headless", "automated":
			origin = promptOrigin{"sdk-cli", "sdk", "sdk"}
		case "zed":
			origin = promptOrigin{"sdk-ts", "sdk", "sdk"}
			readTool, editTool = "mcp__acp__Read", "mcp__acp__Edit"
		}
		facts := map[int]factSpec{}
		for _, f := range spec.facts {
			facts[f.turn] = f
			s.Facts = append(s.Facts, f.id)
			c.FactSession[f.id] = spec.id
			c.FactText[f.id] = f.text
			if f.where == "deep" {
				// The fact is the long opening past its first 200
				// characters: any one of its sentences there, quoted,
				// carries it.
				c.FactText[f.id] = strings.NewReplacer(". ", ".\n").Replace(spec.opening[200:])
			}
		}
		var text []string
		for t := 1; t <= spec.turns; t++ {
			var lines []string
			f, hasFact := facts[t]
			// The prompt.
			prompt := spec.opening
			if t > 1 {
				prompt = pick(followUps[langOr(spec.lang)])
				if r.Intn(8) == 0 {
					prompt = pick(smallTalk)
				}
				if hasFact && f.where == "passing" {
					prompt = pick(followUps[langOr(spec.lang)]) + ". " + f.text
				}
			}
			if t == 1 {
				lines = append(lines, marshal(map[string]any{"type": "queue-operation", "operation": "enqueue", "timestamp": l.t.Format(time.RFC3339Nano), "sessionId": sid, "content": prompt}))
			}
			lines = append(lines, l.prompt(prompt, origin))
			text = append(text, prompt)
			lines = append(lines, l.noise(r)...)
			// The work: tool calls and their results.
			if s.Kind != "automated" && spec.project != "home" {
				for range 1 + r.Intn(3) {
					id := toolID()
					switch r.Intn(4) {
					case 0:
						lines = append(lines, l.assistant([]map[string]any{{"type": "tool_use", "id": id, "name": readTool, "input": map[string]any{"file_path": "$" + strings.ToUpper(spec.project) + "/internal/core/file.go"}}}))
						lines = append(lines, l.result(id, pick(toolOutputs), false))
					case 1:
						lines = append(lines, l.assistant([]map[string]any{{"type": "text", "text": "Let me check the current state first."}, {"type": "tool_use", "id": id, "name": editTool,
							"input": map[string]any{"file_path": "$" + strings.ToUpper(spec.project) + "/internal/core/file.go", "old_string": "a", "new_string": "b"}}}))
						lines = append(lines, l.result(id, "The file has been updated successfully.", false))
					case 2:
						lines = append(lines, l.assistant([]map[string]any{{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": pick(shellCommands), "description": "run it"}}}))
						if r.Intn(12) == 0 {
							lines = append(lines, l.result(id, "The user doesn't want to proceed with this tool use. The tool use was rejected.", true))
						} else {
							lines = append(lines, l.result(id, pick(toolOutputs), false))
						}
					default:
						lines = append(lines, l.assistant([]map[string]any{{"type": "tool_use", "id": id, "name": "Grep", "input": map[string]any{"pattern": "TODO", "path": "internal"}}}))
						lines = append(lines, l.result(id, "internal/core/file.go:12: // TODO: handle the empty case\ninternal/core/other.go:40: // TODO: metrics", false))
					}
				}
			}
			if hasFact && f.where == "fix" {
				fixed := f.text[strings.LastIndex(f.text, "run ")+4:]
				failing := fixed
				if i := strings.Index(fixed, " "); i > 0 && strings.Contains(fixed[:i], "=") {
					failing = fixed[i+1:]
				}
				cause, _, _ := strings.Cut(f.text, ";")
				id := toolID()
				lines = append(lines, l.assistant([]map[string]any{{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": failing}}}))
				lines = append(lines, l.result(id, "Exit code 1\nFAIL: "+cause, true))
				id = toolID()
				lines = append(lines, l.assistant([]map[string]any{{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": fixed}}}))
				lines = append(lines, l.result(id, "ok  all tests passed", false))
			}
			// The conclusion.
			answer := pick(answers[langOr(spec.lang)])
			if s.Kind == "automated" {
				answer = `{"type":"change","title":"ran the cart tests","files":["internal/cart"]}`
			}
			if hasFact && (f.where == "answer" || f.where == "fix") {
				answer = f.text
				if f.where == "fix" {
					answer = "Found it: " + f.text
				}
			}
			lines = append(lines, l.assistant([]map[string]any{{"type": "text", "text": answer}}))
			text = append(text, answer)
			s.Turns = append(s.Turns, lines)
		}
		s.Text = strings.Join(text, "\n")
		c.Sessions = append(c.Sessions, s)
	}
	for _, q := range questions {
		var sids, texts []string
		for _, f := range q.answers {
			sids = append(sids, c.FactSession[f])
			texts = append(texts, c.FactText[f])
		}
		c.Questions = append(c.Questions, Question{Text: q.text, Lang: q.lang, Sessions: sids, All: q.all, Facts: texts})
	}
	return c
}

func langOr(lang string) string {
	if _, ok := followUps[lang]; ok {
		return lang
	}
	return "en"
}

func hasRunes(s string, lo, hi rune) bool {
	for _, r := range s {
		if r >= lo && r <= hi {
			return true
		}
	}
	return false
}

// sessionUUID is a session id in the client's form, stable for a name.
func sessionUUID(name string) string {
	var h uint64 = 1469598103934665603
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(h), uint16(h>>32), uint16(h>>48)&0xfff, uint16(h>>20)&0xfff, h&0xffffffffffff)
}
