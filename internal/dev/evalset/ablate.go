package evalset

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/store"
)

// AblationRow is the figures of one configuration: every signal, or all
// but one, on the chat corpus (search and per-prompt recall, held-out
// and dev) and on the coding corpus (search).
type AblationRow struct {
	Name string
	// Search and Recall are hit@1 and hit@5 by split.
	Search, Recall map[string][2]float64
	// CodingAt5 and CodingMRR are search on the coding corpus.
	CodingAt5, CodingMRR float64
	// Micros is the median time of one prompt's recall, in process, over
	// the chat questions (the index already built).
	Micros float64
}

// Ablate measures what each signal adds: the chat corpus replayed as it
// is (chat) and without the assistant's openings (bare), and the coding
// corpus (coding), each ranked with every signal and with one switched
// off. Per-prompt recall runs in process, as the hook does (the same
// options by default, the same line budget).
func Ablate(chat, bare, coding *World) []AblationRow {
	type variant struct {
		name string
		off  search.Signal
		w    *World
	}
	variants := []variant{
		{"every signal", 0, chat},
		{"without the openings kept", 0, bare},
		{"without dates", search.SignalDates, chat},
		{"without related words", search.SignalBridge, chat},
		{"related words from the table alone", search.SignalWordNet, chat},
		{"related words from WordNet alone", search.SignalTable, chat},
		{"without the session's score in its passages'", search.SignalSessions, chat},
	}
	var rows []AblationRow
	for _, v := range variants {
		row := AblationRow{Name: v.name, Search: map[string][2]float64{}, Recall: map[string][2]float64{}}
		v.w.off, coding.off = v.off, v.off
		var took []float64
		for _, split := range []string{"held", "dev"} {
			s := v.w.ScoreKinds(v.w.CCMem(), split)[""]
			row.Search[split] = [2]float64{s.HitAt1, s.HitAt5}
			r := v.w.ScoreKinds(v.w.inProcessRecall(v.off, &took), split)[""]
			row.Recall[split] = [2]float64{r.HitAt1, r.HitAt5}
		}
		sort.Float64s(took)
		if len(took) > 0 {
			row.Micros = took[len(took)/2]
		}
		if v.w == chat {
			sc := coding.Score(coding.CCMem())
			row.CodingAt5, row.CodingMRR = sc.AnyAt5, sc.MRR
		} else {
			row.CodingAt5, row.CodingMRR = -1, -1
		}
		v.w.off, coding.off = 0, 0
		rows = append(rows, row)
	}
	return rows
}

// inProcessRecall is per-prompt recall as the hook runs it (default
// options, the line budget), in process: the sessions its lines name, in
// their order. Each call's time is added to took.
func (w *World) inProcessRecall(off search.Signal, took *[]float64) Ranker {
	return func(q Question, project string) []string {
		p, err := store.ResolveProject(w.Env, w.Roots[project])
		if err != nil {
			return nil
		}
		start := time.Now()
		rep, err := search.ExplainRecall(context.Background(), w.Env, q.Text, search.RecallOptions{Scope: search.ScopeOf(&p, false),
			MaxItems: 5, MinScore: 2.5, MinMatched: 0.1, Now: w.askedAt(), Off: off})
		*took = append(*took, float64(time.Since(start).Microseconds()))
		if err != nil {
			return nil
		}
		_, refs := memory.RecallText(rep.Recalled, q.Text, 1500)
		var out []string
		for _, h := range rep.Recalled {
			if !slices.Contains(refs, h.Ref()) {
				continue // over the budget
			}
			if s := w.sessionOfPath(h.Path); s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	}
}

// PrintAblation writes the ablation table.
func PrintAblation(out io.Writer, rows []AblationRow) {
	fmt.Fprintln(out, "what each signal adds (one run; chat corpus hit@1 / hit@5, coding corpus any@5 / MRR; recall in process)")
	fmt.Fprintf(out, "  %-46s %-13s %-13s %-13s %-13s %-13s %s\n", "", "search held", "search dev", "recall held", "recall dev", "coding", "recall µs")
	for _, r := range rows {
		coding := "-"
		if r.CodingAt5 >= 0 {
			coding = fmt.Sprintf("%.3f %.3f", r.CodingAt5, r.CodingMRR)
		}
		fmt.Fprintf(out, "  %-46s %.3f %.3f   %.3f %.3f   %.3f %.3f   %.3f %.3f   %-13s %.0f\n", r.Name,
			r.Search["held"][0], r.Search["held"][1], r.Search["dev"][0], r.Search["dev"][1],
			r.Recall["held"][0], r.Recall["held"][1], r.Recall["dev"][0], r.Recall["dev"][1], coding, r.Micros)
	}
}

// EvaluateAblation replays both corpora (and the chat corpus without its
// openings) under dir and measures every configuration.
func EvaluateAblation(dir, hooks string) ([]AblationRow, error) {
	chat, err := Replay(filepath.Join(dir, "chat"), hooks, GenerateChat())
	if err != nil {
		return nil, err
	}
	bare, err := Replay(filepath.Join(dir, "bare"), hooks, generateChat(false))
	if err != nil {
		return nil, err
	}
	coding, err := Replay(filepath.Join(dir, "coding"), hooks, Generate(1))
	if err != nil {
		return nil, err
	}
	return Ablate(chat, bare, coding), nil
}
