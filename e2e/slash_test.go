package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSlashCommandArgumentsTitleTheSession: a session opened with a
// project's slash command holds its request in the command's arguments;
// with the real client's transcript, the episode's title is that request
// and the digest keeps the prompt as it was typed.
func TestSlashCommandArgumentsTitleTheSession(t *testing.T) {
	w := newWorld(t, nil)
	w.write(filepath.Join(w.project, ".claude", "commands", "plan.md"), "---\ndescription: plan a change\n---\nMake a short plan for this change: $ARGUMENTS\n")
	sid := w.runJSON("-p", "/plan move the billing cron to the scheduler service")
	w.claude("-p", "anything new in the inbox?") // the next start archives it
	eps := w.episodesOf(sid)
	if len(eps) != 1 {
		t.Fatalf("episodes of the session: %v", eps)
	}
	data, err := os.ReadFile(eps[0])
	if err != nil {
		t.Fatal(err)
	}
	var ep struct {
		Title  string `json:"title"`
		Digest struct {
			Notes []struct{ Kind, Text string } `json:"notes"`
		} `json:"digest"`
	}
	if err := json.Unmarshal(data, &ep); err != nil {
		t.Fatal(err)
	}
	var prompts []string
	for _, n := range ep.Digest.Notes {
		if n.Kind == "prompt" {
			prompts = append(prompts, n.Text)
		}
	}
	if ep.Title != "move the billing cron to the scheduler service" || len(prompts) != 1 || !strings.Contains(prompts[0], "/plan move the billing cron") {
		t.Fatalf("title %q, prompts %q:\n%s", ep.Title, prompts, data)
	}
	w.sameAsLive(w.importAll(), sid)
}
