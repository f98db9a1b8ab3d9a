package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/lessons"
	"github.com/ccmem/ccmem/pkg/lessons/lessonstest"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestRulesProveThemselves: of two accepted rules, the one whose friction
// stopped is reported helping, the one whose friction goes on is flagged,
// each with its sessions before and since and the calls it bore on, in
// `ccmem friction --json` (the ui's friction page: TestFrictionPageShowsWhatRulesDid).
func TestRulesProveThemselves(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	if _, err := store.ClaimProject(e, p); err != nil {
		t.Fatal(err)
	}
	lessonstest.RulesAtWork(t, e, repo, p)
	out := runCLI(t, e.Home, "friction", "--cwd", repo, "--json")
	var rep lessons.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	got := map[string]lessons.Effect{}
	for _, ef := range rep.Effects {
		got[ef.Name] = ef
	}
	stopped, goesOn := got["codegen-first"], got["fixtures-first"]
	if stopped.Verdict != "helping" || stopped.Before != (lessons.Span{Sessions: 10, Recurred: 6}) || stopped.Since != (lessons.Span{Sessions: 10, Recurred: 0}) || stopped.Matched != 10 {
		t.Errorf("the rule whose friction stopped: %+v", stopped)
	}
	if goesOn.Verdict != "recurring" || goesOn.Before != (lessons.Span{Sessions: 10, Recurred: 4}) || goesOn.Since != (lessons.Span{Sessions: 10, Recurred: 5}) || goesOn.Matched != 10 {
		t.Errorf("the rule whose friction goes on: %+v", goesOn)
	}
	text := runCLI(t, e.Home, "friction", "--cwd", repo)
	for _, want := range []string{"codegen-first", "helping: its friction recurs less", "FLAGGED: its friction keeps recurring", "6 of 10", "0 of 10"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}
