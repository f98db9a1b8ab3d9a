package evalset

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// hooks builds the hook binaries the corpus is replayed through.
func hooks(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "../../hooks/sessionstart", "../../hooks/stop", "../../hooks/userpromptsubmit").CombinedOutput()
	if err != nil {
		t.Fatalf("building the hooks: %v\n%s", err, out)
	}
	return dir
}

// TestCaptureFidelity: what capture keeps of the corpus's sessions lets
// ccmem search find a fact's session at least 95% as often as its engine
// over the sessions' full text; every episode, digest included, stays
// within 32 KB; every automated run is marked. (Precision, not speed: the
// same files give the same figures on every machine.)
func TestCaptureFidelity(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 90 sessions through the hook binaries (make test runs it)")
	}
	rep, _, err := Evaluate(t.TempDir(), hooks(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	rep.Print(testWriter{t})
	if rep.FullText.AnyAt5 == 0 || rep.CCMem.AnyAt5/rep.FullText.AnyAt5 < 0.95 {
		t.Errorf("capture fidelity %.3f / %.3f, want ≥ 0.95", rep.CCMem.AnyAt5, rep.FullText.AnyAt5)
	}
	if rep.EpisodeMax > 32<<10 {
		t.Errorf("an episode takes %d bytes, over 32 KB", rep.EpisodeMax)
	}
	if rep.AutomatedKept != rep.AutomatedRuns {
		t.Errorf("%d of %d automated runs marked", rep.AutomatedKept, rep.AutomatedRuns)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
