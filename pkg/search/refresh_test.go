package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/store/storetest"
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

// TestPromptAnswersFromAnOutOfDateIndex: a session rewritten after the
// index was built (as a start finishes the last session's record) makes
// its bucket's index out of date. While a refresh runs the prompt cannot
// rebuild it, yet the bucket's other sessions still answer from it; the
// rewritten session's old text never does, nor a session removed since;
// a listing that is not the index's own trusts nothing.
func TestPromptAnswersFromAnOutOfDateIndex(t *testing.T) {
	w := newWorld(t)
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	// Three sessions in one bucket of the episodes folder.
	var names []string
	for i := 0; len(names) < 3; i++ {
		name := fmt.Sprintf("20261121T1000%02dZ-b%d.json", i%60, i)
		if bucketOf(name, episodeBuckets) == 0 {
			names = append(names, name)
		}
	}
	kept := w.episode(t, "episodes", names[0], "the staging postgres listens on port 6432 behind pgbouncer", at, "docs/staging.md")
	rewritten := w.episode(t, "episodes", names[1], "move the nightly export to the ledger queue", at, "jobs/export.go")
	gone := w.episode(t, "episodes", names[2], "retire the heron dashboard", at, "ops/heron.go")
	sc := ScopeOf(&w.p, false)
	if _, err := Refresh(context.Background(), w.e, sc); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // new modification times
	storetest.Mkfile(t, rewritten, fmt.Sprintf(`{"session_id":%q,"goal":"tidy the changelog","turns":4,"started_at":%q,"outcome":"done"}`, names[1], at.Format(time.RFC3339)))
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(Dir(w.e), buildingName)
	if err := os.WriteFile(marker, []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := RecallOptions{Scope: sc, MaxItems: 3}
	recall := func(prompt string) []Hit {
		t.Helper()
		hits, err := Recall(context.Background(), w.e, prompt, o)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	if hits := recall("which port does the staging postgres listen on behind pgbouncer?"); len(hits) == 0 || hits[0].Path != kept {
		t.Fatalf("an unchanged session of an out-of-date bucket is not recalled: %+v", hits)
	}
	for _, prompt := range []string{"why did we move the nightly export to the ledger queue?", "when did we retire the heron dashboard?"} {
		for _, h := range recall(prompt) {
			if h.Path == rewritten || h.Path == gone {
				t.Fatalf("%q recalled a session from its text before it changed: %+v", prompt, h)
			}
		}
	}
	// A listing that is not the index's own (an earlier build's) trusts nothing.
	idx := filepath.Join(Dir(w.e), "p-"+w.p.Key+"-episodes.0.idx")
	storetest.Mkfile(t, listingPath(idx), `{"stamp":"dir:9:000000000000000000000000","files":{}}`)
	for _, h := range recall("which port does the staging postgres listen on behind pgbouncer?") {
		if h.Path == kept {
			t.Fatalf("a listing of another build was trusted: %+v", h)
		}
	}
	// Once the refresh is done, the prompt builds the bucket and finds
	// what changed.
	os.Remove(marker)
	if hits := recall("who tidied the changelog?"); len(hits) == 0 || hits[0].Path != rewritten {
		t.Fatalf("after the refresh, the rewritten session is not found: %+v", hits)
	}
}

// TestOutOfDateIndexNeverAnswersOldText attacks the listing with
// concurrency: while refreshes rebuild the index and sessions are
// rewritten (each version longer than the last, with a word of its own),
// prompts answer from whatever index and listing they find, current or
// not. A prompt that starts after a session was rewritten never recalls
// its earlier text.
func TestOutOfDateIndexNeverAnswersOldText(t *testing.T) {
	w := newWorld(t)
	sc := ScopeOf(&w.p, false)
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	words := []string{"albatross", "bittern", "cormorant", "dunlin", "egret", "fulmar", "gannet", "heron", "ibis", "jacana", "kittiwake", "lapwing"}
	var paths []string
	for i := range 4 {
		paths = append(paths, w.episode(t, "episodes", fmt.Sprintf("20261121T10000%dZ-r%d.json", i, i), "tune the "+words[i]+" exporter", at, "export.go"))
	}
	if _, err := Refresh(context.Background(), w.e, sc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(Dir(w.e), buildingName), []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // refreshes, one after another, until told
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			_, _ = Refresh(context.Background(), w.e, sc)
			// Refresh removes the marker: put it back, so prompts build
			// nothing and take what they find.
			_ = os.WriteFile(filepath.Join(Dir(w.e), buildingName), []byte("1\n"), 0o600)
		}
	}()
	defer func() { close(stop); <-done }()
	o := RecallOptions{Scope: sc, MaxItems: 3}
	for v := 4; v < len(words); v++ {
		k := v % len(paths)
		old := words[v-len(paths)]
		// The new version: longer than any before, a word of its own.
		goal := "tune the " + words[v] + " exporter" + strings.Repeat(" again", v)
		// Replaced as ccmem's writers replace a record (a new file renamed
		// over it: the folder changes; a file edited in place is trusted by
		// its folder's time until then, by design: see ExplainRecall).
		tmp := paths[k] + ".new"
		storetest.Mkfile(t, tmp, fmt.Sprintf(`{"session_id":"r%d","goal":%q,"turns":3,"files_changed":["export.go"],"started_at":%q,"outcome":"done"}`, k, goal, at.Format(time.RFC3339)))
		if err := os.Rename(tmp, paths[k]); err != nil {
			t.Fatal(err)
		}
		for range 5 {
			hits, err := Recall(context.Background(), w.e, "why did we tune the "+old+" exporter?", o)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if h.Path == paths[k] && strings.Contains(h.Title+" "+h.Snippet, old) {
					t.Fatalf("version %d: a prompt after the rewrite recalled %s as its earlier text: %q", v, filepath.Base(h.Path), h.Title)
				}
			}
		}
	}
}
