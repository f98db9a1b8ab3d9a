package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ccmem/ccmem/internal/dev/devcorpus"
	"github.com/ccmem/ccmem/internal/dev/evalset"
	"github.com/ccmem/ccmem/internal/dev/recallset"
	"github.com/ccmem/ccmem/internal/dev/staleset"
	"github.com/ccmem/ccmem/pkg/config"
)

// recallSeeds are the corpora the precision report averages over: the
// memories are the same, the filler around them differs.
var recallSeeds = []int64{1, 2, 3, 4, 5}

// realCorpus prints the replay of real people's prompts (see
// internal/dev/devcorpus), or how to lay the corpus out when it is not.
func realCorpus() (*devcorpus.ReplayReport, error) {
	dir := devcorpus.DefaultDir()
	for _, s := range devcorpus.Sources {
		if _, err := devcorpus.Load(dir, s); err != nil {
			fmt.Printf("real people's prompts: not laid out under %s (%v); go run ./scripts/devcorpus lay lays it out from the sources' snapshots\n", dir, err)
			return nil, nil
		}
	}
	rep, err := devcorpus.Replay(context.Background(), dir, devcorpus.Sources, devcorpus.ReplayOptions{})
	if err != nil {
		return nil, err
	}
	rep.Print(os.Stdout)
	return rep, nil
}

// corpusRow is one corpus and split in the table that sets them side by
// side; a figure a corpus cannot give is negative (printed "-").
type corpusRow struct {
	corpus, split                                     string
	search1, search5, bm1, bm5, grep1, grep5, recall5 float64
	silent, talkGiven, tasksGiven, related            float64
	passages, pointers                                int
	use                                               string
}

// printCorpora writes every corpus's figures in one table: search and
// its baselines, per-prompt recall, when it speaks and how.
func printCorpora(ev evalset.Report, chat evalset.ChatReport, real *devcorpus.ReplayReport) {
	var rows []corpusRow
	q := float64(ev.Questions)
	rows = append(rows, corpusRow{corpus: "evaluation (generated)", split: "all", search1: -1, search5: ev.CCMem.AnyAt5, bm1: -1, bm5: ev.BM25.AnyAt5, grep1: -1, grep5: ev.Grep.AnyAt5,
		recall5: ev.Recall.Hit, silent: 1 - float64(ev.Recall.Passages+ev.Recall.Pointers)/q, talkGiven: ev.Recall.FalseInjection,
		tasksGiven: float64(ev.Recall.Passages+ev.Recall.Pointers) / q, related: -1, passages: ev.Recall.Passages, pointers: ev.Recall.Pointers, use: "-"})
	talk, n := 0.0, 0
	for _, v := range chat.FalseInjection {
		talk += v
		n++
	}
	if n > 0 {
		talk /= float64(n)
	}
	for _, split := range []string{"dev", "held"} {
		at := func(name string) *evalset.KindScores { return chat.Rankers[name][split][""] }
		r, g := chat.Recall[split][""], chat.Given[split]
		if r == nil || g == nil || r.N == 0 {
			continue
		}
		given := float64(g[0]+g[1]) / float64(r.N)
		rows = append(rows, corpusRow{corpus: "chat (generated)", split: map[string]string{"dev": "dev", "held": "held-out"}[split],
			search1: at("ccmem search").HitAt1, search5: at("ccmem search").HitAt5, bm1: at("plain BM25 over full text").HitAt1, bm5: at("plain BM25 over full text").HitAt5,
			grep1: at("grep -i over full text").HitAt1, grep5: at("grep -i over full text").HitAt5, recall5: r.HitAt5, silent: 1 - given, talkGiven: talk,
			tasksGiven: given, related: -1, passages: g[0], pointers: g[1], use: "-"})
	}
	if real != nil {
		for _, row := range real.Rows() {
			ratio := func(a, b int) float64 {
				if b == 0 {
					return -1
				}
				return float64(a) / float64(b)
			}
			h := func(m map[string]int, name string) float64 { return ratio(m[name], row.Answerable) }
			rows = append(rows, corpusRow{corpus: "real people's prompts " + row.Lang, split: row.Split,
				search1: h(row.Hit1, "ccmem search"), search5: h(row.Hit5, "ccmem search"), bm1: h(row.Hit1, "BM25"), bm5: h(row.Hit5, "BM25"),
				grep1: h(row.Hit1, "grep"), grep5: h(row.Hit5, "grep"), recall5: h(row.Hit5, "ccmem recall"), silent: 1 - ratio(row.AnsGiven, row.Answerable),
				talkGiven: ratio(row.TalkGiven, row.Talk), tasksGiven: ratio(row.TasksGiven, row.Tasks), related: ratio(row.Related+row.Partly, row.TasksGiven),
				passages: row.TasksGiven - row.TasksPointer, pointers: row.TasksPointer,
				use: fmt.Sprintf("%.0f%% (%d)", 100*ratio(row.Used[0]+row.Used[1], row.Measured[0]+row.Measured[1]), row.Measured[0]+row.Measured[1])})
		}
	}
	f := func(x float64) string {
		if x < 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f", x)
	}
	fmt.Println("every corpus, side by side (search and its baselines over the questions or tasks an earlier session answers; recall as the hook gives it)")
	fmt.Printf("  %-26s %-8s %9s %9s %7s %7s %7s %7s %9s %7s %7s %7s %7s %8s %7s %9s\n", "corpus", "split", "search@1", "search@5", "BM25@1", "BM25@5", "grep@1", "grep@5",
		"recall@5", "silent", "talk", "tasks", "rel.", "passage", "1-line", "use")
	for _, r := range rows {
		fmt.Printf("  %-26s %-8s %9s %9s %7s %7s %7s %7s %9s %7s %7s %7s %7s %8d %7d %9s\n", r.corpus, r.split, f(r.search1), f(r.search5), f(r.bm1), f(r.bm5), f(r.grep1), f(r.grep5),
			f(r.recall5), f(r.silent), f(r.talkGiven), f(r.tasksGiven), f(r.related), r.passages, r.pointers, r.use)
	}
	fmt.Println("  (silent: answerable prompts given nothing; talk: small talk given memory; tasks: prompts given memory; rel.: of those, related or partly by the labels;")
	fmt.Println("   passage / 1-line: prompts given passages / one line naming a weaker match; use: real sessions only, the share whose own session went on to use what")
	fmt.Println("   recall named (it never saw it), of those measured; a generated question has no session after it, so no use)")
}

// recallReport prints the evaluation corpus's figures (ccmem beside its
// baselines), then the precision of search and per-prompt recall on the
// generated corpus, against the targets.
func recallReport(o options) error {
	hooks, _ := filepath.Abs(o.bin)
	if _, err := os.Stat(filepath.Join(hooks, "userpromptsubmit")); err != nil {
		return fmt.Errorf("%s is missing: run `make build` first", filepath.Join(hooks, "userpromptsubmit"))
	}
	dir, err := os.MkdirTemp("", "ccmem-eval-")
	if err != nil {
		return err
	}
	rep, _, err := evalset.Evaluate(dir, hooks, 1)
	os.RemoveAll(dir)
	if err != nil {
		return err
	}
	rep.Print(os.Stdout)
	fmt.Println()
	dir, err = os.MkdirTemp("", "ccmem-chat-")
	if err != nil {
		return err
	}
	chat, _, err := evalset.EvaluateChat(dir, hooks)
	os.RemoveAll(dir)
	if err != nil {
		return err
	}
	chat.PrintChat(os.Stdout)
	fmt.Println()
	real, err := realCorpus()
	if err != nil {
		return err
	}
	fmt.Println()
	dir, err = os.MkdirTemp("", "ccmem-ablation-")
	if err != nil {
		return err
	}
	rows, err := evalset.EvaluateAblation(dir, hooks)
	os.RemoveAll(dir)
	if err != nil {
		return err
	}
	evalset.PrintAblation(os.Stdout, rows)
	fmt.Println()
	cfg := config.Default().Recall
	fmt.Printf("recall precision: %d corpora (seeds %v), per-prompt recall as configured by default (min_score %.1f, min_matched %.2f, max_items %d)\n",
		len(recallSeeds), recallSeeds, cfg.MinScore, cfg.MinMatched, cfg.MaxItems)
	var sum recallset.Report
	worst := recallset.Report{RecallAt1: 1, RecallAt5: 1}
	for _, seed := range recallSeeds {
		dir, err := os.MkdirTemp("", "ccmem-recall-")
		if err != nil {
			return err
		}
		set, err := recallset.Build(dir, seed)
		if err != nil {
			os.RemoveAll(dir)
			return err
		}
		rep, err := recallset.Evaluate(context.Background(), set, recallset.Options(cfg))
		os.RemoveAll(dir)
		if err != nil {
			return err
		}
		fmt.Printf("  seed %d: %d memories, %d queries, %d small-talk prompts: recall@1 %.3f, recall@5 %.3f, per-prompt recall %.3f, false injection %.3f\n",
			seed, rep.Memories, rep.Queries, rep.SmallTalk, rep.RecallAt1, rep.RecallAt5, rep.PromptRecall, rep.FalseInjection)
		for _, m := range rep.Misses {
			fmt.Printf("    %s\n", m)
		}
		sum.RecallAt1 += rep.RecallAt1
		sum.RecallAt5 += rep.RecallAt5
		sum.PromptRecall += rep.PromptRecall
		sum.FalseInjection += rep.FalseInjection
		worst.RecallAt1 = min(worst.RecallAt1, rep.RecallAt1)
		worst.RecallAt5 = min(worst.RecallAt5, rep.RecallAt5)
		worst.FalseInjection = max(worst.FalseInjection, rep.FalseInjection)
	}
	n := float64(len(recallSeeds))
	verdict := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "MISS"
	}
	fmt.Printf("\n  %-22s %8s %8s %10s\n", "measure", "mean", "worst", "target")
	fmt.Printf("  %-22s %8.3f %8.3f %10s  %s\n", "search recall@1", sum.RecallAt1/n, worst.RecallAt1, fmt.Sprintf("≥ %.2f", recallset.TargetRecallAt1), verdict(worst.RecallAt1 >= recallset.TargetRecallAt1))
	fmt.Printf("  %-22s %8.3f %8.3f %10s  %s\n", "search recall@5", sum.RecallAt5/n, worst.RecallAt5, fmt.Sprintf("≥ %.2f", recallset.TargetRecallAt5), verdict(worst.RecallAt5 >= recallset.TargetRecallAt5))
	fmt.Printf("  %-22s %8.3f %8.3f %10s  %s\n", "false injection", sum.FalseInjection/n, worst.FalseInjection, fmt.Sprintf("≤ %.2f", recallset.TargetFalseInjection), verdict(worst.FalseInjection <= recallset.TargetFalseInjection))
	fmt.Printf("  %-22s %8.3f %8s %10s\n", "per-prompt recall", sum.PromptRecall/n, "", "(reported)")
	fmt.Println()
	printCorpora(rep, chat, real)
	fmt.Println()
	assoc := []evalset.AssociationReport{evalset.AssociationBound("chat (generated)", evalset.GenerateChat()), evalset.AssociationBound("coding (generated)", evalset.Generate(1))}
	if real != nil {
		assoc = append(assoc, real.Associations()...)
	}
	evalset.PrintAssociations(os.Stdout, assoc)
	fmt.Println()
	return staleSet()
}

// staleSet prints the staleness set's figures (internal/dev/staleset), or
// how to fetch its repositories when their snapshots are not here.
func staleSet() error {
	mirror := os.Getenv("CCMEM_STALESET_MIRROR")
	if mirror == "" {
		mirror = "/work/.mirror"
	}
	for _, r := range staleset.Repos {
		if _, err := os.Stat(staleset.Snapshot(mirror, r.Name)); err != nil {
			fmt.Printf("staleness set: the snapshot of %s is not under %s; fetch the repositories internal/dev/staleset lists (CCMEM_STALESET_MIRROR names another folder)\n", r.Name, mirror)
			return nil
		}
	}
	work, err := os.MkdirTemp("", "ccmem-staleset-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	res, err := staleset.Measure(mirror, work)
	if err != nil {
		return err
	}
	res.Print(os.Stdout)
	return nil
}
