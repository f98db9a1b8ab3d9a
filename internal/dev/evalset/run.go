package evalset

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/dev/baseline"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/store"
)

// World is a corpus replayed through the hooks into a store.
type World struct {
	Dir    string
	Env    store.Env
	Roots  map[string]string // project name → root
	Corpus *Corpus
	hooks  string
	// episodes maps an episode's session id to the corpus's session.
	bySID map[string]*Session
	// full is a second store holding each session's full text as a topic
	// file: the capture-fidelity reference.
	full store.Env
	// asked counts the rounds of PromptRecall: each asks in new sessions.
	asked int
	// off are the signals the CCMem ranker switches off (see Ablate).
	off search.Signal
}

// deadPID is a process id no process has: the replayed sessions' client
// is gone, so the next session start archives them.
const deadPID = "4194301"

// Replay replays the corpus through the hook binaries in hooks (sessionstart,
// stop) into a fresh HOME under dir: each session starts, its transcript
// grows turn by turn with a Stop after each, and the next start in its
// project archives it. Automated runs are replayed as a CI job runs them.
func Replay(dir, hooks string, c *Corpus) (*World, error) {
	w := &World{Dir: dir, Corpus: c, hooks: hooks, Roots: map[string]string{}, bySID: map[string]*Session{}}
	home := filepath.Join(dir, "home")
	env, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		return nil, err
	}
	w.Env = env
	var projects []string
	for _, s := range c.Sessions {
		if !contains(projects, s.Project) {
			projects = append(projects, s.Project)
		}
	}
	for _, p := range projects {
		var root string
		switch p {
		case "shop", "api":
			root = filepath.Join(dir, "src", p)
		case "home":
			root = filepath.Join(dir, "notes")
		default:
			root = filepath.Join(dir, "people", p) // a person's own folder, not a repository
		}
		if err := os.MkdirAll(root, 0o755); err != nil {
			return nil, err
		}
		if p == "shop" || p == "api" {
			if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
				return nil, err
			}
		}
		w.Roots[p] = root
	}
	var pairs []string
	for p, root := range w.Roots {
		pairs = append(pairs, "$"+strings.ToUpper(p), root)
	}
	roots := strings.NewReplacer(pairs...)
	sessions := append([]*Session(nil), c.Sessions...)
	sort.SliceStable(sessions, func(i, j int) bool { return sessions[i].Start.Before(sessions[j].Start) })
	trDir := filepath.Join(home, ".claude", "projects")
	for _, s := range sessions {
		sid := sessionUUID(s.ID)
		w.bySID[sid] = s
		root := w.Roots[s.Project]
		tr := filepath.Join(trDir, store.Slug(root), sid+".jsonl")
		if err := os.MkdirAll(filepath.Dir(tr), 0o700); err != nil {
			return nil, err
		}
		envs := w.envFor(s.Start, s.Kind == "automated")
		if err := w.hook("sessionstart", string(claudecode.Payload{SessionID: sid, TranscriptPath: tr, Cwd: root, HookEventName: "SessionStart", Source: "startup"}.JSON()), envs); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(tr, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		for _, turn := range s.Turns {
			for _, l := range turn {
				l = roots.Replace(l)
				if _, err := f.WriteString(l + "\n"); err != nil {
					f.Close()
					return nil, err
				}
			}
			if err := w.hook("stop", string(claudecode.Payload{SessionID: sid, TranscriptPath: tr, Cwd: root, HookEventName: "Stop"}.JSON()), envs); err != nil {
				f.Close()
				return nil, err
			}
		}
		f.Close()
	}
	// A last start in each project archives what is left.
	end := w.askedAt()
	for p, root := range w.Roots {
		if err := w.hook("sessionstart", string(claudecode.Payload{SessionID: "probe-" + p, TranscriptPath: filepath.Join(dir, "none.jsonl"), Cwd: root, HookEventName: "SessionStart", Source: "startup"}.JSON()), w.envFor(end, false)); err != nil {
			return nil, err
		}
	}
	return w, w.buildFull()
}

// askedAt is when the corpus's questions are asked.
func (w *World) askedAt() time.Time {
	if !w.Corpus.AskedAt.IsZero() {
		return w.Corpus.AskedAt
	}
	return Base.Add(40 * 24 * time.Hour)
}

// envFor is a hook's environment at time now.
func (w *World) envFor(now time.Time, automated bool) []string {
	env := []string{"HOME=" + filepath.Join(w.Dir, "home"), "PATH=/usr/bin:/bin", "CLAUDE_PID=" + deadPID, "CCMEM_NOW=" + now.Format(time.RFC3339)}
	if automated {
		env = append(env, "CI=true")
	}
	return env
}

// hook runs a hook binary on a payload; it must exit 0.
func (w *World) hook(name, in string, env []string) error {
	_, err := w.hookOut(name, in, env)
	return err
}

func (w *World) hookOut(name, in string, env []string) (string, error) {
	cmd := exec.Command(filepath.Join(w.hooks, name))
	cmd.Env = env
	cmd.Stdin = strings.NewReader(in)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %v: %s", name, err, errb.String())
	}
	return out.String(), nil
}

// buildFull writes every session's full text as a topic file of a second
// store: ccmem's engine over what was said, the reference capture is held
// to.
func (w *World) buildFull() error {
	home := filepath.Join(w.Dir, "full")
	env, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		return err
	}
	w.full = env
	for _, s := range w.Corpus.Sessions {
		path := filepath.Join(env.Store, s.ID+".md")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte("# "+s.ID+"\n\n"+s.Text+"\n"), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// Ranker ranks the corpus's sessions for a question in a project.
type Ranker func(q Question, project string) []string

// CCMem is `ccmem search` over what capture kept, in the question's
// project: its hits mapped to the sessions they came from.
func (w *World) CCMem() Ranker {
	return func(q Question, project string) []string {
		p, err := store.ResolveProject(w.Env, w.Roots[project])
		if err != nil {
			return nil
		}
		hits, err := search.Search(context.Background(), w.Env, q.Text, search.Options{Scope: search.ScopeOf(&p, false), Limit: 10, Now: w.askedAt(), Off: w.off})
		if err != nil {
			return nil
		}
		return w.sessionsOf(hits)
	}
}

// sessionsOf maps hits to corpus sessions, once each, in rank order.
func (w *World) sessionsOf(hits []search.Hit) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range hits {
		if s := w.sessionOfPath(h.Path); s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// sessionOfPath is the corpus session an episode path (or a path naming
// one) belongs to.
func (w *World) sessionOfPath(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".json")
	if i := strings.Index(base, "Z-"); i > 0 {
		if s := w.bySID[base[i+2:]]; s != nil {
			return s.ID
		}
	}
	return ""
}

// FullText is ccmem's engine over each session's full text (one topic file
// per session): the capture-fidelity reference.
func (w *World) FullText() Ranker {
	return func(q Question, project string) []string {
		hits, err := search.Search(context.Background(), w.full, q.Text, search.Options{Limit: 40, Now: w.askedAt()})
		if err != nil {
			return nil
		}
		var out []string
		for _, h := range hits {
			id := strings.TrimSuffix(filepath.Base(h.Path), ".md")
			if s := w.session(id); s != nil && s.Project == project && !contains(out, id) {
				out = append(out, id)
			}
		}
		return out
	}
}

func (w *World) session(id string) *Session {
	for _, s := range w.Corpus.Sessions {
		if s.ID == id {
			return s
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// BM25 is a plain BM25 (k1 1.2, b 0.75) over each session's full text,
// one document per session of the question's project; no stemming, no
// fields, no stop words (baseline.Index).
func (w *World) BM25() Ranker {
	byProject := map[string][]baseline.Doc{}
	for _, s := range w.Corpus.Sessions {
		byProject[s.Project] = append(byProject[s.Project], baseline.Doc{ID: s.ID, Text: s.Text, Time: s.Start})
	}
	idx := map[string]*baseline.Index{}
	for p, docs := range byProject {
		idx[p] = baseline.NewIndex(docs)
	}
	return func(q Question, project string) []string {
		if x := idx[project]; x != nil {
			return x.BM25(q.Text)
		}
		return nil
	}
}

// Grep is grep -i with the question's words (baseline.Grep) over the
// sessions of its project.
func (w *World) Grep() Ranker {
	return func(q Question, project string) []string {
		var docs []baseline.Doc
		for _, s := range w.Corpus.Sessions {
			if s.Project == project {
				docs = append(docs, baseline.Doc{ID: s.ID, Text: s.Text, Time: s.Start})
			}
		}
		return baseline.Grep(docs, q.Text)
	}
}

// Scores are one ranker's figures over the questions.
type Scores struct {
	AnyAt5, AllAt5, MRR float64
	// ByLang is recall_any@5 per language.
	ByLang map[string]float64
	Misses []string
}

// projectOf is the project of a question's first answer.
func (c *Corpus) projectOf(q Question) string {
	for _, s := range c.Sessions {
		if s.ID == q.Sessions[0] {
			return s.Project
		}
	}
	return ""
}

// Score runs a ranker over every question.
func (w *World) Score(rank Ranker) Scores {
	sc := Scores{ByLang: map[string]float64{}}
	langN := map[string]int{}
	for _, q := range w.Corpus.Questions {
		got := rank(q, w.Corpus.projectOf(q))
		top := got[:min(5, len(got))]
		anyHit, allHit := false, true
		for _, want := range q.Sessions {
			if contains(top, want) {
				anyHit = true
			} else {
				allHit = false
			}
		}
		first := 0
		for i, s := range got {
			if contains(q.Sessions, s) {
				first = i + 1
				break
			}
		}
		if anyHit {
			sc.AnyAt5++
			sc.ByLang[q.Lang]++
		} else {
			sc.Misses = append(sc.Misses, q.Text)
		}
		if allHit {
			sc.AllAt5++
		}
		if first > 0 {
			sc.MRR += 1 / float64(first)
		}
		langN[q.Lang]++
	}
	n := float64(len(w.Corpus.Questions))
	sc.AnyAt5, sc.AllAt5, sc.MRR = sc.AnyAt5/n, sc.AllAt5/n, sc.MRR/n
	for l, k := range langN {
		sc.ByLang[l] /= float64(k)
	}
	return sc
}

// Recall is what per-prompt recall puts in front of the model: each
// question asked as the first prompt of a new session in its project
// (after that session's start-up block), through the real hooks.
type Recall struct {
	// Hit is the share of questions whose recalled context names a right
	// session; BlockOrRecall also counts a right session the start-up
	// block's menu showed.
	Hit, BlockOrRecall float64
	// Carried is the share of questions whose recalled context quotes
	// most of an answering fact's words: the memory itself, not only a
	// pointer to it.
	Carried float64
	// Chars is the recalled context's mean size, in characters, over the
	// prompts that got one; MaxChars is the recall budget it ran with.
	Chars, MaxChars int
	// FalseInjection is the share of small-talk prompts that got any
	// recalled memory.
	FalseInjection float64
	Misses         []string
	// Injected are the small-talk prompts that got recalled memory.
	Injected []string
	// Passages and Pointers count the questions given recalled passages,
	// and those given one line naming a weaker match.
	Passages, Pointers int
}

// PromptRecall measures per-prompt recall through the hook binaries, with
// the recall budget of maxChars characters (0: the default).
func (w *World) PromptRecall(maxChars int) (Recall, error) {
	r := Recall{MaxChars: maxChars}
	if maxChars > 0 {
		if err := os.WriteFile(w.Env.GlobalConfig(), fmt.Appendf(nil, "recall:\n  max_chars: %d\n", maxChars), 0o600); err != nil {
			return r, err
		}
		defer os.Remove(w.Env.GlobalConfig())
	}
	w.asked++
	got, chars := 0, 0
	at := w.askedAt()
	ask := func(n int, project, prompt string) (block, recalled string, err error) {
		sid := fmt.Sprintf("ask%d-%04d", w.asked, n)
		root := w.Roots[project]
		env := w.envFor(at, false)
		out, err := w.hookOut("sessionstart", string(claudecode.Payload{SessionID: sid, TranscriptPath: filepath.Join(w.Dir, "none.jsonl"), Cwd: root, HookEventName: "SessionStart", Source: "startup"}.JSON()), env)
		if err != nil {
			return "", "", err
		}
		block = contextOf(out)
		in := string(claudecode.Payload{SessionID: sid, TranscriptPath: filepath.Join(w.Dir, "none.jsonl"), Cwd: root, HookEventName: "UserPromptSubmit", Prompt: prompt}.JSON())
		out, err = w.hookOut("userpromptsubmit", in, env)
		return block, contextOf(out), err
	}
	n := 0
	for _, q := range w.Corpus.Questions {
		n++
		block, recalled, err := ask(n, w.Corpus.projectOf(q), q.Text)
		if err != nil {
			return r, err
		}
		hit, seen := false, false
		for _, want := range q.Sessions {
			sid := sessionUUID(want)
			hit = hit || strings.Contains(recalled, sid)
			seen = seen || strings.Contains(block, sid)
		}
		if recalled != "" {
			got++
			chars += len([]rune(recalled))
			if memory.IsPointer(recalled) {
				r.Pointers++
			} else {
				r.Passages++
			}
		}
		if carries(recalled, q.Facts) {
			r.Carried++
		}
		if hit {
			r.Hit++
		} else {
			r.Misses = append(r.Misses, q.Text)
		}
		if hit || seen {
			r.BlockOrRecall++
		}
	}
	for _, p := range w.Corpus.SmallTalk {
		n++
		_, recalled, err := ask(n, "shop", p)
		if err != nil {
			return r, err
		}
		if recalled != "" {
			r.FalseInjection++
			r.Injected = append(r.Injected, p)
		}
	}
	qn := float64(len(w.Corpus.Questions))
	r.Hit, r.BlockOrRecall, r.Carried, r.FalseInjection = r.Hit/qn, r.BlockOrRecall/qn, r.Carried/qn, r.FalseInjection/float64(len(w.Corpus.SmallTalk))
	if got > 0 {
		r.Chars = chars / got
	}
	return r, nil
}

// carries tells whether text quotes most (60%) of the words of one of
// facts (of one line of it: a deep fact is any sentence of a long
// opening).
func carries(text string, facts []string) bool {
	have := map[string]bool{}
	for _, t := range search.Terms(text) {
		have[t] = true
	}
	var lines []string
	for _, f := range facts {
		lines = append(lines, strings.Split(f, "\n")...)
	}
	for _, f := range lines {
		terms := search.Terms(f)
		n := 0
		for _, t := range terms {
			if have[t] {
				n++
			}
		}
		if len(terms) > 0 && float64(n) >= 0.6*float64(len(terms)) {
			return true
		}
	}
	return false
}

// contextOf is the additionalContext of a hook's JSON output.
func contextOf(out string) string {
	return claudecode.ParseOutput([]byte(out)).AddedContext()
}
