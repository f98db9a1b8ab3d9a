//go:build unix

package hookio_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/guard"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
)

// TestHoldUnderStarvation (issue 47, finding 7): with the CPU starved
// (sixteen hogs per core, a load average near 30 on two cores), the pretooluse hook is run as the client runs it
// — a process, killed at the client's 5 s — on the first forbidden call of
// many sessions. Whatever the timing, the hold and its record agree: a
// call held has its hold recorded (it is not held again), and a hook that
// finished without holding spent nothing (the session's next such call is
// held). Timing decides nothing here: each run is judged by what it did.
func TestHoldUnderStarvation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hooks beside CPU hogs for about a minute: make test runs it, -short skips it")
	}
	w := newFaultWorld(t)
	rule := filepath.Join(w.env.LearnedDir(), "feedback", "payments.md")
	w.mkfile(rule, "---\nname: payments\ndescription: Never run go test directly; run make test-payments\ntype: feedback\n---\n", 0o600)
	if err := provenance.AttestEntry(w.env, "cli", rule); err != nil {
		t.Fatal(err)
	}
	p, err := store.ResolveProject(w.env, w.repo)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := guard.Load(w.env, &p)
	if err != nil {
		t.Fatal(err)
	}
	forbidding := idx.Forbidding("go test ./...")
	if len(forbidding) != 1 || !forbidding[0].Holds() {
		t.Fatalf("the rule does not hold go test: %+v", forbidding)
	}
	ref := forbidding[0].Ref()
	hogs := 16 * runtime.NumCPU()
	for range hogs {
		cmd := exec.Command(w.bin, "-test.run=^$")
		cmd.Env = append(os.Environ(), "CCMEM_TEST_HOOK=spin")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	run := func(sid string) (held, finished bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, w.bin)
		cmd.Env = append(os.Environ(), "CCMEM_TEST_HOOK=pretooluse", "HOME="+w.home, "CCMEM_HOME=")
		cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."}}`, sid, w.repo))
		out, err := cmd.Output()
		if err != nil && ctx.Err() == nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("%s: the hook failed: %v\n%s%s", sid, err, out, stderr)
		}
		return strings.Contains(string(out), `"permissionDecision":"deny"`), err == nil
	}
	// Twice: with the default deadline, and with the shortest one (100 ms),
	// where a starved hook often cannot decide in time.
	for _, deadline := range []string{"", "100ms"} {
		if deadline != "" {
			w.mkfile(w.env.GlobalConfig(), "deadline: "+deadline+"\n", 0o600)
		}
		killed, held, undecided := 0, 0, 0
		for i := range 24 {
			sid := fmt.Sprintf("starved-%s-%02d", deadline, i)
			h, finished := run(sid)
			st, err := session.ReadPrompted(w.env, p, sid)
			if err != nil {
				t.Fatal(err)
			}
			spent := st.WasGuarded(ref)
			switch {
			case h && !spent:
				t.Errorf("%s: held without its hold recorded: the next call would be held again", sid)
			case finished && spent && !h:
				t.Errorf("%s: the hold was spent on a call the hook let run", sid)
			case !finished:
				killed++
			case h:
				held++
			default:
				undecided++
			}
			if !spent {
				// Nothing spent: the next such call is held, if decided.
				if h2, finished2 := run(sid); finished2 && !h2 {
					if st2, _ := session.ReadPrompted(w.env, p, sid); st2.WasGuarded(ref) {
						t.Errorf("%s: the second call's hold was spent, not given", sid)
					}
				}
			}
		}
		t.Logf("deadline %q, %d hogs on %d cores: %d held, %d left undecided (nothing spent), %d killed at the client's 5 s", deadline, hogs, runtime.NumCPU(), held, undecided, killed)
	}
}
