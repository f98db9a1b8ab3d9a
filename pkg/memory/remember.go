package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/pkg/redact"
)

// RememberResult says what Remember did.
type RememberResult struct {
	Path       string `json:"path"`
	Topic      string `json:"topic"`
	Line       string `json:"line"`
	Added      bool   `json:"added"` // false: the fact was there already
	Created    bool   `json:"created"`
	Redactions int    `json:"redactions"`
}

// DefaultTopic is the header facts go under when no topic is given.
const DefaultTopic = "Notes"

// Remember adds one fact as a bullet under the "## topic" header of a
// MEMORY.md, creating the file (and its folder) if needed and the header if
// missing. A fact already there (same words, any case or spacing) is not
// added twice. Every other byte of the file is kept. Secrets are redacted
// first.
func Remember(path, topic, text string) (RememberResult, error) {
	topic = strings.TrimSpace(strings.TrimLeft(oneLineText(topic), "#"))
	if topic == "" {
		topic = DefaultTopic
	}
	fact := oneLineText(strings.TrimPrefix(strings.TrimSpace(text), "- "))
	if fact == "" {
		return RememberResult{}, errors.New("nothing to remember: the text is empty")
	}
	fact, n := redact.String(fact)
	res := RememberResult{Path: path, Topic: topic, Line: "- " + fact, Redactions: n}
	data, err := ReadSmallFile(path, 16<<20)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res.Created, res.Added = true, true
		return res, WriteFileAtomic(path, []byte("## "+topic+"\n"+res.Line+"\n"))
	case err != nil:
		return res, err
	}
	content := string(data)
	lines := strings.Split(content, "\n")
	key := normalizeFact(fact)
	for _, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "- ") && normalizeFact(t[2:]) == key {
			return res, nil // already there
		}
	}
	res.Added = true
	// Find the topic's section; insert after its last non-blank line.
	start := -1
	for i, l := range lines {
		if h, ok := strings.CutPrefix(strings.TrimSpace(l), "## "); ok && strings.EqualFold(strings.TrimSpace(h), topic) {
			start = i
			break
		}
	}
	if start < 0 {
		out := strings.TrimRight(content, "\n")
		if out != "" {
			out += "\n\n"
		}
		out += "## " + topic + "\n" + res.Line + "\n"
		return res, WriteFileAtomic(path, []byte(out))
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		// The section ends at the next header of its level or above;
		// "###" subheaders belong to it.
		if t := strings.TrimSpace(lines[i]); strings.HasPrefix(t, "## ") || strings.HasPrefix(t, "# ") {
			end = i
			break
		}
	}
	at := start + 1
	for i := end - 1; i > start; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			at = i + 1
			break
		}
	}
	out := append(append(append([]string{}, lines[:at]...), res.Line), lines[at:]...)
	result := strings.Join(out, "\n")
	if !strings.HasSuffix(result, "\n") {
		result += "\n"
	}
	return res, WriteFileAtomic(path, []byte(result))
}

func normalizeFact(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// RememberPath is the MEMORY.md of a scope: "global" or "project" (the
// repository's, committed and shared).
func (e Env) RememberPath(scope, root string) (string, error) {
	switch scope {
	case "global":
		return e.GlobalMemory(), nil
	case "project":
		if root == "" {
			return "", fmt.Errorf("no project here for --project")
		}
		return filepath.Join(RepoMemoryDir(root), "MEMORY.md"), nil
	}
	return "", fmt.Errorf("unknown scope %q", scope)
}
