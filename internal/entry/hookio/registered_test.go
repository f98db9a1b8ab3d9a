package hookio

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRegisteredIn: the plugin stands aside only for a settings file that
// registers ccmem's hooks; a missing, unreadable or foreign one registers
// none, so the plugin does the work.
func TestRegisteredIn(t *testing.T) {
	dir := t.TempDir()
	ours := filepath.Join(dir, "ours.json")
	if err := os.WriteFile(ours, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/u/lib/ccmem/stop"}]}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if !registeredIn(ours) {
		t.Error("a settings file with ccmem's Stop hook is not seen")
	}
	if registeredIn(filepath.Join(dir, "missing.json")) {
		t.Error("a missing settings file registers ccmem")
	}
	if registeredIn(dir) {
		t.Error("a folder in the settings file's place registers ccmem")
	}
}
