package notes

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestConsolidateMergesNearDuplicatesAndCaps: facts that say nearly the
// same thing are one line (the fuller wording), distinct ones stay, and
// the section is capped with a line saying how many more there are.
func TestConsolidateMergesNearDuplicatesAndCaps(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	var b strings.Builder
	b.WriteString("## API\n- The API uses snake_case JSON keys\n- the api uses snake_case keys in its JSON\n- The API returns errors as JSON with a code\n")
	b.WriteString("## Misc\n")
	for i := range 50 {
		fmt.Fprintf(&b, "- distinct fact number %d about widget %c%c\n", i, 'a'+rune(i%26), 'a'+rune(i/26))
	}
	storetest.Mkfile(t, store.RepoMemory(repo), b.String())
	sec := ConsolidateSection(context.Background(), e, p, ConsolidateOptions{})
	if n := strings.Count(strings.ToLower(sec), "snake_case"); n != 1 || !strings.Contains(sec, "- the api uses snake_case keys in its JSON") {
		t.Errorf("near duplicates not merged into the fuller one (%d):\n%s", n, sec)
	}
	if !strings.Contains(sec, "- The API returns errors as JSON with a code") {
		t.Errorf("a distinct fact was merged away:\n%s", sec)
	}
	if !strings.Contains(sec, "- … 12 more facts in the project's memory (ccmem injects them at session start)") {
		t.Errorf("the facts are not capped at 40:\n%s", sec)
	}
	if lines := strings.Count(sec, "\n"); lines > 150 {
		t.Errorf("%d lines", lines)
	}
}
