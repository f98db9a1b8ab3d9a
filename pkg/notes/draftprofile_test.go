package notes

import (
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/session"
)

// TestDraftProfileFromItsRuns (issue 51, finding 7): a skill's profile is
// drafted from the sessions that ran it — their runs, the commands and
// files they share, what failed and what fixed it — leaving out the
// sessions that did not run it and automated runs, within what a session
// is given of a profile.
func TestDraftProfileFromItsRuns(t *testing.T) {
	run := func(title, started string, skills []string, automated bool, cmds, files []string, notes ...checkpoint.Note) session.SessionFile {
		c := &session.Checkpoint{Record: checkpoint.Record{Title: title, StartedAt: started, SkillsUsed: skills, Automated: automated, FilesChanged: files, Outcome: "deployed"}}
		c.Digest.Commands, c.Digest.Notes = cmds, notes
		return session.SessionFile{Record: c}
	}
	eps := []session.SessionFile{
		run("ship 1.4 to staging", "2026-11-21T10:00:00Z", []string{"deploy"}, false, []string{"make release-check", "make deploy ENV=staging"}, []string{"CHANGELOG.md"},
			checkpoint.Note{Turn: 1, Kind: session.NoteFix, Cmd: "make release-check", Text: "failed at turn 1; succeeded after changes to CHANGELOG.md"}),
		run("ship 1.3 to staging", "2026-11-14T10:00:00Z", []string{"deploy", "review"}, false, []string{"make release-check", "make deploy ENV=staging"}, []string{"CHANGELOG.md"}),
		run("nightly deploy", "2026-11-13T02:00:00Z", []string{"deploy"}, true, []string{"make deploy ENV=prod"}, nil),
		run("refactor the cart", "2026-11-12T10:00:00Z", nil, false, []string{"go test ./..."}, []string{"cart.go"}),
	}
	draft, n := DraftProfile("deploy", eps, 20)
	for _, want := range []string{"# deploy in this project", "from the 2 sessions that ran it", "- 2026-11-21 ship 1.4 to staging — deployed",
		"- `make release-check` (run in 2 sessions)", "- CHANGELOG.md (changed in 2 sessions)", "succeeded after changes to CHANGELOG.md"} {
		if !strings.Contains(draft, want) {
			t.Errorf("the draft lacks %q:\n%s", want, draft)
		}
	}
	for _, not := range []string{"nightly", "refactor the cart", "cart.go", "ENV=prod"} {
		if strings.Contains(draft, not) {
			t.Errorf("the draft holds %q, from a session that is not one of the skill's runs:\n%s", not, draft)
		}
	}
	if n != 2 || strings.Count(draft, "\n") > 30 {
		t.Errorf("drafted from %d sessions, %d lines", n, strings.Count(draft, "\n"))
	}
}
