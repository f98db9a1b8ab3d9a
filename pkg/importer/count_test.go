package importer

import (
	"path/filepath"
	"testing"

	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestCountUnrecorded (issue 51, finding 5): install offers to import only
// the sessions no episode or checkpoint records yet, not every transcript.
func TestCountUnrecorded(t *testing.T) {
	e := storetest.Env(t)
	for _, sid := range []string{"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"} {
		storetest.Mkfile(t, filepath.Join(e.SilosDir(), "-src-shop", sid+".jsonl"), "{}\n")
	}
	storetest.Mkfile(t, filepath.Join(e.EpisodesDir("-src-shop"), "20261101T090000Z-11111111-1111-4111-8111-111111111111.json"), "{}")
	storetest.Mkfile(t, filepath.Join(e.CheckpointsDir("-src-shop"), "22222222-2222-4222-8222-222222222222.json"), "{}")
	if n, err := CountUnrecorded(e); err != nil || n != 1 {
		t.Fatalf("unrecorded: %d %v, want 1", n, err)
	}
	if n, _ := CountTranscripts(e); n != 3 {
		t.Fatalf("transcripts: %d", n)
	}
}
