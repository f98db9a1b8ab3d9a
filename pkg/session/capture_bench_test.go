package session

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
	"github.com/ccmem/ccmem/pkg/transcript/transcriptgen"
)

// benchTranscript writes a transcript of about size bytes with the mix of a
// real one (see transcriptgen).
func benchTranscript(tb testing.TB, path string, size int64) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := transcriptgen.Write(f, size, rand.New(rand.NewSource(1))); err != nil {
		tb.Fatal(err)
	}
}

// appendKB appends about 1 KB: one more prompt and answer.
func appendKB(tb testing.TB, path string, i int) {
	tb.Helper()
	line := fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"follow-up %d %s"},"timestamp":"2026-11-22T10:00:00Z"}`+"\n"+
		`{"type":"assistant","message":{"id":"f%d","model":"m","content":[{"type":"text","text":"%s"}]},"timestamp":"2026-11-22T10:00:01Z"}`+"\n",
		i, strings.Repeat("x", 400), i, strings.Repeat("y", 400))
	storetest.Append(tb, path, []byte(line))
}

type stopBench struct {
	e    store.Env
	repo string
	tr   string
}

func newStopBench(b *testing.B, size int64) *stopBench {
	b.Helper()
	dir := b.TempDir()
	e, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return dir
		}
		return ""
	})
	if err != nil {
		b.Fatal(err)
	}
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	s := &stopBench{e: e, repo: repo, tr: filepath.Join(dir, "t.jsonl")}
	benchTranscript(b, s.tr, size)
	return s
}

func (s *stopBench) capture(b *testing.B) time.Duration {
	start := time.Now()
	if _, err := Capture(context.Background(), s.e, CaptureRequest{Turn: Turn{SessionID: "s", TranscriptPath: s.tr, Cwd: s.repo}}); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// BenchmarkStopAppend1KB measures the Stop capture after 1 KB was appended
// to a 100 MB transcript and to a 1 MB one, in turn, and reports both
// medians and their ratio: reading is incremental when the ratio is near 1.
// It also reports the first pass over each in MB/s.
//
//	go test -run '^$' -bench StopAppend1KB -benchtime 20x ./pkg/memory
func BenchmarkStopAppend1KB(b *testing.B) {
	small := newStopBench(b, 1<<20)
	large := newStopBench(b, 100<<20)
	first := large.capture(b)
	small.capture(b)
	fi, _ := os.Stat(large.tr)

	var ds, dl []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		appendKB(b, small.tr, i)
		appendKB(b, large.tr, i)
		b.StartTimer()
		ds = append(ds, small.capture(b))
		dl = append(dl, large.capture(b))
	}
	b.StopTimer()
	ms, ml := median(ds), median(dl)
	b.ReportMetric(float64(ms.Microseconds())/1000, "ms-1MB")
	b.ReportMetric(float64(ml.Microseconds())/1000, "ms-100MB")
	b.ReportMetric(float64(ml)/float64(ms), "ratio-100MB/1MB")
	b.ReportMetric(float64(fi.Size())/(1<<20)/first.Seconds(), "first-pass-MB/s")
}

// BenchmarkStopFirstPass reads a fresh 100 MB transcript each iteration.
func BenchmarkStopFirstPass(b *testing.B) {
	s := newStopBench(b, 100<<20)
	fi, _ := os.Stat(s.tr)
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.RemoveAll(filepath.Join(s.e.Store, "projects"))
		b.StartTimer()
		s.capture(b)
	}
}
