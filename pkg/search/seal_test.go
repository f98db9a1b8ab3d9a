package search

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestForgottenRecordsStayForgotten: a retired or archived record (what
// `ccmem forget` reports as kept for good, never injected) is not found by
// search or recalled for a prompt, unless a search asks for forgotten
// memory; an active one is.
func TestForgottenRecordsStayForgotten(t *testing.T) {
	w := newWorld(t)
	dir := filepath.Join(w.root, ".claude", "memory", "records", "decision")
	for id, status := range map[string]string{"kafka": "retired", "rabbit": "archived"} {
		storetest.Mkfile(t, filepath.Join(dir, id+".json"), `{"schema_version":"1.0","category":"decision","id":"`+id+`","title":"Use `+id+` for the zeppelin events","created_at":"2026-11-01T00:00:00Z","updated_at":"2026-11-01T00:00:00Z","tags":["events"],"related_files":[],"confidence":0.9,"record_status":"`+status+`","changes":[{"date":"2026-11-01T00:00:00Z","summary":"created"}],"times_updated":0,"content":{"status":"accepted","context":"zeppelin events","decision":"`+id+`","alternatives":[],"rationale":["x"],"consequences":[]}}`)
	}
	for _, q := range []string{"zeppelin events kafka", "zeppelin events rabbit"} {
		if hits := w.search(t, q, Options{}); len(hits) != 0 {
			t.Errorf("search %q found forgotten records: %+v", q, hits)
		}
		recalled, err := Recall(context.Background(), w.e, "which broker do we use for the zeppelin events, kafka or rabbit?", RecallOptions{Scope: ScopeOf(&w.p, false), MaxItems: 5, MinScore: 0, MinMatched: 0})
		if err != nil || len(recalled) != 0 {
			t.Errorf("recall found forgotten records: %+v, %v", recalled, err)
		}
		if hits := w.search(t, q, Options{Forgotten: true}); len(hits) == 0 || !strings.Contains(hits[0].Snippet, "(re") && !strings.Contains(hits[0].Snippet, "(archived)") {
			t.Errorf("search %q asking for forgotten memory: %+v", q, hits)
		}
	}
}

// TestDamagedIndexIsNeverTrusted: whichever byte of an index file is
// changed, search answers from the files (the damaged unit is rebuilt), and
// never with an error or a time JSON cannot write — for a file read whole
// and for one read in parts.
func TestDamagedIndexIsNeverTrusted(t *testing.T) {
	for _, whole := range []int64{256 << 10, 0} {
		saved := wholeRead
		wholeRead = whole
		w := newWorld(t)
		want := w.search(t, "payment retry client", Options{})
		if len(want) == 0 {
			t.Fatal("no hit")
		}
		files, _ := filepath.Glob(filepath.Join(Dir(w.e), "p-*-episodes.*.idx"))
		if len(files) == 0 {
			t.Fatal("no episode index")
		}
		for _, f := range files {
			good, _ := os.ReadFile(f)
			for i := 0; i < len(good); i += 1 + i/64 {
				bad := append([]byte(nil), good...)
				bad[i] ^= 0x5a
				if err := os.WriteFile(f, bad, 0o600); err != nil {
					t.Fatal(err)
				}
				for _, quick := range []bool{true, false} {
					got := w.search(t, "payment retry client", Options{Quick: quick})
					if _, err := json.Marshal(got); err != nil {
						t.Fatalf("byte %d of %s flipped: %v", i, filepath.Base(f), err)
					}
					if len(got) != len(want) || got[0].Path != want[0].Path || got[0].Title != want[0].Title {
						t.Fatalf("byte %d of %s flipped (whole read %d, quick %v): got %+v, want %+v", i, filepath.Base(f), whole, quick, got, want)
					}
				}
				os.WriteFile(f, good, 0o600)
			}
		}
		wholeRead = saved
	}
}

// FuzzReader: no index file, however crafted (offsets that wrap, counts
// past the end), makes reading it panic.
func FuzzReader(f *testing.F) {
	w := newWorld(f)
	w.search(f, "payment retry", Options{})
	files, _ := filepath.Glob(filepath.Join(Dir(w.e), "*.idx"))
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := readerOf(data)
		if err != nil {
			return
		}
		acc := newAccumulator(r.nDocs)
		top := &topK{keep: 50}
		var terms []string
		for term := range r.dict {
			terms = append(terms, term)
		}
		idf, share := make([]float64, len(terms)), make([]float64, len(terms))
		for i := range idf {
			idf[i], share[i] = 1, 1/float64(len(terms)+1)
		}
		scoreUnit(r, terms, make([]bool, len(terms)), idf, share, acc, top, nil, 0)
		for _, c := range top.sorted() {
			r.key(c.doc)
			r.doc(c.doc)
		}
	})
}

// TestRecallReadsTheHeadOfAHugePrompt: a prompt of megabytes (a pasted
// log) is read for recall only as far as maxRecallPrompt, so its cost is
// bounded whatever its size: words past that point are not looked up.
func TestRecallReadsTheHeadOfAHugePrompt(t *testing.T) {
	w := newWorld(t)
	filler := strings.Repeat("zq ", 20<<20/3) // 20 MB of a word found nowhere
	opt := RecallOptions{Scope: ScopeOf(&w.p, false), MaxItems: 5, MinScore: 0.1, MinMatched: 0.01}
	hits, err := Recall(context.Background(), w.e, "payment client retry "+filler, opt)
	if err != nil || len(hits) == 0 {
		t.Fatalf("words at the start: %+v, %v", hits, err)
	}
	hits, err = Recall(context.Background(), w.e, filler+" payment client retry", opt)
	if err != nil || len(hits) != 0 {
		t.Fatalf("words 20 MB in were read: %+v, %v", hits, err)
	}
}
