package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// bashSteps writes transcript lines for Bash calls: each call (its command,
// its output, whether it failed) as the assistant's tool use and the
// tool's result, numbered in order.
func bashSteps() func(cmd, out string, failed bool) string {
	n := 0
	return func(cmd, out string, failed bool) string {
		n++
		id := fmt.Sprintf("t%d", n)
		return fmt.Sprintf(`{"type":"assistant","message":{"id":"m%s","content":[{"type":"tool_use","id":"%s","name":"Bash","input":{"command":%q}}]}}`+"\n"+
			`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"%s","is_error":%v,"content":%q}]}}`, id, id, cmd, id, failed, out)
	}
}

// TestFixIsTheSameRun: a failing command is fixed only by a run on the
// same things (another package passing fixes nothing), the fix's note
// names what ran in between, and an error's line is the one that says
// why, not make's recap.
func TestFixIsTheSameRun(t *testing.T) {
	w := newCaptureWorld(t)
	step := bashSteps()
	lines := []string{
		`{"type":"user","timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"fix the build"}}`,
		step("go test ./a/...", "--- FAIL: TestA\nFAIL", true),
		step("go test ./b/...", "ok", false),
		step("make build", "api.go:3: undefined: pb.Order\nmake: *** [Makefile:2: build] Error 1", true),
		// A script ran between: no step, and kept out of the fix's note
		// (it would crowd the conversation out of the digest).
		step("python3 - <<'EOF'\nimport json, sys\nfor line in open('api.log'):\n    print(json.loads(line)['status'])\nEOF", "200", false),
		step("make codegen", "ok", false),
		step("make build", "ok", false),
		step("go test ./a/...", "ok", false),
	}
	storetest.Append(t, w.tr, []byte(strings.Join(lines, "\n")+"\n"))
	c := w.capture(t, "s1")
	var fixes, failures []checkpoint.Note
	for _, x := range c.Digest.Notes {
		switch x.Kind {
		case NoteFix:
			fixes = append(fixes, x)
		case NoteFailure:
			failures = append(failures, x)
		}
	}
	if len(failures) != 2 || failures[1].Text != "api.go:3: undefined: pb.Order" {
		t.Fatalf("failures: %+v", failures)
	}
	if len(fixes) != 2 {
		t.Fatalf("fixes: %+v", fixes)
	}
	if fixes[0].Cmd != "make build" || fixes[0].Text != "failed at turn 1; succeeded after `make codegen` ran" || strings.Join(fixes[0].After, ",") != "make codegen" {
		t.Errorf("the build's fix: %+v", fixes[0])
	}
	if fixes[1].Cmd != "go test ./a/..." || strings.Contains(fixes[1].Text, "./b/") {
		t.Errorf("the test's fix names another run: %+v", fixes[1])
	}
}

// TestOneRunnersTargetsAreCommandsOfTheirOwn (issue 51, finding 7): `npm run
// build` failing until `npm run codegen` ran is fixed "after `npm run
// codegen` ran", not "run again": a runner's targets (npm, yarn, pnpm,
// bun, uv, poetry run; make -C) are different commands.
func TestOneRunnersTargetsAreCommandsOfTheirOwn(t *testing.T) {
	for _, c := range []struct{ build, codegen string }{
		{"npm run build", "npm run codegen"},
		{"pnpm run build", "pnpm run codegen"},
		{"yarn run build", "yarn run codegen"},
		{"bun run build", "bun run codegen"},
		{"uv run build", "uv run codegen"},
		{"make -C web build", "make -C web codegen"},
	} {
		w := newCaptureWorld(t)
		step := bashSteps()
		lines := []string{
			`{"type":"user","timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"fix the build"}}`,
			step(c.build, "Error: Cannot find module './generated/api'", true),
			step(c.codegen, "ok", false),
			step(c.build, "ok", false),
		}
		storetest.Append(t, w.tr, []byte(strings.Join(lines, "\n")+"\n"))
		var fix *checkpoint.Note
		for _, x := range w.capture(t, "s1").Digest.Notes {
			if x.Kind == NoteFix {
				fix = &x
			}
		}
		if want := "failed at turn 1; succeeded after `" + c.codegen + "` ran"; fix == nil || fix.Text != want {
			t.Errorf("%s: the fix %+v, want %q", c.build, fix, want)
		}
	}
}
