package evalset

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/memory"
)

// chatBase is the chat corpus's first day; chatAsked when its questions
// are asked, months later.
var (
	chatBase  = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	chatAsked = chatBase.Add(268 * 24 * time.Hour)
)

// GenerateChat builds the chat corpus: each person's sessions as the
// client writes them (the assistant's opening line, when a session has
// one, before any prompt), and the questions with their kind and split.
func GenerateChat() *Corpus { return generateChat(true) }

// generateChat is GenerateChat, with or without the openings (to measure
// what keeping them adds).
func generateChat(openings bool) *Corpus {
	c := &Corpus{FactSession: map[string]string{}, FactText: map[string]string{}, AskedAt: chatAsked, SmallTalkIn: map[string]string{}}
	for _, p := range chatPeople {
		ids := make([]string, len(p.sessions))
		for i, cs := range p.sessions {
			id := fmt.Sprintf("%s-%02d", p.project, i)
			ids[i] = id
			s := &Session{ID: id, Project: p.project, Lang: p.lang, Kind: "person",
				Start: chatBase.Add(time.Duration(cs.day)*24*time.Hour + time.Duration(i%5)*time.Hour)}
			sid := sessionUUID(id)
			l := &line{sid: sid, cwd: "$" + strings.ToUpper(p.project), t: s.Start}
			var text []string
			if cs.opening != "" && openings {
				s.Turns = append(s.Turns, []string{l.assistant([]map[string]any{{"type": "text", "text": cs.opening}})})
				text = append(text, cs.opening)
			}
			for _, t := range cs.turns {
				s.Turns = append(s.Turns, []string{
					l.prompt(t[0], promptOrigin{entrypoint: "cli"}),
					l.assistant([]map[string]any{{"type": "text", "text": t[1]}}),
				})
				text = append(text, t[0], t[1])
			}
			s.Text = strings.Join(text, "\n")
			c.Sessions = append(c.Sessions, s)
		}
		for _, q := range p.questions {
			var sids []string
			for _, a := range q.answers {
				sids = append(sids, ids[a])
			}
			c.Questions = append(c.Questions, Question{Text: q.text, Lang: p.lang, Sessions: sids, All: q.kind == "multihop", Kind: q.kind, Split: q.split})
		}
	}
	byLang := map[string]string{}
	for _, p := range chatPeople {
		byLang[p.lang] = p.project
	}
	for _, st := range append(append([]string{}, chatSmallTalk...), chatTasks...) {
		lang := "en"
		switch {
		case hasRunes(st, 0x3040, 0x30ff):
			lang = "ja"
		case hasRunes(st, 0x4e00, 0x9fff):
			lang = "zh"
		case st == "gracias" || st == "vale" || st == "perfecto":
			lang = "es"
		}
		if slices.Contains(chatTasks, st) {
			c.Unrelated = append(c.Unrelated, st)
		} else {
			c.SmallTalk = append(c.SmallTalk, st)
		}
		c.SmallTalkIn[st] = byLang[lang]
	}
	return c
}

// KindScores are a ranker's figures per kind of question, over one split.
type KindScores struct {
	N              int
	HitAt1, HitAt5 float64 // a right session first; one in the top 5
	AllAt5, MRR    float64
	Misses         []string
}

// ScoreKinds runs a ranker over the questions of one split ("" for all),
// per kind ("" for every kind together).
func (w *World) ScoreKinds(rank Ranker, split string) map[string]*KindScores {
	out := map[string]*KindScores{"": {}}
	for _, q := range w.Corpus.Questions {
		if split != "" && q.Split != split {
			continue
		}
		got := rank(q, w.Corpus.projectOf(q))
		w.scoreOne(out, q, got)
	}
	for _, ks := range out {
		if ks.N > 0 {
			n := float64(ks.N)
			ks.HitAt1, ks.HitAt5, ks.AllAt5, ks.MRR = ks.HitAt1/n, ks.HitAt5/n, ks.AllAt5/n, ks.MRR/n
		}
	}
	return out
}

func (w *World) scoreOne(out map[string]*KindScores, q Question, got []string) {
	for _, k := range []string{"", q.Kind} {
		ks := out[k]
		if ks == nil {
			ks = &KindScores{}
			out[k] = ks
		}
		ks.N++
		top := got[:min(5, len(got))]
		anyHit, allHit := false, true
		for _, want := range q.Sessions {
			if contains(top, want) {
				anyHit = true
			} else {
				allHit = false
			}
		}
		if len(got) > 0 && contains(q.Sessions, got[0]) {
			ks.HitAt1++
		}
		if anyHit {
			ks.HitAt5++
		} else if k == "" {
			ks.Misses = append(ks.Misses, q.Text)
		}
		if allHit {
			ks.AllAt5++
		}
		for i, s := range got {
			if contains(q.Sessions, s) {
				ks.MRR += 1 / float64(i+1)
				break
			}
		}
	}
}

// ChatKinds are the kinds of question, in the order reports show them.
var ChatKinds = []string{"single", "paraphrase", "multihop", "temporal", "opening"}

// ChatReport is one run of the chat corpus: each ranker per split and kind,
// and per-prompt recall.
type ChatReport struct {
	Sessions, Questions int
	// Rankers maps a ranker's name to its scores by split ("dev", "held")
	// and kind.
	Rankers map[string]map[string]map[string]*KindScores
	Names   []string
	// Recall is per-prompt recall by split and kind: a right session
	// named first (at 1) or anywhere (at 5) in the recalled context.
	Recall map[string]map[string]*KindScores
	// FalseInjection is the share of short small talk given memory, by
	// language; Unrelated the share of short requests no session bears on
	// given memory.
	FalseInjection map[string]float64
	Injected       []string
	Unrelated      float64
	UnrelatedGiven []string
	// Given counts, by split, the questions recall gave passages ([0]) or
	// one line naming a weaker match ([1]).
	Given map[string]*[2]int
}

// PrintChat writes the chat report: per split, per kind, hit@1, hit@5 and
// MRR for every ranker and per-prompt recall.
func (r ChatReport) PrintChat(w io.Writer) {
	fmt.Fprintf(w, "chat corpus: %d sessions of four people over eight months (en, zh, ja, es), %d questions asked months later\n", r.Sessions, r.Questions)
	for _, split := range []string{"held", "dev"} {
		label := map[string]string{"held": "held-out questions (never looked at while tuning)", "dev": "dev questions (tuned on)"}[split]
		fmt.Fprintf(w, "\n  %s\n", label)
		fmt.Fprintf(w, "  %-34s %-6s", "ranker", "")
		for _, k := range append([]string{"all"}, ChatKinds...) {
			fmt.Fprintf(w, " %11s", k)
		}
		fmt.Fprintln(w)
		rows := append([]string{}, r.Names...)
		all := map[string]map[string]*KindScores{}
		for _, n := range r.Names {
			all[n] = r.Rankers[n][split]
		}
		rows = append(rows, "per-prompt recall")
		all["per-prompt recall"] = r.Recall[split]
		for _, n := range rows {
			ks := all[n]
			for _, metric := range []string{"hit@1", "hit@5", "MRR"} {
				name := n
				if metric != "hit@1" {
					name = ""
				}
				fmt.Fprintf(w, "  %-34s %-6s", name, metric)
				for _, k := range append([]string{""}, ChatKinds...) {
					s := ks[k]
					if s == nil || s.N == 0 {
						fmt.Fprintf(w, " %11s", "-")
						continue
					}
					v := map[string]float64{"hit@1": s.HitAt1, "hit@5": s.HitAt5, "MRR": s.MRR}[metric]
					fmt.Fprintf(w, " %7.3f (%d)", v, s.N)
				}
				fmt.Fprintln(w)
			}
		}
	}
	var langs []string
	for l := range r.FalseInjection {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	fmt.Fprintf(w, "\n  false injection on short small talk:")
	for _, l := range langs {
		fmt.Fprintf(w, " %s %.3f", l, r.FalseInjection[l])
	}
	fmt.Fprintln(w)
	if len(r.Injected) > 0 {
		fmt.Fprintf(w, "  small talk given memory: %s\n", strings.Join(r.Injected, " · "))
	}
	fmt.Fprintf(w, "  short requests no session bears on, given memory: %.3f", r.Unrelated)
	if len(r.UnrelatedGiven) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(r.UnrelatedGiven, " · "))
	}
	fmt.Fprintln(w)
	// Only the dev split's misses are named: the held-out questions are
	// not to be looked at while tuning.
	if m := r.Rankers["ccmem search"]["dev"][""].Misses; len(m) > 0 {
		fmt.Fprintf(w, "  ccmem search missed at 5 (dev): %s\n", strings.Join(m, " · "))
	}
}

// EvaluateChat replays the chat corpus through the hooks in hooks under
// dir and measures every ranker and per-prompt recall, per split and kind.
func EvaluateChat(dir, hooks string) (ChatReport, *World, error) {
	c := GenerateChat()
	w, err := Replay(dir, hooks, c)
	if err != nil {
		return ChatReport{}, nil, err
	}
	rep := ChatReport{Sessions: len(c.Sessions), Questions: len(c.Questions), Rankers: map[string]map[string]map[string]*KindScores{},
		Names: []string{"ccmem search", "ccmem engine over full text", "plain BM25 over full text", "grep -i over full text"}}
	for i, rank := range []Ranker{w.CCMem(), w.FullText(), w.BM25(), w.Grep()} {
		rep.Rankers[rep.Names[i]] = map[string]map[string]*KindScores{"dev": w.ScoreKinds(rank, "dev"), "held": w.ScoreKinds(rank, "held")}
	}
	rep.Recall, rep.Given, rep.FalseInjection, rep.Injected, err = w.chatRecall()
	if err != nil {
		return rep, w, err
	}
	given := 0
	for _, u := range c.Unrelated {
		recalled, err := w.askOnce(c.SmallTalkIn[u], u)
		if err != nil {
			return rep, w, err
		}
		if recalled != "" {
			given++
			rep.UnrelatedGiven = append(rep.UnrelatedGiven, u)
		}
	}
	if len(c.Unrelated) > 0 {
		rep.Unrelated = float64(given) / float64(len(c.Unrelated))
	}
	return rep, w, nil
}

// askOnce types prompt as the first prompt of a new session in project,
// through the real hooks, when the questions are asked; it returns the
// context recall gave it.
func (w *World) askOnce(project, prompt string) (string, error) {
	w.asked++
	sid := fmt.Sprintf("chat-%04d", w.asked)
	root := w.Roots[project]
	env := w.envFor(w.askedAt(), false)
	if _, err := w.hookOut("sessionstart", string(claudecode.Payload{SessionID: sid, TranscriptPath: "/nonexistent/none.jsonl", Cwd: root, HookEventName: "SessionStart", Source: "startup"}.JSON()), env); err != nil {
		return "", err
	}
	out, err := w.hookOut("userpromptsubmit", string(claudecode.Payload{SessionID: sid, TranscriptPath: "/nonexistent/none.jsonl", Cwd: root, HookEventName: "UserPromptSubmit", Prompt: prompt}.JSON()), env)
	return contextOf(out), err
}

// chatRecall asks each question as the first prompt of a new session in
// its person's project, through the real hooks, and ranks the sessions the
// recalled context names in the order it names them; then types each
// small-talk prompt in the project of its language.
func (w *World) chatRecall() (map[string]map[string]*KindScores, map[string]*[2]int, map[string]float64, []string, error) {
	out := map[string]map[string]*KindScores{"dev": {"": {}}, "held": {"": {}}}
	given := map[string]*[2]int{"dev": {}, "held": {}}
	ask := w.askOnce
	for _, q := range w.Corpus.Questions {
		recalled, err := ask(w.Corpus.projectOf(q), q.Text)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		switch {
		case memory.IsPointer(recalled):
			given[q.Split][1]++
		case recalled != "":
			given[q.Split][0]++
		}
		// The sessions the recalled lines name, in their order.
		type at struct {
			id  string
			pos int
		}
		var named []at
		for _, s := range w.Corpus.Sessions {
			if i := strings.Index(recalled, sessionUUID(s.ID)); i >= 0 {
				named = append(named, at{s.ID, i})
			}
		}
		sort.Slice(named, func(i, j int) bool { return named[i].pos < named[j].pos })
		var got []string
		for _, a := range named {
			got = append(got, a.id)
		}
		w.scoreOne(out[q.Split], q, got)
	}
	for _, m := range out {
		for _, ks := range m {
			if ks.N > 0 {
				n := float64(ks.N)
				ks.HitAt1, ks.HitAt5, ks.AllAt5, ks.MRR = ks.HitAt1/n, ks.HitAt5/n, ks.AllAt5/n, ks.MRR/n
			}
		}
	}
	false := map[string]float64{}
	count := map[string]int{}
	var injected []string
	for _, st := range w.Corpus.SmallTalk {
		project := w.Corpus.SmallTalkIn[st]
		lang := ""
		for _, s := range w.Corpus.Sessions {
			if s.Project == project {
				lang = s.Lang
				break
			}
		}
		recalled, err := ask(project, st)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		count[lang]++
		if recalled != "" {
			false[lang]++
			injected = append(injected, st)
		}
	}
	for l, k := range count {
		false[l] /= float64(k)
	}
	return out, given, false, injected, nil
}
