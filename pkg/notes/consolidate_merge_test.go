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

// TestConsolidateKeepsTheNewest: two values of one setting are never both
// stated (the later one, "Timezone: PST (moved)", wins), of two facts that
// say nearly the same the newer wording is kept even when it is shorter,
// and a soft preference never goes in, whatever its confidence.
func TestConsolidateKeepsTheNewest(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	storetest.Mkfile(t, store.RepoMemory(repo), "## Team\n- Timezone: EST\n- Deploys go out on Tuesdays after the weekly standup meeting\n- Timezone: PST (moved)\n- deploys go out Tuesdays after the weekly standup\n")
	for _, rec := range []string{
		`{"schema_version":"1.0","category":"preference","id":"tabs","title":"Tabs","created_at":"2026-11-01T00:00:00Z","updated_at":"2026-11-01T00:00:00Z","tags":["style"],"related_files":[],"confidence":0.9,"record_status":"active","changes":[],"times_updated":0,"content":{"topic":"indent","value":"tabs","strength":"soft"}}`,
		`{"schema_version":"1.0","category":"preference","id":"quotes","title":"Quotes","created_at":"2026-11-01T00:00:00Z","updated_at":"2026-11-01T00:00:00Z","tags":["style"],"related_files":[],"confidence":0.8,"record_status":"active","changes":[],"times_updated":0,"content":{"topic":"strings","value":"double quotes","strength":"default"}}`,
	} {
		id := strings.Split(strings.Split(rec, `"id":"`)[1], `"`)[0]
		storetest.Mkfile(t, fmt.Sprintf("%s/.claude/memory/records/preference/%s.json", repo, id), rec)
	}
	sec := ConsolidateSection(context.Background(), e, p, ConsolidateOptions{})
	if strings.Contains(sec, "EST") || !strings.Contains(sec, "- Timezone: PST (moved)") {
		t.Errorf("both timezones, or the older:\n%s", sec)
	}
	if strings.Contains(sec, "standup meeting") || !strings.Contains(sec, "- deploys go out Tuesdays after the weekly standup") {
		t.Errorf("the older wording was kept:\n%s", sec)
	}
	if strings.Contains(sec, "tabs") || !strings.Contains(sec, "- Quotes: double quotes") {
		t.Errorf("preferences:\n%s", sec)
	}
}
