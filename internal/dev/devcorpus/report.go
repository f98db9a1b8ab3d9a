package devcorpus

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ccmem/ccmem/internal/dev/evalset"
)

// Targets on the held-out split, per language (issue 39).
const (
	TargetTalkGiven    = 0.05
	TargetTasksGiven   = 0.35
	TargetTasksRelated = 0.75
)

// ReplayReport is the replay's outcomes.
type ReplayReport struct {
	Outcomes []Outcome
	// Asked counts the prompts asked; Mispredicted those (by id) for
	// which ccmem show --recall did not predict what the hooks gave.
	Asked        int
	Mispredicted []string
}

// Row is one split and language's figures.
type Row struct {
	Split, Lang string
	Talk, Tasks int
	// Answerable counts the tasks an earlier session bears on.
	Answerable int
	// TalkGiven and TalkBM25, TalkGrep: small talk given memory by ccmem's
	// recall, and how often plain BM25 and grep find anything for it (a
	// baseline speaks whenever a word matches).
	TalkGiven, TalkBM25, TalkGrep int
	// TasksGiven: tasks recall gave memory; Related, Partly: of those, how
	// many got a related (partly related) session first.
	TasksGiven, Related, Partly int
	// TalkPointer and TasksPointer: of those given memory, how many were
	// given one line naming a session (a weaker match), not passages.
	TalkPointer, TasksPointer int
	// AnsGiven: answerable tasks given memory.
	AnsGiven int
	// Measured: prompts given memory whose own session was found; Used:
	// of those, the ones whose session went on to use what was named;
	// index 0 for passages, 1 for one-line pointers.
	Measured, Used [2]int
	// Hit1 of each ranker over the answerable tasks: its first session is
	// related; Hit5 likewise in its first five.
	Hit1, Hit5 map[string]int
}

// Rankers the report shows, in order.
var Rankers = []string{"ccmem recall", "ccmem search", "BM25", "grep"}

// Associations is the bound on associations from each split's history
// (see evalset.Reach), over its answerable tasks.
func (r *ReplayReport) Associations() []evalset.AssociationReport {
	at := map[string]*evalset.AssociationReport{}
	var order []string
	for _, o := range r.Outcomes {
		if !o.Label.Answerable() {
			continue
		}
		k := "real people's " + o.Split + " " + o.Lang
		if at[k] == nil {
			at[k] = &evalset.AssociationReport{Corpus: k}
			order = append(order, k)
		}
		at[k].Add(o.Gap, o.Reached, o.Others)
	}
	sort.Strings(order)
	var out []evalset.AssociationReport
	for _, k := range order {
		out = append(out, *at[k])
	}
	return out
}

// Rows are the figures per split and language.
func (r *ReplayReport) Rows() []Row {
	at := map[[2]string]*Row{}
	var keys [][2]string
	for _, o := range r.Outcomes {
		k := [2]string{o.Split, o.Lang}
		row := at[k]
		if row == nil {
			row = &Row{Split: o.Split, Lang: o.Lang, Hit1: map[string]int{}, Hit5: map[string]int{}}
			at[k] = row
			keys = append(keys, k)
		}
		if o.Measured {
			k := 0
			if o.Pointer {
				k = 1
			}
			row.Measured[k]++
			if o.Used {
				row.Used[k]++
			}
		}
		if o.Label.Kind == KindTalk {
			row.Talk++
			if len(o.Recalled) > 0 {
				row.TalkGiven++
				if o.Pointer {
					row.TalkPointer++
				}
			}
			if len(o.BM25) > 0 {
				row.TalkBM25++
			}
			if len(o.Grep) > 0 {
				row.TalkGrep++
			}
			continue
		}
		row.Tasks++
		if len(o.Recalled) > 0 {
			row.TasksGiven++
			if o.Pointer {
				row.TasksPointer++
			}
			switch o.Label.relation(o.Recalled[0]) {
			case related:
				row.Related++
			case partly:
				row.Partly++
			}
		}
		if !o.Label.Answerable() {
			continue
		}
		row.Answerable++
		if len(o.Recalled) > 0 {
			row.AnsGiven++
		}
		for name, ranked := range map[string][]string{"ccmem recall": o.Recalled, "ccmem search": o.Search, "BM25": o.BM25, "grep": o.Grep} {
			for i, sid := range ranked[:min(5, len(ranked))] {
				if o.Label.relation(sid) == related {
					if i == 0 {
						row.Hit1[name]++
					}
					row.Hit5[name]++
					break
				}
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	out := make([]Row, len(keys))
	for i, k := range keys {
		out[i] = *at[k]
	}
	return out
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Print writes the report: per split and language, small talk given memory
// (ccmem, and how often BM25 and grep would find something), tasks given
// memory and how many of those got a related session first, then each
// ranker's first session over the tasks an earlier session bears on.
func (r *ReplayReport) Print(w io.Writer) {
	rows := r.Rows()
	fmt.Fprintf(w, "real people's prompts, replayed in time order (each against the sessions of its folder that ended before it)\n")
	fmt.Fprintf(w, "  %-9s %-4s %5s %10s %6s %6s  %5s %10s %8s %7s %8s %7s  %5s %7s  %22s\n", "split", "lang", "talk", "given mem.", "BM25", "grep",
		"tasks", "given mem.", "passage", "1-line", "related", "partly", "ans.", "silent", "use: passages · 1-line")
	for _, row := range rows {
		verdict := ""
		if row.Split == HeldOut {
			ok := ratio(row.TalkGiven, row.Talk) <= TargetTalkGiven && ratio(row.TasksGiven, row.Tasks) >= TargetTasksGiven && ratio(row.Related+row.Partly, row.TasksGiven) >= TargetTasksRelated
			verdict = map[bool]string{true: "PASS", false: "MISS"}[ok]
		}
		fmt.Fprintf(w, "  %-9s %-4s %5d %10.3f %6.3f %6.3f  %5d %10.3f %8d %7d %8.3f %7.3f  %5d %7.3f  %22s  %s\n", row.Split, row.Lang, row.Talk, ratio(row.TalkGiven, row.Talk),
			ratio(row.TalkBM25, row.Talk), ratio(row.TalkGrep, row.Talk), row.Tasks, ratio(row.TasksGiven, row.Tasks), row.TasksGiven-row.TasksPointer, row.TasksPointer,
			ratio(row.Related, row.TasksGiven), ratio(row.Partly, row.TasksGiven), row.Answerable, 1-ratio(row.AnsGiven, row.Answerable),
			fmt.Sprintf("%d/%d · %d/%d", row.Used[0], row.Measured[0], row.Used[1], row.Measured[1]), verdict)
	}
	fmt.Fprintf(w, "  targets on held-out, per language: small talk given memory ≤ %.2f; tasks given memory ≥ %.2f, ≥ %.0f%% of those related or partly\n",
		TargetTalkGiven, TargetTasksGiven, 100*TargetTasksRelated)
	fmt.Fprintf(w, "  (related: the first session recalled bears on the task, by the labels; partly: on part of it; the rest are unrelated: noise;\n")
	fmt.Fprintf(w, "   passage / 1-line: tasks given recalled passages / one line naming a weaker match; ans.: tasks an earlier session bears on, silent: the share of those given nothing;\n")
	fmt.Fprintf(w, "   use: prompts given memory whose own session, which went on without it, read it or used what it named, of those whose session was found)\n")
	fmt.Fprintf(w, "  ccmem show --recall predicted what the hooks gave on %d of %d prompts", r.Asked-len(r.Mispredicted), r.Asked)
	if len(r.Mispredicted) > 0 {
		fmt.Fprintf(w, " (not on %s)", strings.Join(r.Mispredicted, ", "))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "\n  tasks an earlier session bears on: the first session (@1) and any of the first five (@5) related\n")
	fmt.Fprintf(w, "  %-9s %-4s %5s", "split", "lang", "tasks")
	for _, name := range Rankers {
		fmt.Fprintf(w, " %15s %15s", name+" @1", name+" @5")
	}
	fmt.Fprintln(w)
	for _, row := range rows {
		fmt.Fprintf(w, "  %-9s %-4s %5d", row.Split, row.Lang, row.Answerable)
		for _, name := range Rankers {
			fmt.Fprintf(w, " %15.3f %15.3f", ratio(row.Hit1[name], row.Answerable), ratio(row.Hit5[name], row.Answerable))
		}
		fmt.Fprintln(w)
	}
}
