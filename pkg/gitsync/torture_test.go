package gitsync_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/storetest"
	"github.com/ccmem/ccmem/pkg/gitsync"
	"github.com/ccmem/ccmem/pkg/store"
)

// TestMain lets the test binary be a sync process the torture kills.
func TestMain(m *testing.M) {
	if home := os.Getenv("GITSYNC_CHILD_HOME"); home != "" {
		e, err := store.EnvFrom(func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		})
		if err == nil {
			s := &gitsync.Syncer{Env: e, Machine: os.Getenv("GITSYNC_CHILD_MACHINE"), Environ: gitEnv(home)}
			_, err = s.Sync(context.Background())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestTortureSync interleaves writes and syncs on two machines at random,
// and kills syncs with SIGKILL at random moments; afterwards, with both
// synced, each store holds every fact and every episode exactly once,
// no conflict marker anywhere, and the two agree.
func TestTortureSync(t *testing.T) {
	if testing.Short() {
		t.Skip("the sync torture takes about a minute: make test runs it, -short skips it")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("GITSYNC_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d (GITSYNC_SEED=%d repeats this run)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 1))
	remote := bareRemote(t)
	ms := []*machine{newMachine(t, "laptop"), newMachine(t, "desktop")}
	for _, m := range ms {
		m.remember("the first fact of " + m.name)
		if _, err := m.s.Init(context.Background(), remote); err != nil {
			t.Fatalf("%s: init: %v", m.name, err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	facts := []string{"the first fact of laptop", "the first fact of desktop"}
	var episodes []string
	kills, failed := 0, 0
	const steps = 80
	for i := range steps {
		m := ms[r.IntN(2)]
		switch r.IntN(6) {
		case 0:
			f := fmt.Sprintf("fact number %d is %x", i, r.Uint32())
			m.remember(f)
			facts = append(facts, f)
		case 1:
			id := fmt.Sprintf("%s-%d", m.name, i)
			m.session(id, "session "+id, time.Date(2026, 11, 1, 0, 0, i, 0, time.UTC))
			episodes = append(episodes, id)
		case 5:
			// One learned entry both machines edit: both versions are kept
			// when both changed it between syncs.
			storetest.Mkfile(t, filepath.Join(m.env.LearnedDir(), "feedback", "shared.md"),
				fmt.Sprintf("---\nname: shared\ndescription: edited on both machines\ntype: feedback\n---\nversion %d from %s\n", i, m.name))
		case 2:
			if _, err := m.s.Sync(context.Background()); err != nil {
				failed++ // a lock a killed sync's git still holds: the next one goes on
			}
		default:
			cmd := exec.Command(self, "-test.run=^$")
			cmd.Env = append(os.Environ(), "GITSYNC_CHILD_HOME="+m.env.Home, "GITSYNC_CHILD_MACHINE="+m.name)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(r.IntN(120)) * time.Millisecond)
			if r.IntN(2) == 0 {
				// A write while the sync runs, as a hook's or a person's.
				f := fmt.Sprintf("fact number %d, written during a sync, is %x", i, r.Uint32())
				m.remember(f)
				facts = append(facts, f)
			}
			cmd.Process.Kill() // SIGKILL on Unix
			if err := cmd.Wait(); err != nil && !cmd.ProcessState.Exited() {
				kills++ // killed midway, not after it finished
			}
		}
	}
	// Settle: sync each machine until both have everything.
	for round := 0; round < 6; round++ {
		for _, m := range ms {
			for try := 0; try < 20; try++ {
				if _, err := m.s.Sync(context.Background()); err == nil {
					break
				} else if try == 19 {
					t.Fatalf("%s never synced again: %v", m.name, err)
				}
				time.Sleep(250 * time.Millisecond)
			}
		}
	}
	t.Logf("%d writes and syncs, %d syncs killed midway, %d refused while a killed one's git finished", steps, kills, failed)
	if kills == 0 {
		t.Error("no sync was killed midway: the torture tested nothing")
	}
	for _, m := range ms {
		mem, _ := os.ReadFile(m.env.GlobalMemory())
		for _, f := range facts {
			if n := strings.Count(string(mem), f); n != 1 {
				t.Errorf("%s: %q appears %d times in MEMORY.md", m.name, f, n)
			}
		}
		key := m.project().Key
		for _, id := range episodes {
			found, _ := filepath.Glob(filepath.Join(m.env.EpisodesDir(key), "*-"+id+".json"))
			if len(found) != 1 {
				t.Errorf("%s: episode %s found %d times", m.name, id, len(found))
			}
		}
		noMarkers(t, m)
	}
	agree(t, ms[0], ms[1])
}
