// Package lessonstest builds, for tests, a project whose accepted rules
// have a history: sessions before and since they were accepted.
package lessonstest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// Accepted is when RulesAtWork's rules were accepted.
var Accepted = time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)

// RulesAtWork gives the project p (rooted at repo) twenty sessions, one a
// day from 2026-10-31, and two rules drawn from its friction and accepted
// on day ten: "codegen-first" (`make build` failed in 6 of the 10
// sessions before, then ran after `make codegen` and never failed again)
// and "fixtures-first" (`npm test` failed in 4 of the 10 before and in 5
// of the 10 since: its friction goes on).
func RulesAtWork(t testing.TB, e store.Env, repo string, p store.Project) {
	t.Helper()
	rule := func(name, rule, pattern string) {
		storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "feedback", name+".md"), fmt.Sprintf(
			"---\nname: %s\ndescription: %q\nmetadata:\n  type: feedback\norigin: friction\nscope: project\nsource_cwd: %q\npattern: %q\nconfidence: High\nseen_in_sessions: 6\naccepted_at: %q\n---\n\n%s\n",
			name, rule, repo, pattern, Accepted.Format(time.RFC3339), rule))
	}
	rule("codegen-first", "`make build` fails unless `make codegen` runs first: run `make codegen` before `make build`.", "cmd:make build")
	rule("fixtures-first", "`npm test` fails unless `npm run fixtures` runs first: run `npm run fixtures` before `npm test`.", "cmd:npm test")
	for i := range 20 {
		started := Accepted.AddDate(0, 0, i-10).Add(9 * time.Hour)
		c := &session.Checkpoint{Record: checkpoint.Record{SessionID: fmt.Sprintf("5e55a0b1-0000-4000-8000-%012d", i), StartedAt: started.Format(time.RFC3339),
			EndedAt: started.Add(time.Hour).Format(time.RFC3339), Turns: 6, Title: fmt.Sprintf("work %d", i), Friction: friction.Result{Class: "OK"}}}
		var notes []checkpoint.Note
		build := "make build"
		if i >= 10 {
			build = "make codegen && make build"
		} else if i%5 < 3 {
			notes = append(notes, checkpoint.Note{Turn: 2, Kind: session.NoteFailure, Cmd: "make build", Text: "undefined: pb.Order"})
		}
		if i < 10 && i%5 < 2 || i >= 10 && i%2 == 0 {
			notes = append(notes, checkpoint.Note{Turn: 3, Kind: session.NoteFailure, Cmd: "npm test", Text: "Error: fixtures not loaded"})
		}
		c.Digest.Notes = notes
		c.Digest.Commands = []string{build, "npm test"}
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		storetest.Mkfile(t, filepath.Join(e.EpisodesDir(p.Key), session.EpisodeName(c, started)), string(data))
	}
}
