package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// browserTools finds what the browser tests drive: Debian's chromium (or
// Ubuntu's chromium-browser, Google Chrome, or $CHROMIUM), node, and playwright-core, installed into .cache/ by
// scripts/install-playwright.sh as the pinned client is. A missing tool
// fails the test with what to do; it never skips.
func browserTools(t *testing.T) (chromium, node, playwright string) {
	t.Helper()
	chromium = os.Getenv("CHROMIUM")
	if chromium == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				chromium = p
				break
			}
		}
	}
	if chromium == "" {
		t.Fatal("chromium is not installed: the browser tests of ccmem ui drive it (make test-tools installs it on Debian; or set CHROMIUM to a Chromium binary)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: the browser tests run playwright-core with it")
	}
	root, _ := filepath.Abs("..")
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "install-playwright.sh"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("installing playwright-core failed (scripts/install-playwright.sh): %v\n%s", err, stderr.String())
	}
	return chromium, node, strings.TrimSpace(string(out))
}

// TestUIInABrowser runs `ccmem ui` on a store two real sessions wrote and
// walks it in headless Chromium: the project page shows the block `ccmem
// show` prints, search finds the session by what was said in it, the
// friction chart renders, and a pending feedback item accepted in the page
// is a learned entry afterwards. Screenshots of every page go to the
// test's artifact folder (go test -artifacts keeps them; make test puts
// them in .cache/test-artifacts).
func TestUIInABrowser(t *testing.T) {
	chromium, node, playwright := browserTools(t)
	w := newWorld(t, nil)
	sid := w.runJSON("-p", "note for later: the staging database is called heron-7 since the move")
	w.claude("-p", "thanks, that is all for today")
	w.write(filepath.Join(w.home, ".claude", "ccmem", "review", "feedback", "run-tests.md"),
		"---\nname: run-tests\ndescription: Run the tests and read their result before saying something works\ntype: feedback\n---\nSeen in 3 sessions with friction.\n")

	out, err := w.ccmem("show", "--json")
	if err != nil {
		t.Fatalf("ccmem show --json: %v\n%s", err, out)
	}
	var shown struct {
		Block struct {
			Text string `json:"text"`
		} `json:"block"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil || shown.Block.Text == "" {
		t.Fatalf("ccmem show --json printed %q: %v", out, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ui := exec.CommandContext(ctx, filepath.Join(binDir, "ccmem"), "ui", "--no-open")
	ui.Env, ui.Dir = w.env(), w.project
	stdout, err := ui.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var uiErr bytes.Buffer
	ui.Stderr = &uiErr
	if err := ui.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ui.Process.Kill(); ui.Wait() })
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "http://127.0.0.1:") || !strings.Contains(first, "/?token=") {
		t.Fatalf("ccmem ui's first line is %q (%v), want its address; stderr: %s", first, err, uiErr.String())
	}
	address := strings.TrimSpace(first)

	shots := t.ArtifactDir()
	run := exec.CommandContext(ctx, node, filepath.Join("ui", "browser.mjs"), address, shots, "heron-7", "run-tests")
	run.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+playwright, "CHROMIUM="+chromium, "HOME="+w.home)
	var runErr bytes.Buffer
	run.Stderr = &runErr
	raw, err := run.Output()
	if err != nil {
		t.Fatalf("node ui/browser.mjs: %v\n%s\n%s", err, raw, runErr.String())
	}
	var got struct {
		Error, Landed, Block, EpisodeText, SearchFocused, ConfirmText, Done string
		BudgetSegments                                                      int
		Chart                                                               struct{ Width, Height, Bars float64 }
		Hits, HitLinks, Console, Requests                                   []string
		Pages                                                               []struct{ Name, URL, Title, File string }
		Narrow                                                              map[string]float64
		Wide                                                                []string
		ErrorPage                                                           struct{ URL, Text string }
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("browser.mjs printed %q: %v", raw, err)
	}
	if got.Error != "" {
		t.Fatalf("in the browser: %s\nat %s: %s\nccmem ui said: %s", got.Error, got.ErrorPage.URL, got.ErrorPage.Text, uiErr.String())
	}
	if strings.Contains(got.Landed, "token=") {
		t.Errorf("the token stayed in the address: %s", got.Landed)
	}
	if got.Block != shown.Block.Text {
		t.Errorf("the project page's block differs from ccmem show's:\npage:\n%s\nccmem show:\n%s", got.Block, shown.Block.Text)
	}
	if got.BudgetSegments == 0 {
		t.Error("the budget bar has no section drawn")
	}
	if !strings.Contains(got.EpisodeText, "heron-7") {
		t.Errorf("the session's digest does not hold what was said:\n%s", got.EpisodeText)
	}
	if got.Chart.Width < 100 || got.Chart.Height < 50 || got.Chart.Bars == 0 {
		t.Errorf("the friction chart did not render: %+v", got.Chart)
	}
	if got.SearchFocused != "q" {
		t.Errorf(`"/" focused %q, not the search box`, got.SearchFocused)
	}
	found := false
	for i, h := range got.Hits {
		if strings.Contains(h, "heron-7") && i < len(got.HitLinks) && strings.Contains(got.HitLinks[i], sid) {
			found = true
		}
	}
	if !found {
		t.Errorf("search for heron-7 did not find session %s:\n%s\nlinks %v", sid, strings.Join(got.Hits, "\n"), got.HitLinks)
	}
	if !strings.Contains(got.ConfirmText, "It applies in every project") || !strings.Contains(got.Done, "accepted") {
		t.Errorf("accepting did not ask, or did not say it was done: %q / %q", got.ConfirmText, got.Done)
	}
	accepted := filepath.Join(w.home, ".claude", "ccmem", "learned", "feedback", "run-tests.md")
	if _, err := os.Stat(accepted); err != nil {
		t.Errorf("the item accepted in the page is not in the store: %v", err)
	}
	// On a phone (issue 51, finding 5: at 390 px the ui was 650 px wide).
	if len(got.Narrow) != 3 {
		t.Errorf("the narrow pages were not measured: %v", got.Narrow)
	}
	for name, width := range got.Narrow {
		if width > 390 {
			t.Errorf("at 390 px, the %s page is %.0f px wide: %v", name, width, got.Wide)
		}
	}
	if len(got.Console) > 0 {
		t.Errorf("the page logged errors: %v", got.Console)
	}
	if len(got.Requests) > 0 {
		t.Errorf("the page asked the network: %v", got.Requests)
	}
	for _, p := range got.Pages {
		if fi, err := os.Stat(p.File); err != nil || fi.Size() < 1000 {
			t.Errorf("screenshot of %s missing: %v", p.Name, err)
		}
	}
	if len(got.Pages) < 8 {
		t.Errorf("only %d pages screenshot", len(got.Pages))
	}
	t.Logf("screenshots of %d pages in %s", len(got.Pages), shots)

	// SIGTERM stops it, with status 0.
	ui.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- ui.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ccmem ui after SIGTERM: %v\n%s", err, uiErr.String())
		}
	case <-time.After(10 * time.Second):
		t.Error("ccmem ui did not stop on SIGTERM")
	}
}
