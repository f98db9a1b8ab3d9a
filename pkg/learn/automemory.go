package learn

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/pkg/store"
)

// AutoMemoryOn tells whether Claude Code's auto memory runs in sessions of
// the project rooted at root ("" for none): the client then tells the
// model, every session, to save memories as files in its per-project
// memory folder, the silos /learn curates. As the client decides it:
// CLAUDE_CODE_DISABLE_AUTO_MEMORY set true turns it off and set false
// forces it on; otherwise CLAUDE_CODE_SIMPLE turns it off, and then the
// last settings scope that sets autoMemoryEnabled (user, project, local)
// decides; the default is on.
func AutoMemoryOn(e store.Env, root string) bool {
	switch strings.ToLower(strings.TrimSpace(e.AutoMemorySwitch)) {
	case "1", "true", "yes", "on":
		return false
	case "0", "false", "no", "off":
		return true
	}
	if e.Simple {
		return false
	}
	on := true
	read := func(data []byte, err error) {
		var s struct {
			AutoMemoryEnabled *bool `json:"autoMemoryEnabled"`
		}
		if err == nil && json.Unmarshal(data, &s) == nil && s.AutoMemoryEnabled != nil {
			on = *s.AutoMemoryEnabled
		}
	}
	read(store.ReadSmallFile(e.Settings(), 4<<20))
	if root != "" {
		// The repository's files are untrusted: no symlink is followed.
		for _, name := range []string{"settings.json", "settings.local.json"} {
			read(store.ReadFileIn(root, filepath.Join(root, ".claude", name), 4<<20))
		}
	}
	return on
}
