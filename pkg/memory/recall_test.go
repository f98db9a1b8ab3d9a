package memory

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/episode"
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
