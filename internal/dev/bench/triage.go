package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// triageRow times what triage, on by default, adds to a turn's end: the
// stop hook after a turn of about 1 KB whose every sentence holds a
// decision with its reason (the most triage reads), with triage on and
// off in the same rounds, alternating which runs first (make bench-triage).
func triageRow(o options) error {
	base, err := os.MkdirTemp("", "ccmem-bench-triage")
	if err != nil {
		return err
	}
	defer os.RemoveAll(base)
	home, repo := filepath.Join(base, "home"), filepath.Join(base, "repo")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(home, ".claude", "ccmem")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	must(os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	tr := filepath.Join(base, "t.jsonl")
	must(os.WriteFile(tr, nil, 0o644))
	cfg := filepath.Join(home, ".claude", "ccmem", "config.yaml")
	if err := o.prepare(base); err != nil {
		return err
	}
	stop := command{path: filepath.Join(o.hookDir, "stop"), dir: repo,
		env:   []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CLAUDE_PID=4194305"},
		stdin: string(claudecode.Payload{SessionID: "s1", TranscriptPath: tr, Cwd: repo, HookEventName: "Stop"}.JSON())}
	sentence := "We decided to use Postgres for the queue because it already runs everywhere. "
	turn := func() {
		f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
		must(err)
		ts := time.Now().UTC().Format(time.RFC3339)
		fmt.Fprintf(f, `{"type":"user","message":{"role":"user","content":"which queue?"},"timestamp":%q}`+"\n", ts)
		fmt.Fprintf(f, `{"type":"assistant","message":{"id":"x","model":"m","content":[{"type":"text","text":%q}]},"timestamp":%q}`+"\n", strings.Repeat(sentence, 13), ts)
		must(f.Close())
	}
	timed := func(on bool) (time.Duration, error) {
		must(os.WriteFile(cfg, fmt.Appendf(nil, "triage:\n  enabled: %v\n", on), 0o644))
		turn()
		s, err := stop.run()
		return s.d, err
	}
	rounds := max(o.runs, 20) * 10
	var with, without []time.Duration
	for i := range o.warmup + rounds {
		first := i%2 == 0
		a, err := timed(first)
		if err != nil {
			return err
		}
		b, err := timed(!first)
		if err != nil {
			return err
		}
		if !first {
			a, b = b, a
		}
		if i >= o.warmup {
			with, without = append(with, a), append(without, b)
		}
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	on, off := median(with), median(without)
	fmt.Printf("stop after a 1 KB turn of decisions, %d paired rounds: triage on %v, off %v, on/off %.3f×\n",
		rounds, on.Round(10*time.Microsecond), off.Round(10*time.Microsecond), float64(on)/float64(off))
	return nil
}
