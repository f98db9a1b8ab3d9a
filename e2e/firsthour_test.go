package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionsBeforeInstallAreEpisodes: three `claude -p` sessions run
// with the real client before ccmem is installed (no hook records them,
// and they ended a moment ago) are episodes right after install and
// import, with no wait, and the next session's menu names them.
func TestSessionsBeforeInstallAreEpisodes(t *testing.T) {
	w := newBareWorld(t, nil)
	var sids []string
	for _, p := range []string{"rename the price helper to priceOf", "add a retry budget to the payment client", "explain the cart's tax rounding"} {
		sids = append(sids, w.runJSON("-p", p))
	}
	if out, err := w.ccmem("install"); err != nil {
		t.Fatalf("ccmem install: %v\n%s", err, out)
	}
	out, err := w.ccmem("import")
	if err != nil || !strings.Contains(out, "imported 3 sessions") {
		t.Fatalf("ccmem import right after the sessions: %v\n%s", err, out)
	}
	for _, sid := range sids {
		if eps := w.episodesOf(sid); len(eps) != 1 {
			t.Errorf("session %s: %d episodes", sid, len(eps))
		}
	}
	n := len(w.api.MessageRequests())
	w.claude("-p", "hello")
	block := w.onlyInjection(n)
	for _, want := range []string{"rename the price helper", "retry budget", "tax rounding"} {
		if !strings.Contains(block, want) {
			t.Errorf("the menu lacks %q:\n%s", want, block)
		}
	}
}

// TestRuleStaysInItsProjectUntilAccepted: a rule drawn from one project's
// friction and proposed for review reaches neither that project's next
// session nor another project's; accepted, it reaches that project's
// sessions only, in the real client's requests.
func TestRuleStaysInItsProjectUntilAccepted(t *testing.T) {
	w := newWorld(t, nil)
	// Three sessions of this project that each failed at `npm run build`
	// and found what made it work (as capture records them).
	out, err := w.ccmem("paths", "--json")
	if err != nil {
		t.Fatalf("ccmem paths: %v\n%s", err, out)
	}
	var paths struct {
		ProjectDir string `json:"project_dir"`
	}
	if err := json.Unmarshal([]byte(out), &paths); err != nil || paths.ProjectDir == "" {
		t.Fatalf("ccmem paths --json: %q %v", out, err)
	}
	for i := range 3 {
		ep := fmt.Sprintf(`{"session_id":"f%d","title":"build the web app %d","turns":4,"started_at":"2026-10-0%dT09:00:00Z","friction":{"score":9,"class":"FRICTION","signals":{"exit_error":2}},
"digest":{"notes":[{"turn":1,"kind":"failure","cmd":"npm run build","text":"Cannot find module './gen/types'"},{"turn":2,"kind":"fix","cmd":"npm run build","text":"failed at turn 1; succeeded run as `+"`npm run generate && npm run build`"+` instead of `+"`npm run build`"+`"}]}}`, i, i, i+1)
		w.write(filepath.Join(paths.ProjectDir, "episodes", fmt.Sprintf("2026100%dT090000Z-f%d.json", i+1, i)), ep)
	}
	out, err = w.ccmem("friction", "--propose")
	if err != nil || !strings.Contains(out, "(proposed)") {
		t.Fatalf("ccmem friction --propose: %v\n%s", err, out)
	}
	other := filepath.Join(filepath.Dir(w.project), "blog")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	session := func(dir string) string {
		t.Helper()
		n := len(w.api.MessageRequests())
		w.claudeIn(dir, "-p", "hello")
		return w.onlyInjection(n)
	}
	for name, dir := range map[string]string{"this project": w.project, "another project": other} {
		if b := session(dir); strings.Contains(b, "npm run generate") {
			t.Errorf("a rule awaiting review reached %s's session:\n%s", name, b)
		}
	}
	review, err := w.ccmem("learn", "review", "--json")
	if err != nil {
		t.Fatalf("ccmem learn review --json: %v\n%s", err, review)
	}
	var items []struct{ File string }
	json.Unmarshal([]byte(review), &items)
	name := ""
	for _, it := range items {
		if strings.Contains(it.File, "command-npm-run") {
			name = it.File
		}
	}
	if name == "" {
		t.Fatalf("no npm rule awaits review:\n%s", review)
	}
	if out, err := w.ccmem("learn", "review", "--accept", name); err != nil {
		t.Fatalf("accept: %v\n%s", err, out)
	}
	if b := session(w.project); !strings.Contains(b, "npm run generate") {
		t.Errorf("the accepted rule does not reach its project's session:\n%s", b)
	}
	if b := session(other); strings.Contains(b, "npm run generate") {
		t.Errorf("the rule accepted for one project reached another's session:\n%s", b)
	}
}
