package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/provenance/provenancetest"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/stale"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// note is one entry of an episode's digest, as the Stop hook writes it.
type note = episode.Note

// writeEpisode writes a finished session with a digest into p's episodes.
func writeEpisode(t *testing.T, e store.Env, p store.Project, sid, title string, at time.Time, notes ...note) string {
	t.Helper()
	return storetest.Episode(t, e, p.Key, sid, title, at, notes...)
}

// chores fills the menu with recent sessions, so the ones a test is about
// are old enough to be out of the start-up block.
func chores(t *testing.T, e store.Env, p store.Project, from time.Time) {
	for i := range 14 {
		at := from.Add(time.Duration(i) * 24 * time.Hour)
		writeEpisode(t, e, p, fmt.Sprintf("chore%02d", i), fmt.Sprintf("routine chore number %d on the build", i), at,
			note{Turn: 1, Kind: "prompt", Text: fmt.Sprintf("bump the linter to version 1.%d", i)})
	}
}

func promptIn(t *testing.T, e store.Env, repo, sid, text string) string {
	t.Helper()
	res, err := Prompt(context.Background(), e, PromptRequest{SessionID: sid, Cwd: repo, Prompt: text})
	if err != nil {
		t.Fatal(err)
	}
	return res.Context
}

// TestChineseIsRecalled (finding 1): words of Chinese inside a sentence
// with no spaces are found — 改動, 權限, 改動歷程 — by the prompt that asks
// about them, and the recalled line quotes the sentence that says so.
func TestChineseIsRecalled(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "admin")
	old := time.Date(2026, 9, 3, 10, 0, 0, 0, time.UTC)
	path := writeEpisode(t, e, p, "zh1", "後台使用者管理", old,
		note{Turn: 1, Kind: "prompt", Text: "幫我看一下後台的使用者列表頁面為什麼載入很慢"},
		note{Turn: 2, Kind: "answer", Text: "列表頁面載入慢是因為每一列都單獨查詢角色，已改成一次批次查詢。"},
		note{Turn: 3, Kind: "prompt", Text: "另外，管理員修改使用者權限之後，要在哪裡查看改動歷程？"},
		note{Turn: 3, Kind: "answer", Text: "權限的改動歷程記錄在 audit_events 資料表，後台的「操作紀錄」頁面可以依使用者篩選查看。"},
	)
	chores(t, e, p, old.AddDate(0, 1, 0))
	Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "now"})
	got := promptIn(t, e, repo, "now", "使用者權限的改動歷程在哪裡可以查到？")
	if !strings.Contains(got, "audit_events") || !strings.Contains(got, path+" (turn 3)") {
		t.Fatalf("the Chinese passage was not recalled:\n%s", got)
	}
	for i, word := range []string{"改動", "權限"} {
		got := promptIn(t, e, repo, fmt.Sprintf("s%d", i), word+"在哪裡")
		if !strings.Contains(got, path) {
			t.Errorf("%s: the session that says it was not recalled:\n%s", word, got)
		}
	}
}

// TestNewerUpdateComesFirst (finding 4): of two sessions that state
// different values of one fact, the newer comes first, and the older is
// marked as superseded by it.
func TestNewerUpdateComesFirst(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	before := time.Date(2026, 8, 4, 9, 0, 0, 0, time.UTC)
	writeEpisode(t, e, p, "old", "set up the deploy pipeline", before,
		note{Turn: 1, Kind: "prompt", Text: "set up deploys for the shop api"},
		note{Turn: 1, Kind: "answer", Text: "We deploy the shop api with Heroku: pushing to main runs the Heroku pipeline, and the production app is shop-api-prod."},
	)
	writeEpisode(t, e, p, "new", "move hosting", before.AddDate(0, 1, 0),
		note{Turn: 1, Kind: "prompt", Text: "the Heroku bill doubled, can we move the api?"},
		note{Turn: 2, Kind: "answer", Text: "We deploy the shop api with Fly.io now: fly deploy from main, the production app is shop-api on Fly.io."},
	)
	chores(t, e, p, before.AddDate(0, 2, 0))
	Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "now"})
	got := promptIn(t, e, repo, "now", "how do we deploy the shop api to production?")
	// Retention may have archived either: they are told by their names.
	i, j := strings.Index(got, "Z-new.json"), strings.Index(got, "Z-old.json")
	if i < 0 || j >= 0 && j < i {
		t.Fatalf("the newer session (Fly.io) is not recalled first:\n%s", got)
	}
	if j >= 0 && !strings.Contains(got, "superseded by 2026-09-04") {
		t.Fatalf("the older value is recalled without being marked superseded:\n%s", got)
	}
}

// TestMenuSessionsStillRecalled (finding 2): a session whose title the
// start-up menu showed still has its passages recalled, since the menu
// showed only its title; the same passage is not recalled twice.
func TestMenuSessionsStillRecalled(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	at := time.Now().Add(-48 * time.Hour)
	path := writeEpisode(t, e, p, "recent", "refactor the checkout", at,
		note{Turn: 1, Kind: "prompt", Text: "refactor the checkout controller into services"},
		note{Turn: 2, Kind: "prompt", Text: "by the way, the staging database password rotates every Monday; the new one is in 1Password under shop-staging"},
		note{Turn: 3, Kind: "answer", Text: "Split the controller into CartService and PaymentService."},
	)
	block := Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "now"}).Block.Text
	if !strings.Contains(block, "refactor the checkout") {
		t.Fatalf("the test wants the session in the menu:\n%s", block)
	}
	got := promptIn(t, e, repo, "now", "where is the staging database password kept?")
	if !strings.Contains(got, "1Password under shop-staging") || !strings.Contains(got, path+" (turn 2)") {
		t.Fatalf("the passage of a session the menu showed was not recalled:\n%s", got)
	}
	if again := promptIn(t, e, repo, "now", "the staging database password, where again?"); strings.Contains(again, "1Password") {
		t.Fatalf("a passage recalled once came again:\n%s", again)
	}
}

// TestIdenticalPassagesCollapse (issue 48; issue 51, finding 3): the same
// sentence recalled from several sessions is one line, the newest, with
// how many sessions said it and since when.
func TestIdenticalPassagesCollapse(t *testing.T) {
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	var hits []search.Hit
	for i := range 4 {
		hits = append(hits, search.Hit{Kind: search.KindEpisode, Turn: 2, Title: fmt.Sprintf("invoice work %d", i), Time: at.AddDate(0, 0, i),
			Path:    fmt.Sprintf("/home/u/.claude/ccmem/projects/shop/episodes/2026110%dT090000Z-s%d.json", i+1, i),
			Snippet: "npm test: Error: Cannot find module '../dist/invoice.js' (run `npm run build` first)"})
	}
	hits = append(hits, search.Hit{Kind: search.KindEpisode, Turn: 1, Title: "the invoice layout", Time: at, Path: "/home/u/.claude/ccmem/projects/shop/episodes/x.json",
		Snippet: "the invoice template lives in templates/invoice.html"})
	text, refs := RecallText(hits, "why does npm test fail on the invoice module?", 2000)
	if n := strings.Count(text, "Cannot find module"); n != 1 {
		t.Fatalf("the sentence appears %d times:\n%s", n, text)
	}
	if !strings.Contains(text, "seen in 4 sessions since 2026-11-01") || !strings.Contains(text, "20261104T090000Z-s3.json") {
		t.Errorf("the line is not the newest, with how often and since when:\n%s", text)
	}
	if !strings.Contains(text, "templates/invoice.html") || len(refs) != 2 {
		t.Errorf("the other passage is gone, or refs %v:\n%s", refs, text)
	}
}

// TestRecallInTwoStrengths (issue 48): a prompt whose words bear on an
// earlier session less surely than recall's bar gets one compact line
// naming it (when, title, where); small talk gets nothing, in English,
// Chinese and Spanish; a strong match gets its passage.
func TestRecallInTwoStrengths(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	old := time.Date(2026, 9, 3, 10, 0, 0, 0, time.UTC)
	path := writeEpisode(t, e, p, "pay1", "retry the payment webhook", old,
		note{Turn: 1, Kind: "prompt", Text: "the stripe webhook for refunds times out under load; add retries with backoff to the payment webhook handler"},
		note{Turn: 1, Kind: "answer", Text: "Added exponential backoff (3 tries) in internal/payments/webhook.go; refunds now retry on 5xx."},
	)
	chores(t, e, p, old.AddDate(0, 1, 0))
	// Words many sessions share weigh less: a prompt of those only is a
	// weaker match (ten sessions: its words weigh 90-100% of the bar).
	for i := range 10 {
		writeEpisode(t, e, p, fmt.Sprintf("dep%d", i), fmt.Sprintf("deploy the service %d", i), old.AddDate(0, 0, -i-10),
			note{Turn: 1, Kind: "prompt", Text: fmt.Sprintf("deploy the staging service number %d", i)})
	}
	Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "now"})
	strong := promptIn(t, e, repo, "s-strong", "the stripe refund webhook times out again, did we add backoff retries?")
	if !strings.Contains(strong, "exponential backoff") || !strings.Contains(strong, path) {
		t.Fatalf("a strong match is not recalled as a passage:\n%s", strong)
	}
	if got := promptIn(t, e, repo, "s-weaker", "staging deploy"); got != "" {
		t.Errorf("a match well short of the bar (two-thirds of it) was given memory:\n%s", got)
	}
	weak := promptIn(t, e, repo, "s-weak", "staging deploy service")
	lines := strings.Split(weak, "\n")
	if !strings.HasPrefix(weak, pointerHead) || len(lines) != 2 || !strings.Contains(weak, "session \"deploy the service") || strings.Contains(weak, "number") {
		t.Fatalf("a weaker match is not one line naming the session:\n%s", weak)
	}
	if at := strings.LastIndex(lines[1], " — "); at < 0 || len([]rune(lines[1][:at])) > 120 {
		t.Errorf("the line is more than 120 characters before its path: %s", lines[1])
	}
	for i, small := range []string{"thanks, that looks great!", "好的，谢谢你", "vale, muchas gracias", "ok let's continue", "继续吧", "perfecto, sigamos"} {
		if got := promptIn(t, e, repo, fmt.Sprintf("s-small-%d", i), small); got != "" {
			t.Errorf("small talk %q was given memory:\n%s", small, got)
		}
	}
}

// TestRecallDoesNotRepeatARule (issue 51, finding 3): a passage that says
// what one of the user's accepted rules says is not recalled beside it.
func TestRecallDoesNotRepeatARule(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	old := time.Date(2026, 9, 3, 10, 0, 0, 0, time.UTC)
	for i := range 3 {
		writeEpisode(t, e, p, fmt.Sprintf("b%d", i), fmt.Sprintf("invoice work %d", i), old.AddDate(0, 0, i),
			note{Turn: 1, Kind: "prompt", Text: "npm test fails: Cannot find module '../dist/invoice.js'"},
			note{Turn: 1, Kind: "answer", Text: "npm test: Error: Cannot find module '../dist/invoice.js' (run `npm run build` before `npm test`)"})
	}
	chores(t, e, p, old.AddDate(0, 1, 0))
	rule := filepath.Join(e.LearnedDir(), "feedback", "build-first.md")
	storetest.Mkfile(t, rule, "---\nname: build-first\ndescription: run `npm run build` before `npm test`\ntype: feedback\n---\nrun `npm run build` before `npm test`\n")
	before := promptIn(t, e, repo, "s-before", "npm test cannot find module dist/invoice.js, why?")
	if !strings.Contains(before, "Cannot find module") {
		t.Fatalf("without the rule, the passage is not recalled:\n%s", before)
	}
	provenancetest.Entries(t, e, rule)
	if got := promptIn(t, e, repo, "s-after", "npm test cannot find module dist/invoice.js, why?"); strings.Contains(got, "Cannot find module") {
		t.Errorf("the passage is recalled beside the rule that says it:\n%s", got)
	}
}

// TestStaleMemoryIsMarked (issue 48): a line of the project's memory or a
// recalled passage that names a file or a make target the working tree no
// longer has is marked at injection; what is there is not.
func TestStaleMemoryIsMarked(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	storetest.Mkfile(t, filepath.Join(repo, "web", "new.ts"), "x")
	storetest.Mkfile(t, filepath.Join(repo, "Makefile"), "build:\n\tgo build\n")
	storetest.Mkfile(t, filepath.Join(repo, ".claude", "memory", "MEMORY.md"),
		"- The checkout page lives in web/checkout/old-page.tsx\n- The entry point is web/new.ts\n- Release with make release-candidate\n- Build with make build\n")
	blk := Compose(context.Background(), e, StartRequest{Cwd: repo, Source: "startup"}).Block.Text
	for _, want := range []string{"web/checkout/old-page.tsx (not in the working tree now: web/checkout/old-page.tsx;", "make release-candidate (not in the working tree now: make release-candidate;"} {
		if !strings.Contains(blk, want) {
			t.Errorf("not marked: %q\n%s", want, blk)
		}
	}
	for _, l := range strings.Split(blk, "\n") {
		if (strings.Contains(l, "web/new.ts") || strings.Contains(l, "make build")) && strings.Contains(l, "not in the working tree") {
			t.Errorf("marked though it is there: %s", l)
		}
	}
	old := time.Date(2026, 9, 3, 10, 0, 0, 0, time.UTC)
	writeEpisode(t, e, p, "co1", "fix the checkout page", old,
		note{Turn: 1, Kind: "prompt", Text: "the checkout total rounds wrong"},
		note{Turn: 1, Kind: "answer", Text: "Fixed the rounding of the checkout total in web/checkout/old-page.tsx (cents, not floats)."})
	chores(t, e, p, old.AddDate(0, 1, 0))
	Start(context.Background(), e, StartRequest{Cwd: repo, Source: "startup", SessionID: "now"})
	got := promptIn(t, e, repo, "now", "the checkout total rounds wrong again, where did we fix the rounding?")
	if !strings.Contains(got, "not in the working tree now: web/checkout/old-page.tsx") {
		t.Errorf("the recalled passage is not marked:\n%s", got)
	}
}

// TestRecalledSessionSaysWhatChangedSince (issue 48): a recalled session
// says how many of the files it changed have changed (or gone) since it
// ended.
func TestRecalledSessionSaysWhatChangedSince(t *testing.T) {
	e := storetest.Env(t)
	repo, p := storetest.Repo(t, e, "shop")
	storetest.Mkfile(t, filepath.Join(repo, "web", "cart.ts"), "x")
	storetest.Mkfile(t, filepath.Join(repo, "web", "total.ts"), "x")
	ended := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(repo, "web", "total.ts"), ended.Add(-time.Minute), ended.Add(-time.Minute))
	ep := filepath.Join(e.EpisodesDir(p.Key), "20261101T090000Z-s1.json")
	storetest.Mkfile(t, ep, fmt.Sprintf(`{"session_id":"s1","title":"cart totals","ended_at":%q,"files_changed":["web/cart.ts","web/total.ts","web/gone.ts"]}`, ended.UTC().Format(time.RFC3339)))
	text, _ := recallText([]search.Hit{{Kind: search.KindEpisode, Path: ep, Turn: 1, Title: "cart totals", Snippet: "rounded the cart total"}}, "cart total", 2000, stale.New(repo))
	if !strings.Contains(text, "2 of the 3 files it changed changed since") {
		t.Errorf("the recalled session does not say what changed since:\n%s", text)
	}
}
