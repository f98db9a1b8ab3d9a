package gitsync

import (
	"strings"
	"testing"
)

// TestMachineNameRedacted: the machine's name goes into every commit
// message: a secret in CCMEM_MACHINE (or a host name) is redacted, and a
// name is one line.
func TestMachineNameRedacted(t *testing.T) {
	s := &Syncer{Machine: "laptop\nghp_" + strings.Repeat("Zq8Xw2Lk9P", 4)}
	got := s.machine()
	if strings.Contains(got, "Zq8Xw2Lk") || strings.Contains(got, "\n") {
		t.Fatalf("machine() = %q", got)
	}
}
