// Package transcriptgen writes session transcripts with the mix of bytes a
// real Claude Code transcript has, for benchmarks: prompts, tool calls and
// their results (file contents and command output, which the client keeps
// twice: in the message and in toolUseResult), long assistant answers,
// attachments and API request lines, the progress lines older clients
// wrote (a quarter of their bytes, some nesting whole messages), and now
// and then a very long line (a pasted log).
package transcriptgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"time"
)

var words = strings.Fields("retry payment client checkout latency postgres migration flag release review cache token budget index episode silo memory hook session branch build test deploy config schema queue worker timeout backoff circuit the a to of and in for with on is that this")

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.Intn(len(words))]
	}
	return strings.Join(w, " ")
}

// code is a source file's worth of text, as a Read result holds it.
func code(r *rand.Rand, lines int) string {
	var b strings.Builder
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "%6d\t\tif err := %s(ctx, %s); err != nil { // %s\n", i, strings.ReplaceAll(sentence(r, 2), " ", "_"), sentence(r, 1), sentence(r, 5))
	}
	return b.String()
}

// Write writes about size bytes of transcript to w, deterministically for r.
func Write(w io.Writer, size int64, r *rand.Rand) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	emit := func(format string, args ...any) {
		k, _ := fmt.Fprintf(bw, format+"\n", args...)
		n += int64(k)
	}
	common := `"cwd":"/home/dev/src/shop","sessionId":"bench-session","version":"2.1.145","gitBranch":"main","userType":"external"`
	for i := 0; n < size; i++ {
		ts := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * 13 * time.Second).Format("2006-01-02T15:04:05.000Z")
		prompt := sentence(r, 30)
		if i%60 == 59 {
			prompt = "here is the log:\n" + strings.Repeat(sentence(r, 12)+"\n", 5000) // a pasted log: a 400 KB line
		}
		emit(`{"parentUuid":"p%d","isSidechain":false,"type":"user","message":{"role":"user","content":%q},"uuid":"u%d","timestamp":%q,"entrypoint":"cli","promptSource":"typed",%s}`, i, prompt, i, ts, common)
		for k := range 2 {
			emit(`{"parentUuid":"u%d","isSidechain":false,%s,"type":"progress","data":{"type":"hook_progress","hookEvent":"UserPromptSubmit","hookName":"UserPromptSubmit","command":"node /home/dev/.claude/hooks/log.js %d"},"toolUseID":"h%d","timestamp":%q}`, i, common, k, i, ts)
		}
		content := code(r, 80)
		emit(`{"parentUuid":"u%d","isSidechain":false,"message":{"id":"msg_r%d","model":"claude-opus-5-5","role":"assistant","content":[{"type":"text","text":%q},{"type":"tool_use","id":"tr%d","name":"Read","input":{"file_path":"/home/dev/src/shop/internal/f%d.go"}}]},"type":"assistant","uuid":"a%d","timestamp":%q,%s}`, i, i, sentence(r, 15), i, i%40, i, ts, common)
		emit(`{"parentUuid":"a%d","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"tr%d","type":"tool_result","content":%q}]},"uuid":"r%d","timestamp":%q,"toolUseResult":{"type":"text","file":{"filePath":"/home/dev/src/shop/internal/f%d.go","content":%q,"numLines":80}},%s}`, i, i, content, i, ts, i%40, content, common)
		out := strings.Repeat("=== RUN   Test"+strings.ReplaceAll(sentence(r, 2), " ", "")+"\n--- PASS (0.01s)\n", 40)
		emit(`{"parentUuid":"r%d","isSidechain":false,"message":{"id":"msg_b%d","model":"claude-opus-5-5","role":"assistant","content":[{"type":"tool_use","id":"tb%d","name":"Bash","input":{"command":"go test ./internal/... -run %s","description":"run the tests"}}]},"type":"assistant","uuid":"b%d","timestamp":%q,%s}`, i, i, i, strings.ReplaceAll(sentence(r, 1), " ", ""), i, ts, common)
		for k := range 3 {
			emit(`{"parentUuid":"b%d","isSidechain":false,%s,"type":"progress","data":{"type":"bash_progress","output":%q,"elapsedTimeSeconds":%d},"toolUseID":"tb%d","timestamp":%q}`, i, common, out[:min(len(out), 500*(k+1))], k, i, ts)
		}
		emit(`{"parentUuid":"b%d","isSidechain":false,%s,"type":"progress","data":{"message":{"type":"user","message":{"role":"user","content":[{"type":"text","text":%q}]},"timestamp":%q},"type":"agent_progress"},"toolUseID":"ag%d","timestamp":%q}`, i, common, sentence(r, 200), ts, i, ts)
		isErr := i%7 == 0
		emit(`{"parentUuid":"b%d","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"tb%d","type":"tool_result","content":%q,"is_error":%v}]},"uuid":"s%d","timestamp":%q,"toolUseResult":{"stdout":%q,"stderr":"","interrupted":false},%s}`, i, i, out, isErr, i, ts, out, common)
		emit(`{"parentUuid":"s%d","isSidechain":false,"message":{"id":"msg_e%d","model":"claude-opus-5-5","role":"assistant","content":[{"type":"tool_use","id":"te%d","name":"Edit","input":{"file_path":"/home/dev/src/shop/internal/f%d.go","old_string":%q,"new_string":%q}}]},"type":"assistant","uuid":"e%d","timestamp":%q,%s}`, i, i, i, i%40, sentence(r, 20), sentence(r, 22), i, ts, common)
		emit(`{"parentUuid":"e%d","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"te%d","type":"tool_result","content":"The file has been updated successfully."}]},"uuid":"x%d","timestamp":%q,"toolUseResult":{"filePath":"/home/dev/src/shop/internal/f%d.go"},%s}`, i, i, i, ts, i%40, common)
		emit(`{"parentUuid":"x%d","isSidechain":false,"attachment":{"type":"file","content":%q},"type":"attachment","uuid":"t%d","timestamp":%q,%s}`, i, code(r, 30), i, ts, common)
		emit(`{"type":"api-request","sessionId":"bench-session","id":"req_%d","timestamp":%q,"version":"2.1.145","querySource":"repl_main_thread"}`, i, ts)
		emit(`{"parentUuid":"x%d","isSidechain":false,"message":{"id":"msg_f%d","model":"claude-opus-5-5","role":"assistant","content":[{"type":"text","text":%q}]},"type":"assistant","uuid":"f%d","timestamp":%q,%s}`, i, i, sentence(r, 250), i, ts, common)
	}
	return bw.Flush()
}
