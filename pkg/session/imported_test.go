package session

import (
	"strings"
	"testing"
)

// TestSpawnNoteRedactedBeforeItShortens: the command line of a headless
// start an import notes is redacted whole before its 300-character cut.
func TestSpawnNoteRedactedBeforeItShortens(t *testing.T) {
	token := "glpat-" + strings.Repeat("Zq8Xw2Lk9P", 3)
	cmd := "claude -p '" + strings.Repeat("x", 300-len("claude -p '")-12) + " " + token + "'"
	c := &Checkpoint{importing: true}
	c.noteSpawn(cmd, "2026-11-20T10:00:00Z")
	if len(c.State.Spawned) != 1 {
		t.Fatalf("spawned: %q", c.State.Spawned)
	}
	for i := 0; i+8 <= len(token); i++ {
		if frag := token[i : i+8]; strings.Contains(c.State.Spawned[0], frag) {
			t.Fatalf("%q of the token kept: %q", frag, c.State.Spawned[0])
		}
	}
}
