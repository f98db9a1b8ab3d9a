package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/store/storetest"
	"github.com/ccmem/ccmem/scripts"
)

// exactRule is an allowed-tools rule that pre-approves one exact ccmem
// command: no prefix (":*"), no wildcard, no argument but a subcommand.
var exactRule = regexp.MustCompile(`^Bash\(ccmem(?: [a-z]+)*\)$`)

// derived are the store's files a read may refresh: caches and indexes
// rebuilt from the memory they index, and what the person has looked at;
// none carries authority.
var derived = regexp.MustCompile(`(^|/)(status\.json|\.cache\.tsv|\.seen|guard\.idx|INDEX\.md|import\.json)$|^search/|(^|/)\.lock$|^\.provenance`)

// TestSlashCommandsPreApproveOnlyReadsHere (issue 47, finding 5): a slash
// command pre-approves, in allowed-tools, only exact commands that read
// the current project — a prefix pre-approves every flag that can follow
// it (`--reject x --accept y`, `show --cwd OTHER`, `briefing --cwd OTHER
// --set F` ran unasked with the real client) — and each one it
// pre-approves, run in a store with memory of every kind, changes nothing
// but caches: no memory, no ledger, nothing under the person's name.
func TestSlashCommandsPreApproveOnlyReadsHere(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	storetest.Mkfile(t, e.GlobalMemory(), "## Rules\n- Never run npm install\n- a line nobody confirmed\n")
	if err := provenance.Attest(e, "cli", e.GlobalMemory(), "- Never run npm install"); err != nil {
		t.Fatal(err)
	}
	storetest.Mkfile(t, filepath.Join(e.ReviewDir(), "terse.md"), "---\nname: terse\ndescription: answer briefly\ntype: feedback\nsource_cwd: "+repo+"\n---\nAnswer briefly.\n")
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "user", "role.md"), "---\nname: role\ndescription: Go engineer\ntype: user\n---\nbody\n")
	storetest.Mkfile(t, e.BriefingPath(p.Key), "The shop.\n")
	storetest.Mkfile(t, filepath.Join(repo, ".claude", "memory", "MEMORY.md"), "- the build uses make\n")
	t.Chdir(repo)

	var rules []string
	for name, file := range map[string][]byte{"learn": scripts.LearnCommand, "remember": scripts.RememberCommand, "ccmem": scripts.CcmemCommand, "friction": scripts.FrictionCommand, "forget": scripts.ForgetCommand} {
		front, _, _ := strings.Cut(strings.TrimPrefix(string(file), "---\n"), "\n---\n")
		for _, l := range strings.Split(front, "\n") {
			v, ok := strings.CutPrefix(l, "allowed-tools:")
			if !ok {
				continue
			}
			for _, r := range strings.Split(v, ",") {
				r = strings.TrimSpace(r)
				if !exactRule.MatchString(r) {
					t.Errorf("/%s pre-approves %q: only exact ccmem commands without arguments", name, r)
					continue
				}
				rules = append(rules, r)
			}
		}
	}
	before := snapshot(t, e.Store, repo)
	for _, r := range rules {
		args := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(r, "Bash(ccmem"), ")"))
		var out, errb bytes.Buffer
		code := Main(hookio.Process{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string {
				if k == "HOME" {
					return e.Home
				}
				return ""
			}})
		if code != 0 {
			t.Errorf("ccmem %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		after := snapshot(t, e.Store, repo)
		for path, data := range after {
			if old, ok := before[path]; (!ok || !bytes.Equal(old, data)) && !derived.MatchString(path) {
				t.Errorf("ccmem %s (pre-approved) wrote %s", strings.Join(args, " "), path)
			}
		}
		for path := range before {
			if _, ok := after[path]; !ok && !derived.MatchString(path) {
				t.Errorf("ccmem %s (pre-approved) removed %s", strings.Join(args, " "), path)
			}
		}
		before = after
	}
	if len(rules) == 0 {
		t.Fatal("no pre-approved command found: the test reads nothing")
	}
}

// snapshot is every file under the roots, by path relative to its root.
func snapshot(t *testing.T, roots ...string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for i, root := range roots {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			if i > 0 {
				rel = "repo:" + rel
			}
			out[filepath.ToSlash(rel)] = data
			return nil
		})
	}
	return out
}
