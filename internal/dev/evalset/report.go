package evalset

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ccmem/ccmem/pkg/config"
)

// Report is one run over the corpus.
type Report struct {
	Sessions, Questions, SmallTalk int
	CCMem, FullText, BM25, Grep    Scores
	Recall                         Recall
	// Budgets is per-prompt recall at other budgets than the default.
	Budgets []Recall
	// Episode sizes (the episode file, digest included), in bytes.
	EpisodeMean, EpisodeMax int
	// Automated is how many automated runs the menus left out, of Runs.
	AutomatedKept, AutomatedRuns int
}

// budgets are the recall budgets (recall.max_chars) measured beside the
// default's.
var budgets = []int{600, 1000, 2500, 4000}

// Evaluate replays the corpus (seed) through the hooks in hooks under dir
// and measures every ranker and per-prompt recall.
func Evaluate(dir, hooks string, seed int64) (Report, *World, error) {
	c := Generate(seed)
	w, err := Replay(dir, hooks, c)
	if err != nil {
		return Report{}, nil, err
	}
	rep := Report{Sessions: len(c.Sessions), Questions: len(c.Questions), SmallTalk: len(c.SmallTalk)}
	rep.CCMem, rep.FullText, rep.BM25, rep.Grep = w.Score(w.CCMem()), w.Score(w.FullText()), w.Score(w.BM25()), w.Score(w.Grep())
	if rep.Recall, err = w.PromptRecall(0); err != nil {
		return rep, w, err
	}
	for _, chars := range budgets {
		b, err := w.PromptRecall(chars)
		if err != nil {
			return rep, w, err
		}
		rep.Budgets = append(rep.Budgets, b)
	}
	var sizes []int
	filepath.Walk(w.Env.ProjectsDir(), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.Contains(p, string(filepath.Separator)+"episodes"+string(filepath.Separator)) && strings.HasSuffix(p, ".json") {
			sizes = append(sizes, int(fi.Size()))
			if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), `"automated": true`) {
				rep.AutomatedKept++
			}
		}
		return nil
	})
	sort.Ints(sizes)
	for _, s := range sizes {
		rep.EpisodeMean += s
	}
	if len(sizes) > 0 {
		rep.EpisodeMean /= len(sizes)
		rep.EpisodeMax = sizes[len(sizes)-1]
	}
	for _, s := range c.Sessions {
		if s.Kind == "automated" {
			rep.AutomatedRuns++
		}
	}
	return rep, w, nil
}

// budgetOf is the recall budget r ran with.
func budgetOf(r Recall) int {
	if r.MaxChars == 0 {
		return config.Default().Recall.MaxChars
	}
	return r.MaxChars
}

// Print writes the report as a table, misses included.
func (r Report) Print(w io.Writer) {
	fmt.Fprintf(w, "evaluation corpus: %d sessions replayed through the hooks, %d questions (en, zh, ja, es), %d small-talk prompts\n",
		r.Sessions, r.Questions, r.SmallTalk)
	fmt.Fprintf(w, "\n  %-34s %9s %9s %7s %7s %7s %7s %7s\n", "ranker (same sessions)", "any@5", "all@5", "MRR", "en", "zh", "ja", "es")
	row := func(name string, s Scores) {
		fmt.Fprintf(w, "  %-34s %9.3f %9.3f %7.3f %7.3f %7.3f %7.3f %7.3f\n", name, s.AnyAt5, s.AllAt5, s.MRR, s.ByLang["en"], s.ByLang["zh"], s.ByLang["ja"], s.ByLang["es"])
	}
	row("ccmem search (what capture kept)", r.CCMem)
	row("ccmem engine over full text", r.FullText)
	row("plain BM25 over full text", r.BM25)
	row("grep -i over full text", r.Grep)
	ratio := 0.0
	if r.FullText.AnyAt5 > 0 {
		ratio = r.CCMem.AnyAt5 / r.FullText.AnyAt5
	}
	fmt.Fprintf(w, "\n  capture fidelity: ccmem search finds %.0f%% as often as its engine over the full text (target ≥ 95%%)\n", 100*ratio)
	fmt.Fprintf(w, "  per-prompt recall: a right session in the recalled context %.3f, in the block or the recall %.3f; the fact itself quoted %.3f; false injection on small talk %.3f\n",
		r.Recall.Hit, r.Recall.BlockOrRecall, r.Recall.Carried, r.Recall.FalseInjection)
	if len(r.Budgets) > 0 {
		fmt.Fprintf(w, "\n  %-34s %9s %9s %9s %9s\n", "recall budget (recall.max_chars)", "session", "fact", "chars", "small talk")
		all := append([]Recall{r.Recall}, r.Budgets...)
		sort.Slice(all, func(i, j int) bool { return budgetOf(all[i]) < budgetOf(all[j]) })
		for _, b := range all {
			name := fmt.Sprint(budgetOf(b))
			if b.MaxChars == 0 {
				name += " (default)"
			}
			fmt.Fprintf(w, "  %-34s %9.3f %9.3f %9d %9.3f\n", name, b.Hit, b.Carried, b.Chars, b.FalseInjection)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  episodes: %d bytes on average, %d at most (digest included); automated runs marked %d of %d\n", r.EpisodeMean, r.EpisodeMax, r.AutomatedKept, r.AutomatedRuns)
	fmt.Fprintf(w, "  store growth for 10,000 sessions: %.0f MB at this corpus's average, %.0f MB if every session reached the 32 KB cap\n",
		float64(r.EpisodeMean)*10000/(1<<20), float64(32<<10)*10000/(1<<20))
	misses := func(name string, list []string) {
		if len(list) == 0 {
			return
		}
		fmt.Fprintf(w, "\n  %s (%d):\n", name, len(list))
		for _, m := range list {
			fmt.Fprintf(w, "    %s\n", m)
		}
	}
	misses("ccmem search missed", r.CCMem.Misses)
	misses("per-prompt recall missed", r.Recall.Misses)
	misses("small talk given recalled memory", r.Recall.Injected)
}
