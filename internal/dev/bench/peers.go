package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// The peer make bench-peers measures, as scripts/install-peers.sh fetches
// it into .cache/peers/.
const (
	claudeMemVersion = "13.25.3"
	bunVersion       = "1.4.5"
)

// peerReport times claude-mem's hook commands beside ccmem's on the same
// payloads, each pair in the same rounds with the Go floor: SessionStart
// (claude-mem runs two commands, the worker's start and the context; the
// client waits for both), UserPromptSubmit (before every prompt) and Stop
// (asynchronous in claude-mem: the client does not wait for it). The
// claude-mem worker is started once before the rounds and stopped after.
func peerReport(o options) error {
	plugin, _ := filepath.Abs(filepath.Join(".cache", "peers", "claude-mem-"+claudeMemVersion, "plugin"))
	bunBin, _ := filepath.Abs(filepath.Join(".cache", "peers", "bun", "node_modules", ".bin"))
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("node is not installed: run scripts/install-peers.sh")
	}
	if _, err := os.Stat(filepath.Join(plugin, "scripts", "worker-service.cjs")); err != nil {
		return fmt.Errorf("claude-mem is not in .cache/peers: run scripts/install-peers.sh")
	}
	tmp, err := os.MkdirTemp("", "ccmem-peers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := o.prepare(tmp); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir := filepath.Join(tmp, "typical")
	if out, err := exec.Command(self, "-generate", dir, "-spec", typical.name).CombinedOutput(); err != nil {
		return fmt.Errorf("generating the typical store: %v\n%s", err, out)
	}
	w := locate(dir)
	nodeVersion, _ := exec.Command(node, "--version").Output()
	fmt.Printf("ccmem beside claude-mem %s (Bun %s, Node %s) on the typical store: %d rounds, each running both hooks and the Go floor\n",
		claudeMemVersion, bunVersion, strings.TrimSpace(string(nodeVersion)), o.runs)
	fmt.Printf("machine: %s; load average before: %s\n\n", machine(), loadAverage())

	// claude-mem keeps its store and worker under its own HOME.
	cmHome := filepath.Join(tmp, "claude-mem-home")
	if err := os.MkdirAll(cmHome, 0o700); err != nil {
		return err
	}
	cmEnv := []string{"HOME=" + cmHome, "PATH=" + bunBin + string(os.PathListSeparator) + os.Getenv("PATH"), "CLAUDE_PLUGIN_ROOT=" + plugin}
	claudeMem := func(args ...string) command {
		return command{path: node, args: append([]string{filepath.Join(plugin, "scripts", "bun-runner.js"), filepath.Join(plugin, "scripts", "worker-service.cjs")}, args...), env: cmEnv, dir: w.repo}
	}
	turn := claudecode.Payload{SessionID: "peer-session", TranscriptPath: w.transcript, Cwd: w.repo}
	startPayload := string(claudecode.Payload{SessionID: turn.SessionID, TranscriptPath: turn.TranscriptPath, Cwd: turn.Cwd, HookEventName: "SessionStart", Source: "startup"}.JSON())
	promptPayload := string(claudecode.Payload{SessionID: turn.SessionID, TranscriptPath: turn.TranscriptPath, Cwd: turn.Cwd, HookEventName: "UserPromptSubmit",
		Prompt: "how did we fix the payment retry timeout in the checkout client last time?"}.JSON())
	stopPayload := string(claudecode.Payload{SessionID: turn.SessionID, TranscriptPath: turn.TranscriptPath, Cwd: turn.Cwd, HookEventName: "Stop"}.JSON())
	up := claudeMem("start")
	up.stdin = startPayload
	if _, err := up.run(); err != nil {
		return fmt.Errorf("starting claude-mem's worker: %v", err)
	}
	defer func() {
		down := claudeMem("stop")
		_, _ = down.run()
	}()
	ccEnv := []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "CLAUDE_PID=4194305"}
	hook := func(name, stdin string) command {
		return command{path: filepath.Join(o.hookDir, name), stdin: stdin, env: ccEnv, dir: w.repo}
	}
	with := func(c command, stdin string) command { c.stdin = stdin; return c }
	rows := []struct {
		name       string
		ccmem, cm  command
		cmAlso     *command // a second command the client waits for
		clientWait bool
	}{
		{"SessionStart", hook("sessionstart", startPayload), with(claudeMem("start"), startPayload), ptr(with(claudeMem("hook", "claude-code", "context"), startPayload)), true},
		{"UserPromptSubmit", hook("userpromptsubmit", promptPayload), with(claudeMem("hook", "claude-code", "session-init"), promptPayload), nil, true},
		{"Stop", hook("stop", stopPayload), with(claudeMem("hook", "claude-code", "summarize"), stopPayload), nil, false},
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "hook\tccmem ms\tclaude-mem ms\tclaude-mem ÷ ccmem\tGo floor ms\tclient waits\t")
	for _, r := range rows {
		var cc, cm, floor []sample
		var ratios []float64
		for i := 0; i < o.warmup+o.runs; i++ {
			g, err := command{path: o.floor, stdin: r.ccmem.stdin, env: ccEnv, dir: w.repo}.run()
			if err != nil {
				return err
			}
			a, err := r.ccmem.run()
			if err != nil {
				return err
			}
			b, err := r.cm.run()
			if err != nil {
				return fmt.Errorf("claude-mem %s: %v", r.name, err)
			}
			if r.cmAlso != nil {
				// The client runs an event's hooks side by side and waits
				// for the slower.
				c, err := r.cmAlso.run()
				if err != nil {
					return fmt.Errorf("claude-mem %s: %v", r.name, err)
				}
				b.d = max(b.d, c.d)
			}
			if i >= o.warmup {
				cc, cm, floor = append(cc, a), append(cm, b), append(floor, g)
				ratios = append(ratios, float64(b.d)/float64(a.d))
			}
		}
		sortFloats(ratios)
		waits := "yes"
		if !r.clientWait {
			waits = "no (async)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f×\t%s\t%s\t\n", r.name, ms(summarize(cc).median), ms(summarize(cm).median), median(ratios), ms(summarize(floor).median), waits)
	}
	tw.Flush()
	fmt.Printf("\nload average after: %s; %s\n", loadAverage(), time.Now().UTC().Format("2006-01-02"))
	return nil
}

func ptr[T any](v T) *T { return &v }
