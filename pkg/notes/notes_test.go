package notes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// Every write path redacts: the briefing, and the section consolidate
// writes into the committed CLAUDE.md, whatever the memory files held.
func TestBriefingAndConsolidateRedact(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	storetest.Mkfile(t, store.RepoMemory(repo), "## Deploy\n- publish with npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\n")
	if _, err := SetBriefing(e, p, "Deploy key: dckr_pat_2b3e36beeb386dfdaacb9b46004\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := Consolidate(context.Background(), e, p, ConsolidateOptions{Episodes: true, Learned: true}, false); err != nil {
		t.Fatal(err)
	}
	briefing, _ := os.ReadFile(e.BriefingPath(p.Key))
	claude, _ := os.ReadFile(filepath.Join(repo, "CLAUDE.md"))
	for _, secret := range []string{"2b3e36beeb38", "a1B2c3D4e5F6"} {
		if strings.Contains(string(briefing)+string(claude), secret) {
			t.Fatalf("%s reached disk:\n%s\n%s", secret, briefing, claude)
		}
	}
	if !strings.Contains(string(claude), "publish with [REDACTED:npm-token]") {
		t.Fatalf("CLAUDE.md:\n%s", claude)
	}
}

// Facts remembered at the same moment into one MEMORY.md are all kept, in
// the global file and in the repository's.
func TestRememberConcurrently(t *testing.T) {
	e := storetest.Env(t)
	_, p := storetest.Repo(t, e, "shop")
	for _, scope := range []Scope{Global, Project} {
		const n = 25
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = Remember(e, scope, p, "Facts", fmt.Sprintf("fact number %d", i))
			}()
		}
		wg.Wait()
		path, _, _ := Target(e, scope, p)
		data, _ := os.ReadFile(path)
		for i := range n {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if !strings.Contains(string(data), fmt.Sprintf("- fact number %d\n", i)) {
				t.Fatalf("%s: fact %d lost:\n%s", scope, i, data)
			}
		}
		if got := strings.Count(string(data), "## Facts"); got != 1 {
			t.Fatalf("%s: %d Facts headers:\n%s", scope, got, data)
		}
	}
}

// Forgetting while others remember and forget in the same file loses
// nothing: every fact ends exactly once in its MEMORY.md or in the archive,
// the forgotten ones in the archive, with their reason.
func TestForgetConcurrently(t *testing.T) {
	e := storetest.Env(t)
	_, p := storetest.Repo(t, e, "shop")
	for _, scope := range []Scope{Global, Project} {
		fact := func(i int) string { return fmt.Sprintf("fact %s number %03d", scope, i) }
		for i := range 20 {
			if _, err := Remember(e, scope, p, "Facts", fact(i)); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, 40)
		for i := range 20 {
			wg.Add(2)
			go func() { // forget 0–9 twice over (the second finds nothing), keep 10–19
				defer wg.Done()
				if i < 10 || i >= 15 {
					_, errs[i] = Forget(e, scope, p, fact(i%10), fmt.Sprintf("reason %d", i%10))
				}
			}()
			go func() {
				defer wg.Done()
				_, errs[20+i] = Remember(e, scope, p, "Facts", fact(20+i))
			}()
		}
		wg.Wait()
		path, _, _ := Target(e, scope, p)
		data, _ := os.ReadFile(path)
		archive, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "archive", "MEMORY.md"))
		if scope == Global {
			archive, _ = os.ReadFile(filepath.Join(e.ArchiveDir(), "MEMORY.md"))
		}
		notFound := 0
		for i, err := range errs {
			switch {
			case err == nil:
			case errors.Is(err, ErrNoFact) && (i >= 15 && i < 20 || i >= 5 && i < 10): // one of each pair
				notFound++
			default:
				t.Fatalf("%s: call %d: %v", scope, i, err)
			}
		}
		if notFound != 5 {
			t.Fatalf("%s: %d forgets found nothing, want 5 (one of each pair forgetting the same fact)", scope, notFound)
		}
		for i := range 40 {
			line := "- " + fact(i) + "\n"
			inFile, inArchive := strings.Count(string(data), line), strings.Count(string(archive), line)
			forgotten := i < 10
			if forgotten && (inFile != 0 || inArchive != 1) || !forgotten && (inFile != 1 || inArchive != 0) {
				t.Fatalf("%s: %q is %d times in the file and %d in the archive\nfile:\n%s\narchive:\n%s", scope, fact(i), inFile, inArchive, data, archive)
			}
			if forgotten && !strings.Contains(string(archive), fmt.Sprintf(": reason %d\n%s", i, line)) {
				t.Fatalf("%s: %q archived without its reason:\n%s", scope, fact(i), archive)
			}
		}
	}
}
