// Package transcripttest writes Claude Code transcripts for tests, line by
// line, the way the client writes them: Tx as 2.1.x with an entrypoint
// writes, OldTx as clients before the entrypoint field (2.1.12–2.1.29).
package transcripttest

import (
	"fmt"
	"strings"
	"time"
)

// Tx writes transcript lines the way Claude Code 2.1.x writes them: a
// prompt carries its origin, tool calls and their results ids, each line
// its session, working directory and time.
type Tx struct {
	SID, Cwd string
	// Entrypoint is the prompts' entrypoint: cli, sdk-cli, sdk-ts.
	Entrypoint string
	// T is the time of the last line; each line is 11 s after the one
	// before.
	T     time.Time
	Lines []string
	n     int
}

// New is a transcript of session sid in cwd, typed at the terminal, from
// 2026-11-02 10:00 UTC.
func New(sid, cwd string) *Tx {
	return &Tx{SID: sid, Cwd: cwd, Entrypoint: "cli", T: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)}
}

func (x *Tx) ts() string {
	x.T = x.T.Add(11 * time.Second)
	return x.T.Format("2006-01-02T15:04:05.000Z")
}

// Common is the fields every line carries — working directory, session,
// client version, branch — and the next line's time, for a Raw line.
func (x *Tx) Common() string {
	return fmt.Sprintf(`"cwd":%q,"sessionId":%q,"version":"2.1.145","gitBranch":"main","timestamp":%q`, x.Cwd, x.SID, x.ts())
}

// Prompt adds the person's prompt (an sdk one when the entrypoint is not
// the terminal's).
func (x *Tx) Prompt(text string) *Tx {
	src := "typed"
	if x.Entrypoint != "cli" {
		src = "sdk"
	}
	x.Lines = append(x.Lines, fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":%q},"entrypoint":%q,"promptSource":%q,"userType":"external",%s}`,
		text, x.Entrypoint, src, x.Common()))
	return x
}

// Say adds the assistant's answer.
func (x *Tx) Say(text string) *Tx {
	x.n++
	x.Lines = append(x.Lines, fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"message":{"id":"msg_%d","model":"claude-opus-5-5","role":"assistant","content":[{"type":"text","text":%q}]},"type":"assistant",%s}`,
		x.n, text, x.Common()))
	return x
}

// Call adds a tool call with its input (JSON) and its result.
func (x *Tx) Call(name, input, result string, isErr bool) *Tx {
	x.n++
	id := fmt.Sprintf("toolu_%03d", x.n)
	x.Lines = append(x.Lines,
		fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"message":{"id":"msg_%d","model":"claude-opus-5-5","role":"assistant","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}]},"type":"assistant",%s}`,
			x.n, id, name, input, x.Common()),
		fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%q,"is_error":%v}]},"toolUseResult":"x",%s}`,
			id, result, isErr, x.Common()))
	return x
}

// Raw adds a line as it is.
func (x *Tx) Raw(line string) *Tx { x.Lines = append(x.Lines, line); return x }

// Text is the transcript's bytes.
func (x *Tx) Text() []byte { return []byte(strings.Join(x.Lines, "\n") + "\n") }

// OldTx is a transcript as clients before the entrypoint field wrote it
// (2.1.12–2.1.29): no entrypoint on any line; a `claude -p` run opens with
// the client dequeuing the prompt that came with the command.
type OldTx struct {
	SID, Cwd string
	T        time.Time
	Lines    []string
	n        int
}

func (x *OldTx) at(d time.Duration) string {
	x.T = x.T.Add(d)
	return x.T.Format("2006-01-02T15:04:05.000Z")
}

// Dequeue adds the client's taking of a prompt that came with the command.
func (x *OldTx) Dequeue() *OldTx {
	x.Lines = append(x.Lines, fmt.Sprintf(`{"type":"queue-operation","operation":"dequeue","timestamp":%q,"sessionId":%q}`, x.at(0), x.SID))
	return x
}

// Prompt adds the prompt.
func (x *OldTx) Prompt(text string) *OldTx {
	x.Lines = append(x.Lines, fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":%q,"sessionId":%q,"version":"2.1.20","gitBranch":"main","type":"user","message":{"role":"user","content":%q},"uuid":"u-%s-%d","timestamp":%q}`,
		x.Cwd, x.SID, text, x.SID, len(x.Lines), x.at(4*time.Millisecond)))
	return x
}

// Say adds an answer by model.
func (x *OldTx) Say(model, text string) *OldTx {
	x.n++
	x.Lines = append(x.Lines, fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"cwd":%q,"sessionId":%q,"version":"2.1.20","type":"assistant","message":{"id":"msg_%s_%d","model":%q,"role":"assistant","content":[{"type":"text","text":%q}]},"uuid":"a-%s-%d","timestamp":%q}`,
		x.Cwd, x.SID, x.SID, x.n, model, text, x.SID, x.n, x.at(3*time.Second)))
	return x
}
