package store

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The layout of the store ($CCMEM_HOME, private) and of a repository's
// committed memory folder, in one place. Folders are created on first write.

// GlobalMemory is the global index, injected in every project.
func (e Env) GlobalMemory() string { return filepath.Join(e.Store, "MEMORY.md") }

// GlobalConfig is the user's config file.
func (e Env) GlobalConfig() string { return filepath.Join(e.Store, "config.yaml") }

// LearnedDir holds the canonical entries curated from the silos.
func (e Env) LearnedDir() string { return filepath.Join(e.Store, "learned") }

// ReviewDir holds feedback awaiting a person's decision.
func (e Env) ReviewDir() string { return filepath.Join(e.Store, "review", "feedback") }

// ArchiveDir holds what the store keeps but never injects.
func (e Env) ArchiveDir() string { return filepath.Join(e.Store, "archive") }

// StatusPath is the cache behind the status line and the nudge.
func (e Env) StatusPath() string { return filepath.Join(e.Store, "status.json") }

// ProjectsDir holds one folder per project.
func (e Env) ProjectsDir() string { return filepath.Join(e.Store, "projects") }

// ProjectDir is the store folder of one project key.
func (e Env) ProjectDir(key string) string { return filepath.Join(e.ProjectsDir(), key) }

// ProjectFile is project.json, a project's identity.
func (e Env) ProjectFile(key string) string { return filepath.Join(e.ProjectDir(key), "project.json") }

// KnownAnchorsPath is the anchors this machine saw for the remote key
// key (see AddAnchors): this machine's own, never synced.
func (e Env) KnownAnchorsPath(key string) string {
	return filepath.Join(e.ProjectDir(key), "anchors")
}

// AnchorPath is repository.json, which says what repository a remote
// key's memory belongs to (synced with the project's folder).
func (e Env) AnchorPath(key string) string {
	return filepath.Join(e.ProjectDir(key), "repository.json")
}

// BriefingPath is a project's curated briefing.
func (e Env) BriefingPath(key string) string { return filepath.Join(e.ProjectDir(key), "briefing.md") }

// ClaudeJSON is the client's own state file, which holds the user-scope
// MCP servers: ~/.claude.json, or .claude.json in $CLAUDE_CONFIG_DIR.
func (e Env) ClaudeJSON() string {
	if e.ConfigDirSet {
		return filepath.Join(e.ClaudeDir, ".claude.json")
	}
	return filepath.Join(e.Home, ".claude.json")
}

// PersonalConfig is the user's own config for one project, kept in the
// store (never in the repository): it overrides the repository's.
func (e Env) PersonalConfig(key string) string {
	return filepath.Join(e.ProjectDir(key), "config.yaml")
}

// ProfilesDir holds a project's skill profiles: what to remember when a
// skill runs in the project.
func (e Env) ProfilesDir(key string) string { return filepath.Join(e.ProjectDir(key), "profiles") }

// ProfilePath is the profile of one skill (its name as a safe file name).
func (e Env) ProfilePath(key, skill string) string {
	return filepath.Join(e.ProfilesDir(key), SafeFileName(skill)+".md")
}

// IndexPath is a project's episode menu.
func (e Env) IndexPath(key string) string { return filepath.Join(e.ProjectDir(key), "INDEX.md") }

// CheckpointsDir holds the live sessions of a project.
func (e Env) CheckpointsDir(key string) string {
	return filepath.Join(e.ProjectDir(key), "checkpoints")
}

// CheckpointPath is where a live session's record is kept.
func (e Env) CheckpointPath(key, sid string) string {
	return filepath.Join(e.CheckpointsDir(key), sid+".json")
}

// EpisodesDir holds the finished sessions of a project.
func (e Env) EpisodesDir(key string) string { return filepath.Join(e.ProjectDir(key), "episodes") }

// EpisodeArchiveDir holds a project's episodes past retention.
func (e Env) EpisodeArchiveDir(key string) string { return filepath.Join(e.ProjectDir(key), "archive") }

// SilosDir is where Claude Code keeps its per-project folders.
func (e Env) SilosDir() string { return filepath.Join(e.ClaudeDir, "projects") }

// Settings is the client's user settings file.
func (e Env) Settings() string { return filepath.Join(e.ClaudeDir, "settings.json") }

// RepoMemoryDir is the committed, team-shared memory folder of a project.
func RepoMemoryDir(root string) string { return filepath.Join(root, ".claude", "memory") }

// RepoMemory is a repository's MEMORY.md.
func RepoMemory(root string) string { return filepath.Join(RepoMemoryDir(root), "MEMORY.md") }

// RepoConfig is a repository's committed config file.
func RepoConfig(root string) string { return filepath.Join(RepoMemoryDir(root), "config.yaml") }

// MemoryRef names one memory: a file, or one line of it (line > 0) for a
// line of a MEMORY.md or a briefing. What a session was shown, and what
// search finds, are compared by it.
func MemoryRef(path string, line int) string {
	if line > 0 {
		return path + "#" + strconv.Itoa(line)
	}
	return path
}

// ParseRef is the path and the line (or turn) of a MemoryRef (0 for none).
func ParseRef(ref string) (path string, line int) {
	i := strings.LastIndexByte(ref, '#')
	if i < 0 {
		return ref, 0
	}
	n, err := strconv.Atoi(ref[i+1:])
	if err != nil || n <= 0 {
		return ref, 0
	}
	return ref[:i], n
}

// RefKeyLen is the size of a RefKey.
const RefKeyLen = 8

// RefKey is a short, fixed-size key of a memory ref: what a session's
// record keeps of the memories it was shown, and what the search index
// keeps of each memory, so the two are compared without either's text.
func RefKey(ref string) [RefKeyLen]byte {
	sum := sha256.Sum256([]byte(ref))
	return [RefKeyLen]byte(sum[:RefKeyLen])
}

// MakePrivate makes the store's own folder private (0700) when it exists
// and others may read or enter it: a store made by hand, or by an older
// tool, with a loose mode. Only the folder itself is changed (everything
// ccmem writes inside it is private already; `ccmem doctor --fix` mends
// the rest). It is one stat when the folder is as it should be.
func (e Env) MakePrivate() error {
	if !modesMatter {
		return nil
	}
	fi, err := os.Lstat(e.Store)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	return os.Chmod(e.Store, fi.Mode().Perm()&^0o077)
}
