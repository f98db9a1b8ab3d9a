package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// The deadline is an invariant (issue 49): no hook runs past the client's
// budget, whatever the store holds. deadlines builds stores no person
// should have but some will — a global MEMORY.md of 50 MB edited by hand
// between prompts, a repository MEMORY.md of 10 MB, 3,000 learned rules,
// an INDEX.md of 20 MB, a transcript of 60 MB — and runs every hook on
// them while busy loops starve the CPU (two a core), checking that each
// exits 0 within the budget.

// clientBudget is the time the client gives a hook (5 s) before it gives
// up on it; ccmem's own deadline is under it.
const clientBudget = 5 * time.Second

// deadlines runs the deadline round; it returns the slowest run of each
// hook.
func (t *torture) deadlines(r *rand.Rand) map[string]time.Duration {
	home := filepath.Join(t.dir, "deadline-home")
	repo := filepath.Join(t.dir, "deadline-repo")
	must(os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	must(os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	store := filepath.Join(home, ".claude", "ccmem")
	words := strings.Fields("deploy staging invoice webhook retries backoff payments refund database migration column users auth token cache redis worker queue build test lint release docs api service handler router config never always run before")
	big := func(path string, size int, line func(i int) string) {
		must(os.MkdirAll(filepath.Dir(path), 0o700))
		var b bytes.Buffer
		b.WriteString("# Memory\n\n")
		for i := 0; b.Len() < size; i++ {
			b.WriteString(line(i))
		}
		must(os.WriteFile(path, b.Bytes(), 0o600))
	}
	sentence := func(i int) string {
		var w []string
		for range 12 {
			w = append(w, words[r.Intn(len(words))])
		}
		return "- " + strings.Join(w, " ") + fmt.Sprintf(" item%d\n", i)
	}
	big(filepath.Join(store, "MEMORY.md"), 50<<20, sentence)
	big(filepath.Join(repo, ".claude", "memory", "MEMORY.md"), 10<<20, sentence)
	for i := range 3000 {
		p := filepath.Join(store, "learned", "feedback", fmt.Sprintf("rule-%04d.md", i))
		must(os.MkdirAll(filepath.Dir(p), 0o700))
		must(os.WriteFile(p, []byte(fmt.Sprintf("---\nname: rule-%04d\ndescription: never run %s %s before %s\ntype: feedback\n---\nNever run %s %s before %s.\n",
			i, words[i%len(words)], words[(i*7)%len(words)], words[(i*13)%len(words)], words[i%len(words)], words[(i*7)%len(words)], words[(i*13)%len(words)])), 0o600))
	}
	transcript := filepath.Join(t.dir, "deadline-transcript.jsonl")
	var tb bytes.Buffer
	for i := 0; tb.Len() < 60<<20; i++ {
		fmt.Fprintf(&tb, `{"type":"user","sessionId":"dl","cwd":%q,"timestamp":"2026-11-20T10:%02d:00Z","message":{"role":"user","content":"%s"}}`+"\n", repo, i%60, strings.TrimSpace(sentence(i)))
		fmt.Fprintf(&tb, `{"type":"assistant","sessionId":"dl","cwd":%q,"timestamp":"2026-11-20T10:%02d:01Z","message":{"role":"assistant","content":[{"type":"text","text":"%s"}]}}`+"\n", repo, i%60, strings.TrimSpace(sentence(i)))
	}
	must(os.WriteFile(transcript, tb.Bytes(), 0o600))
	// The CPU starved: two busy loops a core, for the round.
	var hogs []*exec.Cmd
	for range 2 * runtime.NumCPU() {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if c.Start() == nil {
			hogs = append(hogs, c)
		}
	}
	defer func() {
		for _, c := range hogs {
			c.Process.Kill()
			c.Wait()
		}
	}()
	slowest := map[string]time.Duration{}
	run := func(hook, sid, prompt string) {
		pl := payloadOf(sid, transcript, repo, hook)
		pl.Prompt = prompt
		in := string(pl.JSON())
		c := exec.Command(filepath.Join(t.hooks, hook))
		c.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
		c.Dir = repo
		c.Stdin = strings.NewReader(in)
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		start := time.Now()
		err := c.Run()
		took := time.Since(start)
		t.checks++
		slowest[hook] = max(slowest[hook], took)
		if err != nil {
			t.fail("deadline: %s on the pathological store: %v (%s)", hook, err, strings.TrimSpace(out.String()))
		}
		if took > clientBudget {
			t.fail("deadline: %s took %v on the pathological store, past the client's %v", hook, took.Round(time.Millisecond), clientBudget)
		}
	}
	for round := range 3 {
		sid := fmt.Sprintf("dl-%d", round)
		for _, h := range claudecode.Hooks {
			run(h.Binary, sid, "why does the invoice webhook retry with backoff item42 before the deploy?")
		}
		// The person edits the big files by hand between prompts.
		f, err := os.OpenFile(filepath.Join(store, "MEMORY.md"), os.O_APPEND|os.O_WRONLY, 0)
		must(err)
		fmt.Fprintf(f, "- never run the quokka export before lunch %d\n", round)
		f.Close()
		f, err = os.OpenFile(filepath.Join(repo, ".claude", "memory", "MEMORY.md"), os.O_APPEND|os.O_WRONLY, 0)
		must(err)
		fmt.Fprintf(f, "- always run make heron-%d before make deploy\n", round)
		f.Close()
	}
	return slowest
}
