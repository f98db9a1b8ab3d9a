// Package profiles owns skill profiles: a short note, per project, of how
// a skill is used there (projects/KEY/profiles/SKILL.md), written by
// `ccmem profile` and given to a session when the skill runs. One place
// knows where a profile lives, how it is written and how much of it a
// session is given.
package profiles

import (
	"os"
	"strings"

	"github.com/ccmem/ccmem/pkg/redact"
	"github.com/ccmem/ccmem/pkg/store"
)

// MaxLines is how much of a profile a session is given.
const MaxLines = 30

// Given is the head of a profile a session is given (at most MaxLines,
// 8 KB, 500 characters a line), and where it is; no lines when there is
// none.
func Given(e store.Env, key, skill string) (lines []string, path string) {
	path = e.ProfilePath(key, skill)
	h, err := store.ReadHeadIn(e.ProjectDir(key), path, store.Limits{Lines: MaxLines, Chars: 8 << 10, LineChars: 500})
	if err != nil {
		return nil, path
	}
	return h.Lines, path
}

// Exists tells whether the project has a profile of the skill.
func Exists(e store.Env, key, skill string) bool {
	_, err := os.Lstat(e.ProfilePath(key, skill))
	return err == nil
}

// Write replaces a skill's profile in the project's store folder, secrets
// redacted first; it returns where and how many lines it holds.
func Write(e store.Env, p store.Project, skill string, data []byte) (string, int, error) {
	p, err := store.ClaimProject(e, p)
	if err != nil {
		return "", 0, err
	}
	text, _ := redact.String(string(data))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	path := e.ProfilePath(p.Key, skill)
	if err := os.MkdirAll(e.ProfilesDir(p.Key), 0o700); err != nil {
		return "", 0, err
	}
	lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	return path, lines, store.WriteFileAtomic(path, []byte(text))
}
