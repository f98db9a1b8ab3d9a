// Package staleset measures how well ccmem's check of memory against the
// code (pkg/stale) marks what memory names that is gone: committed memory
// files of public repositories (CLAUDE.md, AGENTS.md) are read at one
// commit and checked against the tree of a later one, and each name they
// hold is labelled by git itself (it was in the tree when the memory was
// written, and is or is not there later). Their text never leaves this
// machine; the set commits only the repositories, the commits and short
// hashes of the names with their labels (set.tsv).
package staleset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/stale"
)

// Repo is one repository of the set at the later commit (Later) every
// earlier version of its memory files is checked against.
type Repo struct {
	Name, Later string
}

// Repos are the repositories of the set: the first 24 the code index lists
// for the path CLAUDE.md, in its order, of which a snapshot could be had
// here (14) and whose history holds a memory file written at least a week
// before the newest commit (12). Later is each snapshot's newest commit.
var Repos = []Repo{
	{"0-0Jay/simetro", "1a25ab761b7e699a5087bb670192a223c9f4b3dd"},
	{"0-1-Developer/0-1-low-level-design", "5c5674804c2e85523f0843c812d0d3f21e478a41"},
	{"0-AI-UG/cate", "5c722ebc876c55e017c1bf6c1f299ac45c2fd4c8"},
	{"0-AI-UG/zero-agent", "9263dc2bb39b6581338979793ef9c529998d550b"},
	{"0-CYBERDYNE-SYSTEMS-0/FFT_nano", "b5e1c32060b1086926cd2e83f4b938ad1afec696"},
	{"0-don/InvoiceShelf", "209a766c8c7769c2d11d50771b259afdff1d1216"},
	{"0-sayed/hena-wadeena", "75111f95a87cc141b605795898f851a794093555"},
	{"0-sayed/lyrebird", "720a4a1f755ba586315c22ab379b9f1d832efa80"},
	{"0-sayed/wallet", "82f3d518d55f2b35f0aa7f8aaf1829b6b2bd4ee2"},
	{"0001-labs/0001", "006ccba5a3013c076ac8074ba0623c4e91189033"},
	{"000Alex00/Gitea-Agent", "b63af1a40008574ba36d9e412b2aa4b2711bf5b2"},
	{"0-k/netto", "fc4fbfa3fef755d1c23ef04fd806d7868012971c"},
}

// memoryFiles are the committed memory files read, at any depth.
var memoryFiles = []string{"CLAUDE.md", "AGENTS.md"}

// perRepo bounds the earlier versions read per repository (spread over
// its history), so that one busy repository does not make the set.
const perRepo = 4

// Labels of a name, by git.
const (
	Gone  = "gone"  // in the tree when the memory was written, not later
	Kept  = "kept"  // there then and later
	Never = "never" // not in the tree when the memory was written (an example, a file to create, another repository's)
)

// Mention is one name a memory file holds at an earlier commit.
type Mention struct {
	Repo, File, Earlier string
	Name                string // the name itself: this machine only
	Hash                string // first 10 hex digits of its SHA-256
	Label               string
	Marked              bool // pkg/stale marked it
}

// Result is the set measured.
type Result struct {
	Mentions []Mention
	// Files is how many memory files were checked, Checks the time all
	// the checks took (a fresh Checker per file, as a hook makes one).
	Files int
	Check time.Duration
	// Bytes is the memory text checked.
	Bytes int
}

// broad finds what a reader takes for a name of the repository: a span in
// backticks or a bare word that looks like a path (a folder, or a file
// name with an extension), and a make, just or npm target; wider than
// pkg/stale's own patterns, so that what it misses counts against it.
var (
	backticked = regexp.MustCompile("`([^`\\s]{2,120})`")
	barePath   = regexp.MustCompile(`(?:^|[\s(\[])((?:\./)?[A-Za-z0-9_@.-]+(?:/[A-Za-z0-9_@.*-]+)+/?|[A-Za-z0-9_-]+\.(?:md|go|ts|tsx|js|jsx|py|json|ya?ml|toml|sh|rs|php|rb|java|kt|swift|css|html|sql|txt|lock|env))(?:$|[\s),.:;\]])`)
	target     = regexp.MustCompile(`\b(make|just|npm run|pnpm run|yarn run|pnpm|yarn)\s+([A-Za-z0-9_][A-Za-z0-9_:.-]*)`)
	pathish    = regexp.MustCompile(`^(?:\./)?[A-Za-z0-9_@.-]+(?:/[A-Za-z0-9_@.-]*)*$`)
)

// names are the names text holds (paths as written, targets as "make x").
func names(text string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		n = strings.TrimSuffix(strings.TrimPrefix(n, "./"), ".")
		if n == "" || seen[n] || strings.Contains(n, "://") || strings.HasPrefix(n, "~") || strings.HasPrefix(n, "/") || strings.ContainsAny(n, "*{}<>$") {
			return
		}
		seen[n] = true
		out = append(out, n)
	}
	for _, m := range target.FindAllStringSubmatch(text, -1) {
		tool := m[1]
		if tool == "pnpm" || tool == "yarn" {
			tool += " run"
		}
		add(tool + " " + m[2])
	}
	for _, m := range backticked.FindAllStringSubmatch(text, -1) {
		s := m[1]
		if pathish.MatchString(s) && (strings.Contains(strings.TrimSuffix(s, "/"), "/") || path.Ext(s) != "" && !strings.HasPrefix(path.Ext(s), ".0")) {
			add(s)
		}
	}
	for _, m := range barePath.FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
	return out
}

// tree is one commit's files and build files.
type tree struct {
	files map[string]bool // paths, and every folder (with a trailing slash)
	make  map[string]bool
	npm   map[string]bool
	just  map[string]bool
	has   map[string]bool // "make", "npm", "just": the file is there
}

func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func readTree(gitDir, commit string) (*tree, error) {
	out, err := git(gitDir, "ls-tree", "-r", "--name-only", "-z", commit)
	if err != nil {
		return nil, err
	}
	t := &tree{files: map[string]bool{}, make: map[string]bool{}, npm: map[string]bool{}, just: map[string]bool{}, has: map[string]bool{}}
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		t.files[f] = true
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			t.files[d+"/"] = true
		}
	}
	if data, err := git(gitDir, "show", commit+":Makefile"); err == nil {
		t.has["make"] = true
		for _, l := range strings.Split(string(data), "\n") {
			if head, _, ok := strings.Cut(l, ":"); ok && l != "" && l[0] != '\t' && l[0] != '#' && !strings.Contains(head, "=") {
				for _, n := range strings.Fields(head) {
					t.make[n] = true
				}
			}
		}
	}
	if data, err := git(gitDir, "show", commit+":justfile"); err == nil {
		t.has["just"] = true
		for _, l := range strings.Split(string(data), "\n") {
			if head, _, ok := strings.Cut(l, ":"); ok && l != "" && l[0] != ' ' && l[0] != '#' {
				if f := strings.Fields(head); len(f) > 0 {
					t.just[strings.TrimPrefix(f[0], "@")] = true
				}
			}
		}
	}
	if data, err := git(gitDir, "show", commit+":package.json"); err == nil {
		var pkg struct {
			Scripts map[string]any `json:"scripts"`
		}
		if json.Unmarshal(data, &pkg) == nil {
			t.has["npm"] = true
			for k := range pkg.Scripts {
				t.npm[k] = true
			}
		}
	}
	return t, nil
}

// holds tells whether the tree has the name, written in a memory file in
// folder dir: a path from the root or from dir (a folder with or without
// its slash), or a target of the root's build files; known is false for a
// target whose build file is not there.
func (t *tree) holds(name, dir string) (has, known bool) {
	if tool, tgt, ok := strings.Cut(name, " "); ok && (tool == "make" || tool == "just" || tool == "npm" || tool == "pnpm" || tool == "yarn") {
		tgt = strings.TrimPrefix(tgt, "run ")
		switch tool {
		case "make":
			return t.make[tgt], t.has["make"]
		case "just":
			return t.just[tgt], t.has["just"]
		default:
			return t.npm[tgt], t.has["npm"]
		}
	}
	for _, base := range []string{"", dir} {
		p := path.Join(base, strings.TrimSuffix(name, "/"))
		if t.files[p] || t.files[p+"/"] {
			return true, true
		}
	}
	return false, true
}

// lay writes the tree's files (empty) and build files into root, for a
// Checker to look at as a working tree.
func lay(gitDir, commit, root string, t *tree) error {
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	for f := range t.files {
		if strings.HasSuffix(f, "/") {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		var data []byte
		if f == "Makefile" || f == "justfile" || f == "package.json" {
			data, _ = git(gitDir, "show", commit+":"+f)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// Snapshot is where a repository's snapshot is under mirror.
func Snapshot(mirror, repo string) string {
	owner, name, _ := strings.Cut(repo, "/")
	return filepath.Join(mirror, owner+"+"+name, "repo")
}

// Measure reads every repository's memory files at up to perRepo earlier
// commits (a week or more before Later) and checks them, each against
// Later's tree laid out under work.
func Measure(mirror, work string) (Result, error) {
	var res Result
	for _, r := range Repos {
		g := Snapshot(mirror, r.Name)
		later, err := readTree(g, r.Later)
		if err != nil {
			return res, fmt.Errorf("%s: %v (hint: fetch the repository's snapshot into %s)", r.Name, err, g)
		}
		root := filepath.Join(work, strings.ReplaceAll(r.Name, "/", "+"))
		if err := lay(g, r.Later, root, later); err != nil {
			return res, err
		}
		laterTime, err := git(g, "log", "-1", "--format=%ct", r.Later)
		if err != nil {
			return res, err
		}
		var lt int64
		fmt.Sscan(string(laterTime), &lt)
		args := []string{"log", "--format=%H %ct", "--before=" + fmt.Sprint(lt-7*24*3600), r.Later, "--"}
		for _, m := range memoryFiles {
			args = append(args, m, "*/"+m)
		}
		out, err := git(g, args...)
		if err != nil {
			return res, err
		}
		var commits []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if f := strings.Fields(l); len(f) == 2 {
				commits = append(commits, f[0])
			}
		}
		commits = spread(commits, perRepo)
		seen := map[string]bool{}
		for _, c := range commits {
			earlier, err := readTree(g, c)
			if err != nil {
				return res, err
			}
			var files []string
			for f := range earlier.files {
				if b := path.Base(f); !strings.HasSuffix(f, "/") && (b == "CLAUDE.md" || b == "AGENTS.md") && !strings.Contains(f, "node_modules/") {
					files = append(files, f)
				}
			}
			sort.Strings(files)
			for _, f := range files {
				data, err := git(g, "show", c+":"+f)
				if err != nil {
					continue
				}
				text := string(data)
				dir := path.Dir(f)
				if dir == "." {
					dir = ""
				}
				// What pkg/stale marks, as a hook would: a fresh Checker
				// over the memory file's lines.
				checker := stale.New(filepath.Join(root, filepath.FromSlash(dir)))
				start := time.Now()
				gone := map[string]bool{}
				for _, line := range strings.Split(text, "\n") {
					for _, n := range checker.Gone(line) {
						gone[strings.TrimPrefix(n, "./")] = true
					}
				}
				res.Check += time.Since(start)
				res.Files++
				res.Bytes += len(text)
				all := names(text)
				for n := range gone {
					if !slices.Contains(all, n) {
						all = append(all, n) // marked, though the wide patterns missed it
					}
				}
				for _, n := range all {
					key := f + "\x00" + n
					if seen[key] {
						continue // an older version said it too
					}
					seen[key] = true
					then, known := earlier.holds(n, dir)
					now, _ := later.holds(n, dir)
					label := Never
					switch {
					case !known:
					case then && now:
						label = Kept
					case then:
						label = Gone
					}
					sum := sha256.Sum256([]byte(n))
					res.Mentions = append(res.Mentions, Mention{Repo: r.Name, File: f, Earlier: c, Name: n, Hash: hex.EncodeToString(sum[:])[:10], Label: label, Marked: gone[n]})
				}
			}
		}
	}
	return res, nil
}

// spread takes n of list, spread evenly from its newest to its oldest.
func spread(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	var out []string
	for i := range n {
		out = append(out, list[i*(len(list)-1)/(n-1)])
	}
	return out
}

// Figures are the marks' precision and recall.
type Figures struct {
	Mentions, Gone, Kept, Never         int
	MarkedGone, MarkedKept, MarkedNever int
}

// Count sums the mentions' labels and marks.
func (r Result) Count() Figures {
	var f Figures
	for _, m := range r.Mentions {
		f.Mentions++
		switch m.Label {
		case Gone:
			f.Gone++
			if m.Marked {
				f.MarkedGone++
			}
		case Kept:
			f.Kept++
			if m.Marked {
				f.MarkedKept++
			}
		default:
			f.Never++
			if m.Marked {
				f.MarkedNever++
			}
		}
	}
	return f
}

// SetFile is the committed set, from the module's root.
const SetFile = "internal/dev/staleset/set.tsv"

// TSV is the set as committed: a line per name, never the name itself.
func (r Result) TSV() []byte {
	var b bytes.Buffer
	b.WriteString("# repo\tmemory file\tearlier commit\tname hash\tlabel (git)\tmarked\n")
	for _, m := range r.Mentions {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%v\n", m.Repo, m.File, m.Earlier[:12], m.Hash, m.Label, m.Marked)
	}
	return b.Bytes()
}

// Compare says how r differs from the committed set at file ("" when it
// does not).
func Compare(file string, r Result) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	if bytes.Equal(data, r.TSV()) {
		return ""
	}
	old := strings.Split(string(data), "\n")
	now := strings.Split(string(r.TSV()), "\n")
	for i := range min(len(old), len(now)) {
		if old[i] != now[i] {
			return fmt.Sprintf("line %d: %q, now %q", i+1, old[i], now[i])
		}
	}
	return fmt.Sprintf("%d lines, now %d", len(old), len(now))
}

// Print writes the figures.
func (r Result) Print(w io.Writer) {
	f := r.Count()
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	fmt.Fprintf(w, "staleness set: %d repositories, %d memory files (CLAUDE.md, AGENTS.md) at earlier commits, each checked against its repository's newest commit\n", len(Repos), r.Files)
	fmt.Fprintf(w, "  names they hold: %d; by git: %d gone since (in the tree then, not now), %d still there, %d never in the tree (examples, files to create, other repositories')\n",
		f.Mentions, f.Gone, f.Kept, f.Never)
	fmt.Fprintf(w, "  marked: %d of the gone (recall %.3f), %d of those still there (precision %.3f), %d of the never-there\n",
		f.MarkedGone, ratio(f.MarkedGone, f.Gone), f.MarkedKept, ratio(f.MarkedGone, f.MarkedGone+f.MarkedKept), f.MarkedNever)
	if r.Files > 0 {
		fmt.Fprintf(w, "  cost: %.0f µs a memory file (%.1f KB on average), a fresh check per file as a hook makes one, at most 64 names looked up\n",
			float64(r.Check.Microseconds())/float64(r.Files), float64(r.Bytes)/float64(r.Files)/1024)
	}
}
