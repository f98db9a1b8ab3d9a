// Package stale checks what memory names against the working tree before
// it is shown: a path, a make or just target, an npm script that the
// project no longer has is marked, so that a session is not sent after a
// file deleted last month. It reads only the names (a stat per path, the
// project's Makefile, justfile and package.json once each), within a
// bound, and calls no model.
package stale

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/lazyregexp"
	"github.com/ccmem/ccmem/pkg/store"
)

// maxChecks bounds the names one Checker looks up (a hook's budget): past
// it, nothing more is marked.
const maxChecks = 64

// Checker checks names against the working tree of one project.
type Checker struct {
	root   string
	checks int
	seen   map[string]bool // name -> exists
	// The project's targets and scripts, read once (nil: not read yet;
	// an empty map with ok false: the file is not there, nothing known).
	make, just, npm     map[string]bool
	hasMake, hasJust    bool
	hasNPM, readTargets bool
}

// New is a Checker for the project rooted at root ("" checks nothing).
func New(root string) *Checker { return &Checker{root: root, seen: map[string]bool{}} }

var (
	// pathLike is a relative path with a folder and a file name with an
	// extension (web/old.ts, internal/payments/webhook.go, docs/a-b.md).
	pathLike = lazyregexp.New(`(?:^|[\s` + "`" + `'"(\[])((?:\.{1,2}/)?[A-Za-z0-9_@.-]+(?:/[A-Za-z0-9_@.-]+)+\.[A-Za-z0-9]{1,8})(?:$|[\s` + "`" + `'"),.:;\]])`)
	// targetLike is a target or script a command runs.
	targetLike = lazyregexp.New(`\b(make|just|npm run|pnpm run|yarn run)\s+([A-Za-z0-9_][A-Za-z0-9_:.-]*)`)
)

// Gone is what text names that the working tree does not have, in order:
// "web/old.ts", "make deploy".
func (c *Checker) Gone(text string) []string {
	if c == nil || c.root == "" {
		return nil
	}
	var out []string
	for _, m := range pathLike.FindAllStringSubmatch(text, 8) {
		p := m[1]
		if strings.Contains(p, "://") || strings.HasPrefix(p, "~") {
			continue
		}
		if !c.exists(p) {
			out = append(out, p)
		}
	}
	for _, m := range targetLike.FindAllStringSubmatch(text, 8) {
		if !c.hasTarget(m[1], m[2]) {
			out = append(out, m[1]+" "+m[2])
		}
	}
	return out
}

// Mark is line with a note of what it names that is gone ("" when
// nothing is, or nothing could be told).
func (c *Checker) Mark(line string) string {
	gone := c.Gone(line)
	if len(gone) == 0 {
		return line
	}
	return line + " (not in the working tree now: " + strings.Join(gone, ", ") + "; check before relying on it)"
}

// ChangedSince counts, of the files (relative to the project's root) a
// session changed, those changed again since it ended, and how many of
// them could be told (within the Checker's bound): a recalled session
// whose files moved on may describe code that is no longer so.
func (c *Checker) ChangedSince(files []string, since time.Time) (changed, of int) {
	if c == nil || c.root == "" || since.IsZero() {
		return 0, 0
	}
	for _, rel := range files {
		if c.checks >= maxChecks {
			break
		}
		c.checks++
		p := filepath.Join(c.root, filepath.FromSlash(rel))
		if filepath.IsAbs(rel) || !store.Within(c.root, p) {
			continue
		}
		of++
		fi, err := os.Lstat(p)
		if err != nil || fi.ModTime().After(since) {
			changed++ // changed since, or gone
		}
	}
	return changed, of
}

// exists tells whether the project has the file at rel (a name it cannot
// tell about counts as there).
func (c *Checker) exists(rel string) bool {
	if ok, known := c.seen[rel]; known {
		return ok
	}
	if c.checks >= maxChecks {
		return true
	}
	c.checks++
	p := filepath.Join(c.root, filepath.FromSlash(rel))
	if !store.Within(c.root, p) {
		c.seen[rel] = true
		return true
	}
	_, err := os.Lstat(p)
	ok := err == nil || !os.IsNotExist(err)
	c.seen[rel] = ok
	return ok
}

// hasTarget tells whether the project has the make or just target or the
// npm script (true when it has no such file to tell by).
func (c *Checker) hasTarget(tool, name string) bool {
	c.readTargetFiles()
	switch tool {
	case "make":
		return !c.hasMake || c.make[name] || strings.ContainsAny(name, "=.") || strings.HasPrefix(name, "-")
	case "just":
		return !c.hasJust || c.just[name]
	default:
		return !c.hasNPM || c.npm[name]
	}
}

// maxBuildFile bounds the build files read.
const maxBuildFile = 512 << 10

func (c *Checker) readTargetFiles() {
	if c.readTargets {
		return
	}
	c.readTargets = true
	c.make, c.just, c.npm = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if data, err := store.ReadFileIn(c.root, filepath.Join(c.root, name), maxBuildFile); err == nil {
			c.hasMake = true
			rules(string(data), c.make)
		}
	}
	for _, name := range []string{"justfile", "Justfile", ".justfile"} {
		if data, err := store.ReadFileIn(c.root, filepath.Join(c.root, name), maxBuildFile); err == nil {
			c.hasJust = true
			rules(string(data), c.just)
		}
	}
	if data, err := store.ReadFileIn(c.root, filepath.Join(c.root, "package.json"), maxBuildFile); err == nil {
		var pkg struct {
			Scripts map[string]any `json:"scripts"`
		}
		if json.Unmarshal(data, &pkg) == nil {
			c.hasNPM = true
			for k := range pkg.Scripts {
				c.npm[k] = true
			}
		}
	}
	// A Makefile that includes others may define targets elsewhere: it
	// tells nothing for sure.
	if c.hasMake && c.make["include"] {
		c.hasMake = false
	}
}

// rules adds the names a Makefile or a justfile defines ("name:" at a
// line's start, several names before one colon, "include" when it
// includes another file).
func rules(text string, into map[string]bool) {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "include ") || strings.HasPrefix(l, "-include ") || strings.HasPrefix(l, "import ") {
			into["include"] = true
			continue
		}
		if l == "" || l[0] == '\t' || l[0] == ' ' || l[0] == '#' {
			continue
		}
		head, _, ok := strings.Cut(l, ":")
		if !ok || strings.Contains(head, "=") {
			continue
		}
		for _, name := range strings.Fields(head) {
			into[strings.TrimPrefix(name, "@")] = true
		}
	}
}
