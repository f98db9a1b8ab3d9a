package session

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/storetest"
	"github.com/ccmem/ccmem/pkg/store"
)

// benchTranscript writes a transcript of about size bytes with the mix of a
// real one: big attachment and api-request lines around user prompts,
// assistant tool calls and tool results.
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
	w := bufio.NewWriterSize(f, 1<<20)
	blob := strings.Repeat("system prompt text, tool listings and environment details ", 300) // ~17 KB
	var written int64
	for i := 0; written < size; i++ {
		ts := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
		lines := []string{
			fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"turn %d: make the payment client retry on 503"},"uuid":"u%d","timestamp":"%s","cwd":"/r","sessionId":"s","version":"2.1.328","gitBranch":"main"}`, i, i, ts),
			fmt.Sprintf(`{"type":"api-request-blob","sessionId":"s","hash":"h%d","message":{"role":"system","content":[{"type":"text","text":%q}]}}`, i, blob),
			fmt.Sprintf(`{"parentUuid":"u%d","isSidechain":false,"message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"t%d","name":"Edit","input":{"file_path":"/r/pkg/f%d.go","old_string":"a","new_string":"b"}}]},"type":"assistant","uuid":"a%d","timestamp":"%s"}`, i, i, i, i%50, i, ts),
			fmt.Sprintf(`{"parentUuid":"a%d","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"t%d","type":"tool_result","content":"The file has been updated."}]},"uuid":"r%d","timestamp":"%s","toolUseResult":{"filePath":"/r/pkg/f%d.go"}}`, i, i, i, ts, i%50),
			fmt.Sprintf(`{"parentUuid":"r%d","isSidechain":false,"attachment":{"type":"file","content":%q},"type":"attachment","uuid":"x%d","timestamp":"%s"}`, i, blob[:4000], i, ts),
			fmt.Sprintf(`{"parentUuid":"r%d","isSidechain":false,"message":{"id":"msg_%db","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"Done with turn %d."}]},"type":"assistant","uuid":"b%d","timestamp":"%s"}`, i, i, i, i, ts),
		}
		for _, l := range lines {
			n, _ := w.WriteString(l + "\n")
			written += int64(n)
		}
	}
	if err := w.Flush(); err != nil {
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
	if _, err := Capture(context.Background(), s.e, CaptureRequest{SessionID: "s", TranscriptPath: s.tr, Cwd: s.repo}); err != nil {
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
