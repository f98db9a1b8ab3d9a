package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// rowSpec is one measured process on one store, and its target.
type rowSpec struct {
	store, name string
	cmd         command
	// before prepares round i (a fresh session, a grown transcript, a
	// changed silo); after undoes what the round did when the next must
	// start from the same store.
	before func(c *command, i int)
	after  func(i int)
	// rounds, when set, replaces -runs and -warmup (slow rows).
	rounds int
	bytes  int64 // what the row reads, for a throughput target
	judge  func(r row) (target string, pass bool)
}

// row is one measured line of the table.
type row struct {
	name, store    string
	hook, goF, pyF stats
	xGo, xPy       float64 // medians of the per-round ratios
	bytes          int64
	target         string
	pass           bool
	bin            string // the binary the row runs
}

const rssMax = 30 << 10 // KB

// Targets.
func ratioAtMost(x float64) func(row) (string, bool) {
	return func(r row) (string, bool) {
		return fmt.Sprintf("≤ %.1f× Go", x), r.xGo <= x && r.hook.rss < rssMax
	}
}

func maxUnder(limit time.Duration) func(row) (string, bool) {
	return func(r row) (string, bool) {
		return fmt.Sprintf("max ≤ %v", limit), r.hook.max <= limit && r.hook.rss < rssMax
	}
}

func medianMaxUnder(median, limit time.Duration) func(row) (string, bool) {
	return func(r row) (string, bool) {
		return fmt.Sprintf("median ≤ %v, max ≤ %v", median, limit), r.hook.median <= median && r.hook.max <= limit && r.hook.rss < rssMax
	}
}

func throughputAtLeast(mbps float64, limit time.Duration) func(row) (string, bool) {
	return func(r row) (string, bool) {
		got := float64(r.bytes) / (1 << 20) / r.hook.median.Seconds()
		return fmt.Sprintf("≥ %.0f MB/s (%.0f), max ≤ %v", mbps, got, limit), got >= mbps && r.hook.max <= limit && r.hook.rss < rssMax
	}
}

// rowsFor lists the rows measured on a store.
func rowsFor(o options, spec storeSpec, w world) []rowSpec {
	hook := func(name string) string { return filepath.Join(o.hookDir, name) }
	startPayload := func(i int) string {
		// Every session start is a new session, as in real use: it
		// archives the previous one (whose process is gone) and opens its
		// own.
		return string(claudecode.Payload{SessionID: fmt.Sprintf("bench-start-%d", i), TranscriptPath: w.transcript + ".start", Cwd: w.repo, HookEventName: "SessionStart", Source: "startup"}.JSON())
	}
	turn := claudecode.Payload{SessionID: "bench-session", TranscriptPath: w.transcript, Cwd: w.repo}
	with := func(f func(p *claudecode.Payload)) string { p := turn; f(&p); return string(p.JSON()) }
	stopPayload := with(func(p *claudecode.Payload) { p.HookEventName = "Stop" })
	preCompactPayload := with(func(p *claudecode.Payload) { p.HookEventName, p.Trigger = "PreCompact", "auto" })
	checkpoint := w.env.CheckpointPath(w.key, "bench-session")
	promptPayload := with(func(p *claudecode.Payload) {
		p.HookEventName, p.Prompt = "UserPromptSubmit", "how did we fix the payment retry timeout in the checkout client last time?"
	})
	toolPayload := func(command string) string {
		input, _ := json.Marshal(map[string]string{"command": command, "description": "run"})
		return with(func(p *claudecode.Payload) {
			p.HookEventName, p.ToolName, p.ToolInput, p.ToolUseID = "PreToolUse", "Bash", input, "toolu_1"
		})
	}
	// A command no rule bears on: what nearly every call is.
	preToolUse := func(judge func(row) (string, bool)) rowSpec {
		return rowSpec{name: "pretooluse", cmd: command{path: hook("pretooluse"), stdin: toolPayload("go test ./internal/cart/...")}, judge: judge}
	}
	sessionstart := func(judge func(row) (string, bool)) rowSpec {
		return rowSpec{name: "sessionstart", cmd: command{path: hook("sessionstart")}, before: func(c *command, i int) { c.stdin = startPayload(i) }, judge: judge}
	}
	statusLine := func(judge func(row) (string, bool)) rowSpec {
		return rowSpec{name: "status --line", cmd: command{path: o.ccm, args: []string{"status", "--line"}, stdin: statusInput}, judge: judge}
	}
	search := func(judge func(row) (string, bool)) rowSpec {
		return rowSpec{name: "ccmem search", cmd: command{path: o.ccm, args: []string{"search", "payment", "retry", "timeout", "checkout"}, stdin: "{}"}, judge: judge}
	}
	var rows []rowSpec
	switch spec.name {
	case typical.name:
		// Every hook within 1.5× of a bare Go process (the hooks' target).
		subagent := with(func(p *claudecode.Payload) {
			p.HookEventName, p.AgentID, p.AgentType = "SubagentStart", "a1", "general-purpose"
		})
		rows = []rowSpec{
			sessionstart(ratioAtMost(1.5)),
			{name: "stop (first pass)", cmd: command{path: hook("stop"), stdin: stopPayload}, before: func(*command, int) { os.Remove(checkpoint) }, judge: ratioAtMost(1.5)},
			{name: "stop (+1 KB)", cmd: command{path: hook("stop"), stdin: stopPayload}, before: func(*command, int) { appendKB(w.transcript) }, judge: ratioAtMost(1.5)},
			{name: "precompact (+1 KB)", cmd: command{path: hook("precompact"), stdin: preCompactPayload}, before: func(*command, int) { appendKB(w.transcript) }, judge: ratioAtMost(1.5)},
			{name: "userpromptsubmit", cmd: command{path: hook("userpromptsubmit"), stdin: promptPayload}, judge: ratioAtMost(1.5)},
			// It runs before every tool call.
			preToolUse(ratioAtMost(1.5)),
			{name: "subagentstart", cmd: command{path: hook("subagentstart"), stdin: subagent}, judge: ratioAtMost(1.5)},
			statusLine(ratioAtMost(1.5)),
			// Not a hook: a command people and the model run; the same
			// limit as on the large store.
			search(maxUnder(100 * time.Millisecond)),
		}
	case large.name:
		// The first search of a store builds its index (111 MB for these
		// 10,200 sessions with digests); every later row runs on the built
		// index, as a store in use has one.
		cold := search(func(r row) (string, bool) {
			// A command run once per store; its memory is reported, not held
			// to a hook's 30 MB.
			return "max ≤ 10s", r.hook.max <= 10*time.Second
		})
		cold.name, cold.rounds = "ccmem search, no index yet", 3
		cold.before = func(*command, int) { os.RemoveAll(filepath.Join(w.env.Store, "search")) }
		rows = []rowSpec{
			cold,
			sessionstart(maxUnder(50 * time.Millisecond)),
			{name: "stop (first pass)", cmd: command{path: hook("stop"), stdin: stopPayload}, before: func(*command, int) { os.Remove(checkpoint) },
				bytes: spec.transcriptBytes, judge: throughputAtLeast(200, 1500*time.Millisecond)},
			{name: "stop (+1 KB)", cmd: command{path: hook("stop"), stdin: stopPayload}, before: func(*command, int) { appendKB(w.transcript) }, judge: maxUnder(50 * time.Millisecond)},
			{name: "precompact (+1 KB)", cmd: command{path: hook("precompact"), stdin: preCompactPayload}, before: func(*command, int) { appendKB(w.transcript) }, judge: maxUnder(50 * time.Millisecond)},
			// It runs before every prompt, over 10,200 sessions with
			// their digests: stricter than the other hooks.
			{name: "userpromptsubmit", cmd: command{path: hook("userpromptsubmit"), stdin: promptPayload}, judge: medianMaxUnder(15*time.Millisecond, 50*time.Millisecond)},
			preToolUse(medianMaxUnder(15*time.Millisecond, 50*time.Millisecond)),
			statusLine(maxUnder(50 * time.Millisecond)),
			search(maxUnder(100 * time.Millisecond)),
		}
	case manyLearned.name:
		rows = []rowSpec{sessionstart(ratioAtMost(8))}
	case manySilos.name:
		// The client refreshes the status line every few hundred
		// milliseconds; a silo written meanwhile must cost one recount,
		// not one per refresh.
		changed := statusLine(ratioAtMost(8))
		changed.name = "status --line, a silo just changed"
		changed.before = func(c *command, i int) {
			write(filepath.Join(siloDir(w.env, (i*37)%spec.silos), fmt.Sprintf("changed-%d.md", i)), "---\nname: changed\ndescription: d\nmetadata:\n  type: reference\n---\nx\n")
		}
		unchanged := statusLine(ratioAtMost(8))
		unchanged.name = "status --line, none changed"
		rows = []rowSpec{changed, unchanged}
	case manyEpisodes.name:
		// The first start over 100,000 episodes moves all but the newest
		// max_episodes to the archive; each round starts from the
		// generated store again.
		// In a child process: this one must stay small (a child's peak
		// RSS counts its parent's at fork).
		self, err := os.Executable()
		must(err)
		restore := func(int) {
			if out, err := exec.Command(self, "-restore", w.dir).CombinedOutput(); err != nil {
				panic(fmt.Sprintf("restoring the episodes: %v\n%s", err, out))
			}
		}
		first := sessionstart(func(r row) (string, bool) {
			return "max ≤ 5s, RSS < 30 MB", r.hook.max <= 5*time.Second && r.hook.rss < rssMax
		})
		first.name, first.rounds, first.after = "sessionstart, first", o.coldRuns, restore
		later := sessionstart(maxUnder(50 * time.Millisecond))
		later.name = "sessionstart, later"
		later.before = func(c *command, i int) {
			if i == 0 {
				// Settle the store: starts until retention has moved
				// everything it will.
				for j := 0; j < 5; j++ {
					c.stdin = startPayload(1000 + j)
					must2(c.run())
				}
			}
			c.stdin = startPayload(i)
		}
		rows = []rowSpec{first, later}
	}
	for i := range rows {
		rows[i].store = spec.name
	}
	return rows
}

func must2(_ sample, err error) { must(err) }

// restore puts a generated store's episodes back where generate left
// them: every archived episode back in episodes/, INDEX.md as it was.
func restore(dir string) {
	w := locate(dir)
	moveAll(w.env.EpisodeArchiveDir(w.key), w.env.EpisodesDir(w.key))
	data, err := os.ReadFile(filepath.Join(dir, "INDEX.md.orig"))
	must(err)
	must(os.WriteFile(w.env.IndexPath(w.key), data, 0o600))
}

// moveAll moves every file of from into to.
func moveAll(from, to string) {
	ents, err := os.ReadDir(from)
	if err != nil {
		return
	}
	for _, de := range ents {
		must(os.Rename(filepath.Join(from, de.Name()), filepath.Join(to, de.Name())))
	}
}

const statusInput = `{"session_id":"s","cwd":"/tmp","model":{"id":"claude-opus-5-5","display_name":"Opus 5.5"},"workspace":{"current_dir":"/tmp","project_dir":"/tmp","added_dirs":[]},"version":"2.1.328"}`

func printTable(rows []row) {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "store\trow\tmedian ms\tp95 ms\tmax ms\tRSS MB\tGo floor ms\t×Go\tPython ms\t×Py\ttarget\t\t")
	for _, r := range rows {
		verdict := "PASS"
		if !r.pass {
			verdict = "MISS"
		}
		py, xpy := "n/a", "n/a"
		if r.pyF.median > 0 {
			py, xpy = ms(r.pyF.median), fmt.Sprintf("%.2f", r.xPy)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%.2f\t%s\t%s\t%s\t%s\t\n", r.store, r.name, ms(r.hook.median), ms(r.hook.p95), ms(r.hook.max),
			float64(r.hook.rss)/1024, ms(r.goF.median), r.xGo, py, xpy, r.target, verdict)
	}
	tw.Flush()
}

func appendKB(path string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	must(err)
	defer f.Close()
	ts := time.Now().UTC().Format(time.RFC3339)
	fmt.Fprintf(f, `{"type":"user","message":{"role":"user","content":"%s"},"timestamp":"%s"}`+"\n", strings.Repeat("k", 400), ts)
	fmt.Fprintf(f, `{"type":"assistant","message":{"id":"x","model":"m","content":[{"type":"text","text":"%s"}]},"timestamp":"%s"}`+"\n", strings.Repeat("a", 400), ts)
}
