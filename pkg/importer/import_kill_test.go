package importer

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/transcript/transcripttest"
)

// TestMain lets the test binary be an import the kill test stops with
// SIGKILL: IMPORT_CHILD_HOME names the HOME to import into.
func TestMain(m *testing.M) {
	if home := os.Getenv("IMPORT_CHILD_HOME"); home != "" {
		e, err := store.EnvFrom(func(k string) string {
			switch k {
			case "HOME":
				return home
			case "CCMEM_NOW":
				return os.Getenv("CCMEM_NOW")
			}
			return ""
		})
		if err == nil {
			_, err = Import(context.Background(), e, ImportOptions{})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestImportSurvivesKills: an import killed with SIGKILL at random
// moments, again and again, then run to its end, leaves the store an
// uninterrupted import leaves: the same episodes and digests, the same
// INDEX.md lines, the same automated runs, and no temporary file that
// the tidying of later runs does not recognise.
func TestImportSurvivesKills(t *testing.T) {
	if testing.Short() {
		t.Skip("kills real imports for a few seconds: make test runs it, -short skips it")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	child := func(w *importWorld) *exec.Cmd {
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), "IMPORT_CHILD_HOME="+w.e.Home, "CCMEM_NOW="+w.now.Format(time.RFC3339))
		return cmd
	}

	whole := newBulkImportWorld(t)
	began := time.Now()
	if out, err := child(whole).CombinedOutput(); err != nil {
		t.Fatalf("an uninterrupted import: %v\n%s", err, out)
	}
	span := time.Since(began)

	w := newBulkImportWorld(t)
	kills := 0
	for round := 0; ; round++ {
		cmd := child(w)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
		if round < 12 {
			select {
			case err = <-exited:
			case <-time.After(time.Duration(r.Int64N(int64(span / 2)))):
				cmd.Process.Kill()
				<-exited
				kills++
				continue
			}
		} else {
			err = <-exited
		}
		if err != nil {
			t.Fatalf("round %d: the import failed: %v", round, err)
		}
		break
	}
	t.Logf("%d imports killed midway (a whole import takes %v)", kills, span.Round(time.Millisecond))
	if kills == 0 {
		t.Fatal("no import was killed midway: the kills prove nothing")
	}

	// A kill mid-write leaves a temporary file, which later runs remove
	// once it is older than store.LeftoverAge; here, at once.
	left := 0
	filepath.WalkDir(w.e.Store, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			left += len(store.CleanLeftovers(p, 0, time.Now().Add(time.Hour)))
		}
		return nil
	})
	t.Logf("%d temporary files of interrupted writes tidied", left)

	got, want := storeState(t, w), storeState(t, whole)
	if only, missing := setDiff(got, want), setDiff(want, got); len(only)+len(missing) > 0 {
		t.Fatalf("after %d kills the store differs from an uninterrupted import's:\nonly after the kills:\n%s\nonly in the uninterrupted import:\n%s",
			kills, strings.Join(only, "\n"), strings.Join(missing, "\n"))
	}
}

// newBulkImportWorld is newImportWorld with sixty more finished sessions
// of several turns in the plain folder, so a kill lands mid-import.
func newBulkImportWorld(t *testing.T) *importWorld {
	w := newImportWorld(t)
	silo := filepath.Join(w.e.SilosDir(), store.Slug(w.note))
	old := w.now.Add(-48 * time.Hour)
	for i := range 60 {
		sid := fmt.Sprintf("bulk-%02d", i)
		x := transcripttest.New(sid, w.note)
		x.T = w.now.Add(-96*time.Hour + time.Duration(i)*time.Minute)
		for turn := range 6 {
			x.Prompt(fmt.Sprintf("turn %d of session %d: rewrite the paragraph about the spring catalogue, keep the prices", turn, i)).
				Call("Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(w.note, "todo.md")), strings.Repeat("catalogue line\n", 40), false).
				Say(fmt.Sprintf("Rewritten (version %d of %d); prices kept.", turn, i))
		}
		path := filepath.Join(silo, sid+".jsonl")
		if err := os.WriteFile(path, x.Text(), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, old, old)
	}
	return w
}

// storeState lists what an import leaves: each file of the store (its
// hash for episodes and digests) and each INDEX.md line, with the world's
// own folder written BASE so two worlds compare, sorted.
func storeState(t *testing.T, w *importWorld) []string {
	t.Helper()
	base := filepath.Dir(w.shop)
	norm := strings.NewReplacer(w.e.Home, "HOME", base, "BASE", store.Slug(base), "BASE").Replace
	var out []string
	for path := range tree(t, w.e.Store) {
		rel, _ := filepath.Rel(w.e.Store, path)
		rel = norm(filepath.ToSlash(rel))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(rel, "/INDEX.md"):
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				out = append(out, rel+": "+norm(line))
			}
		case strings.Contains(rel, "/episodes/"):
			sum := sha256.Sum256([]byte(inode.ReplaceAllString(norm(string(data)), "")))
			out = append(out, fmt.Sprintf("%s %x", rel, sum[:6]))
		default:
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// inode is what of an episode differs between worlds: its transcript's
// inode, and the hash of a tool call (which names a file of the world).
var inode = regexp.MustCompile(`"(inode|last_call)": \d+`)

// setDiff is what of a is not in b.
func setDiff(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}
