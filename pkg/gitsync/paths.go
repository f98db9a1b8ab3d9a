package gitsync

import (
	"strings"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/store"
)

// What sync carries, in one place: the rule every path from a remote's
// tree passes before sync writes it, and every path of this store passes
// before it is pushed. A remote is attacker-controlled (a shared account, a
// leaked token, a misconfigured host), so a path is taken only when it is
// one of ccmem's own files, spelled plainly:
//
//   - every part is a plain name: not empty, ".", ".." or hidden (a leading
//     "." rules out ".git" in every spelling git treats as ".git": ".GIT",
//     ".git.", ".git " and the ones with ignorable Unicode), no "\", ":" or
//     other character Windows refuses, no control character, not a Windows
//     device name or the short name of a ".git" folder ("GIT~1");
//   - it lies under a folder sync owns (the root's Markdown files and
//     config, learned/, review/, archive/, and each project's briefing,
//     config, profiles, episodes and archive);
//   - it is not derived or this machine's own (the .gitignore's list);
//   - it is a regular file (no symlink, no submodule).
//
// The settings (see localOnly) stay on each machine.
//
// The store's .gitignore and .gitattributes are ccmem's own: this
// machine's are kept, whatever the remote holds.

// localOnly tells the files each machine keeps to itself though a tree
// may hold them: the settings (config.yaml at the root and in a project's
// folder). A setting changes how ccmem behaves — what compaction is told,
// how soon sessions are archived, whether ccmem runs at all — and a remote
// carries memory, never authority: what a tree holds of them is never
// written here, and this machine's are never committed. (A tree that
// holds one, from a machine with an older ccmem, keeps it as it is, so
// that machine does not lose its own.)
func localOnly(rel string) bool {
	if rel == "config.yaml" {
		return true
	}
	parts := strings.Split(rel, "/")
	return len(parts) == 3 && parts[0] == "projects" && parts[2] == "config.yaml"
}

// maxDepth bounds how deep a synced file lies (archive/sync/projects/<key>/
// episodes/<file> is the deepest ccmem writes).
const maxDepth = 8

// ownFiles are the files at the root that ccmem rewrites on every sync.
var ownFiles = map[string]bool{".gitignore": true, ".gitattributes": true}

// carried says why sync does not carry the file rel (a slash path) of
// mode, or "" when it does.
func carried(rel, mode string) string {
	if mode != "100644" && mode != "100755" {
		switch mode {
		case "120000":
			return "a symlink"
		case "160000":
			return "a submodule"
		}
		return "not a regular file"
	}
	return carriedPath(rel)
}

// carriedPath is carried's rule for the path alone.
func carriedPath(rel string) string {
	if len(rel) > 1024 {
		return "a path over 1024 bytes"
	}
	parts := strings.Split(rel, "/")
	if len(parts) > maxDepth {
		return "nested too deep"
	}
	for _, p := range parts {
		if why := plainName(p); why != "" {
			return why
		}
	}
	if derived(parts) {
		return "derived or one machine's own (rebuilt after a sync)"
	}
	if !owned(parts) {
		return "not in a folder sync carries"
	}
	return ""
}

// plainName says why p is not a plain file or folder name, or "".
func plainName(p string) string {
	switch {
	case p == "":
		return "an empty name (an absolute path or a doubled /)"
	case p == "." || p == "..":
		return "a " + p + " in the path"
	case p[0] == '.':
		return "a hidden name (" + shortName(p) + ")"
	case len(p) > 255:
		return "a name over 255 bytes"
	case !utf8.ValidString(p):
		return "a name that is not UTF-8"
	}
	for _, r := range p {
		switch {
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return "a control character in a name"
		case strings.ContainsRune(`\:*?"<>|`, r):
			return "a character Windows refuses in a name (" + string(r) + ")"
		case ignorable(r):
			return "an invisible character in a name"
		}
	}
	if last := p[len(p)-1]; last == '.' || last == ' ' {
		return "a name ending in a dot or space"
	}
	stem := strings.ToUpper(p)
	if i := strings.IndexByte(stem, '.'); i >= 0 {
		stem = stem[:i]
	}
	switch stem {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return "a Windows device name (" + shortName(p) + ")"
	}
	if len(stem) == 4 && (strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT")) && stem[3] >= '0' && stem[3] <= '9' {
		return "a Windows device name (" + shortName(p) + ")"
	}
	if strings.HasPrefix(stem, "GIT~") {
		return "the short name of a .git folder (" + shortName(p) + ")"
	}
	return ""
}

// ignorable tells the code points HFS+ ignores in names (git's list), by
// which ".g\u200cit" is ".git" on a Mac.
func ignorable(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

func shortName(p string) string {
	if len(p) > 40 {
		return p[:40] + "…"
	}
	return p
}

// derived tells the files that are derived or one machine's own, which the
// store's .gitignore keeps out of git (the two lists agree: a test holds
// them together).
func derived(parts []string) bool {
	base := parts[len(parts)-1]
	if strings.HasSuffix(base, ".lock") || strings.Contains(base, ".tmp-") {
		return true
	}
	switch parts[0] {
	case "search", "sync", "status.json", "import.json", "provenance.json":
		return true
	case "learned":
		return len(parts) == 2 && parts[1] == ".cache.tsv"
	case "projects":
		if len(parts) == 3 && (parts[2] == "INDEX.md" || parts[2] == "project.json" || parts[2] == "anchors") {
			return true
		}
		return len(parts) >= 3 && parts[2] == "checkpoints"
	}
	return false
}

// learnedTypes are the folders of learned/.
var learnedTypes = map[string]bool{"feedback": true, "user": true, "project": true, "reference": true}

// owned tells whether parts lies in a folder sync carries.
func owned(parts []string) bool {
	n := len(parts)
	switch parts[0] {
	case "learned":
		return n == 3 && learnedTypes[parts[1]]
	case "review":
		return n == 3 && parts[1] == "feedback"
	case "archive":
		return n >= 2
	case "projects":
		if n < 3 || !store.ValidKey(parts[1]) {
			return false
		}
		switch parts[2] {
		case "episodes", "profiles", "archive":
			return n >= 4
		}
		return n == 3 // briefing.md and its versions, config.yaml, what a migration kept
	}
	// At the root: the global MEMORY.md, its topic files and the config.
	return n == 1 && (strings.HasSuffix(parts[0], ".md") || parts[0] == "config.yaml")
}
