package notes

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/storetest"
	"github.com/ccmem/ccmem/pkg/store"
)

// Every write path redacts: the briefing, and the section consolidate
// writes into the committed CLAUDE.md, whatever the memory files held.
func TestBriefingAndConsolidateRedact(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	storetest.Mkfile(t, store.RepoMemory(repo), "## Deploy\n- publish with npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\n")
	if _, err := SetBriefing(e, p, "Deploy key: dckr_pat_2b3e36beeb386dfdaacb9b46004\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := Consolidate(context.Background(), e, p, false); err != nil {
		t.Fatal(err)
	}
	briefing, _ := os.ReadFile(e.BriefingPath(p.Key))
	claude, _ := os.ReadFile(filepath.Join(repo, "CLAUDE.md"))
	for _, secret := range []string{"2b3e36beeb38", "a1B2c3D4e5F6"} {
		if strings.Contains(string(briefing)+string(claude), secret) {
			t.Fatalf("%s reached disk:\n%s\n%s", secret, briefing, claude)
		}
	}
	if !strings.Contains(string(claude), "publish with [REDACTED:npm-token]") {
		t.Fatalf("CLAUDE.md:\n%s", claude)
	}
}
