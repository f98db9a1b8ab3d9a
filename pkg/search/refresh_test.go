package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRefreshMakesTheIndexCurrent: a store never searched is stale; a
// refresh builds every unit and leaves it current; a new session makes it
// stale again, and the next refresh rebuilds only its bucket.
func TestRefreshMakesTheIndexCurrent(t *testing.T) {
	w := newWorld(t)
	sc := ScopeOf(&w.p, false)
	if !Stale(w.e, sc) {
		t.Fatal("an index never built should be stale")
	}
	rep, err := Refresh(context.Background(), w.e, sc)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Built == 0 || rep.Built > rep.Units {
		t.Fatalf("refresh built %d of %d units", rep.Built, rep.Units)
	}
	if Stale(w.e, sc) {
		t.Fatal("stale right after a refresh")
	}
	if Building(w.e) {
		t.Fatal("a finished refresh still says it is building")
	}
	time.Sleep(10 * time.Millisecond) // a folder's new modification time
	w.episode(t, "episodes", "20261125T100000Z-s9.json", "rotate the webhook signing secret", time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC), "hooks/sign.go")
	if !Stale(w.e, sc) {
		t.Fatal("a new session should make the index stale")
	}
	rep, err = Refresh(context.Background(), w.e, sc)
	if err != nil || rep.Built != 1 {
		t.Fatalf("refresh after one new session built %d units (err %v), want 1", rep.Built, err)
	}
	if Stale(w.e, sc) {
		t.Fatal("stale after the second refresh")
	}
}

// TestPromptNeverBuildsWhileARefreshRuns: while a refresh is building the
// index, a prompt builds nothing (the new session is not found yet, and no
// index file is written); once it is done, the prompt builds what fits in
// its allowance.
func TestPromptNeverBuildsWhileARefreshRuns(t *testing.T) {
	w := newWorld(t)
	sc := ScopeOf(&w.p, false)
	if _, err := Refresh(context.Background(), w.e, sc); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	w.episode(t, "episodes", "20261125T100000Z-s9.json", "rotate the webhook signing secret", time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC), "hooks/sign.go")
	marker := filepath.Join(Dir(w.e), buildingName)
	if err := os.WriteFile(marker, []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := indexFiles(t, w)
	refreshed := 0
	o := RecallOptions{Scope: sc, MaxItems: 3, Refresh: func() { refreshed++ }}
	hits, err := Recall(context.Background(), w.e, "rotate the webhook signing secret", o)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 {
		t.Fatalf("while building, the prompt found what is not indexed yet: %+v", hits)
	}
	if after := indexFiles(t, w); after != before {
		t.Fatalf("a prompt built the index while a refresh ran:\n%s\n---\n%s", before, after)
	}
	if refreshed != 0 {
		t.Fatal("a prompt started a refresh while one runs")
	}
	os.Remove(marker)
	hits, err = Recall(context.Background(), w.e, "rotate the webhook signing secret", o)
	if err != nil || len(hits) == 0 || filepath.Base(hits[0].Path) != "20261125T100000Z-s9.json" {
		t.Fatalf("after the refresh, a small change is built within the allowance: %+v, %v", hits, err)
	}
	if refreshed != 0 {
		t.Fatal("a prompt that built what it needed started a refresh")
	}
}

// TestPromptLeavesABigBuildToTheRefresh: what cannot be built within the
// prompt's allowance is left out, and the prompt asks for a background
// refresh, once.
func TestPromptLeavesABigBuildToTheRefresh(t *testing.T) {
	w := newWorld(t)
	for i := 0; i < 120; i++ {
		goal := fmt.Sprintf("tune the cache eviction policy %d", i)
		if i == 57 {
			goal = "switch the session cache to LFU eviction"
		}
		w.episode(t, "archive", fmt.Sprintf("20260901T%06dZ-b%03d.json", i, i), goal, time.Date(2026, 9, 1, 0, 0, i, 0, time.UTC), "cache/evict.go")
	}
	TestOnlyReadDelay = 5 * time.Millisecond // 120 files: 600 ms against 100
	defer func() { TestOnlyReadDelay = 0 }()
	sc := ScopeOf(&w.p, false)
	refreshed := 0
	o := RecallOptions{Scope: sc, MaxItems: 3, Refresh: func() { refreshed++ }}
	start := time.Now()
	if _, err := Recall(context.Background(), w.e, "which cache eviction policy did we pick?", o); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if refreshed != 1 {
		t.Fatalf("the prompt asked for %d refreshes, want 1", refreshed)
	}
	if m, _ := filepath.Glob(filepath.Join(Dir(w.e), "*archive*.idx")); len(m) == len(nonEmptyBuckets(t, w)) {
		t.Fatalf("every archive bucket was built in the prompt (%d), in %v", len(m), took)
	}
	TestOnlyReadDelay = 0
	rep, err := Refresh(context.Background(), w.e, sc)
	if err != nil || rep.Built == 0 {
		t.Fatalf("the refresh built %d (err %v)", rep.Built, err)
	}
	refreshed = 0
	hits, err := Recall(context.Background(), w.e, "why did we switch to LFU?", o)
	if err != nil || len(hits) == 0 || filepath.Base(hits[0].Path) != "20260901T000057Z-b057.json" || refreshed != 0 {
		t.Fatalf("after the refresh: %d hits, %d refreshes, err %v", len(hits), refreshed, err)
	}
}

// indexFiles lists the index folder's files with their sizes and times.
func indexFiles(t *testing.T, w *world) string {
	t.Helper()
	ents, err := os.ReadDir(Dir(w.e))
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, de := range ents {
		fi, err := de.Info()
		if err != nil || de.Name() == buildingName {
			continue
		}
		out += fmt.Sprintf("%s %d %d\n", de.Name(), fi.Size(), fi.ModTime().UnixNano())
	}
	return out
}

// nonEmptyBuckets lists the archive's buckets that hold files.
func nonEmptyBuckets(t *testing.T, w *world) map[int]bool {
	t.Helper()
	ents, err := os.ReadDir(w.e.EpisodeArchiveDir(w.p.Key))
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]bool{}
	for _, de := range ents {
		out[bucketOf(de.Name(), archiveBuckets)] = true
	}
	return out
}

// TestPromptLeavesABigMemoryFileToTheRefresh (issue 49, finding 6): a
// MEMORY.md of megabytes, edited mid-session, is not indexed inside the
// prompt (that took seconds, past the hook's deadline): the prompt
// searches without it and asks for a background refresh, which indexes
// it; a search that is not bounded (ccmem search) indexes it itself.
func TestPromptLeavesABigMemoryFileToTheRefresh(t *testing.T) {
	w := newWorld(t)
	sc := ScopeOf(&w.p, false)
	if _, err := Refresh(context.Background(), w.e, sc); err != nil {
		t.Fatal(err)
	}
	var b []byte
	for i := 0; len(b) <= maxInlineFile; i++ {
		b = fmt.Appendf(b, "- line %d about the invoice pipeline and the nightly export\n", i)
	}
	b = append(b, "- the quokka exporter writes to s3 bucket heron-exports\n"...)
	if err := os.WriteFile(w.e.GlobalMemory(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	refreshed := 0
	o := RecallOptions{Scope: sc, MaxItems: 3, Refresh: func() { refreshed++ }}
	hits, err := Recall(context.Background(), w.e, "where does the quokka exporter write?", o)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 || refreshed != 1 {
		t.Fatalf("the prompt indexed a %d KB memory file itself (%d hits), or asked for %d refreshes", len(b)>>10, len(hits), refreshed)
	}
	if _, err := Refresh(context.Background(), w.e, sc); err != nil {
		t.Fatal(err)
	}
	refreshed = 0
	hits, err = Recall(context.Background(), w.e, "where does the quokka exporter write?", o)
	if err != nil || len(hits) == 0 || hits[0].Kind != KindGlobal || refreshed != 0 {
		t.Fatalf("after the refresh: %+v, %d refreshes, err %v", hits, refreshed, err)
	}
}
