package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ccmem/ccmem/internal/dev/devcorpus"
	"github.com/ccmem/ccmem/internal/dev/evalset"
	"github.com/ccmem/ccmem/internal/dev/recallset"
	"github.com/ccmem/ccmem/pkg/config"
)

// recallSeeds are the corpora the precision report averages over: the
// memories are the same, the filler around them differs.
var recallSeeds = []int64{1, 2, 3, 4, 5}

// realCorpus prints the replay of real people's prompts (see
// internal/dev/devcorpus), or how to lay the corpus out when it is not.
func realCorpus() error {
	dir := devcorpus.DefaultDir()
	for _, s := range devcorpus.Sources {
		if _, err := devcorpus.Load(dir, s); err != nil {
			fmt.Printf("real people's prompts: not laid out under %s (%v); go run ./scripts/devcorpus lay lays it out from the sources' snapshots\n", dir, err)
			return nil
		}
	}
	rep, err := devcorpus.Replay(context.Background(), dir, devcorpus.Sources, devcorpus.ReplayOptions{})
	if err != nil {
		return err
	}
	rep.Print(os.Stdout)
	return nil
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
	if err := realCorpus(); err != nil {
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
	return nil
}
