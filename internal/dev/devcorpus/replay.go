package devcorpus

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/dev/baseline"
	"github.com/ccmem/ccmem/internal/dev/evalset"
	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/importer"
	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// SampleSize is how many prompts of a source are labelled (all its
// eligible ones when it has fewer).
const SampleSize = 60

// Sample is the prompts of a source chosen for labelling, in time order:
// typed prompts (no slash command) in a folder where at least one session
// had ended before (elsewhere recall has nothing to say), picked by the
// hash of their id, so the choice is fixed before any label or tuning.
func Sample(l *Laid) []Prompt {
	var eligible []Prompt
	for _, p := range l.Prompts {
		if p.Slash || strings.TrimSpace(p.Text) == "" || p.Project == "" {
			continue
		}
		if l.earlier(p) == 0 {
			continue
		}
		eligible = append(eligible, p)
	}
	key := func(p Prompt) string {
		s := sha256.Sum256([]byte("ccmem-devcorpus:" + p.ID))
		return string(s[:])
	}
	sort.Slice(eligible, func(i, j int) bool { return key(eligible[i]) < key(eligible[j]) })
	n := l.Source.Sample
	if n == 0 {
		n = SampleSize
	}
	eligible = eligible[:min(len(eligible), n)]
	sort.SliceStable(eligible, func(i, j int) bool { return eligible[i].Time.Before(eligible[j].Time) })
	return eligible
}

// earlier counts the sessions of p's folder that ended before it.
func (l *Laid) earlier(p Prompt) int {
	n := 0
	for _, s := range l.Sessions {
		if s.Cwd == p.Project && s.End.Before(p.Time) {
			n++
		}
	}
	return n
}

// replayer is a store that grows in time: at each prompt it holds the
// sessions that ended before it, imported as `ccmem import` does.
type replayer struct {
	l    *Laid
	home string
	env  store.Env
	now  time.Time
	next int // l.Sessions[:next] are imported
	// text is each imported session's full text (what a person and the
	// model said), for the baselines.
	text map[string]baseline.Doc
	asks int
}

func newReplayer(l *Laid, tag string) (*replayer, error) {
	home := filepath.Join(l.Dir, "replay-"+tag)
	if err := os.RemoveAll(home); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	r := &replayer{l: l, home: home, text: map[string]baseline.Doc{}}
	env, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		return nil, err
	}
	env.Now = func() time.Time { return r.now }
	r.env = env
	return r, nil
}

// advance imports the sessions that ended before t.
func (r *replayer) advance(ctx context.Context, t time.Time) error {
	r.now = t
	added := false
	for r.next < len(r.l.Sessions) && r.l.Sessions[r.next].End.Before(t) {
		s := r.l.Sessions[r.next]
		r.next++
		if s.Cwd == "" {
			continue
		}
		from := r.l.TranscriptPath(s)
		to := filepath.Join(r.env.SilosDir(), s.Silo, s.ID+".jsonl")
		if err := copyFile(from, to, s.End); err != nil {
			return err
		}
		// Its subagents' transcripts, beside it as the client keeps them.
		sub := filepath.Join(filepath.Dir(from), s.ID, "subagents")
		if ents, err := os.ReadDir(sub); err == nil {
			for _, de := range ents {
				if err := copyFile(filepath.Join(sub, de.Name()), filepath.Join(filepath.Dir(to), s.ID, "subagents", de.Name()), s.End); err != nil {
					return err
				}
			}
		}
		r.text[s.ID] = baseline.Doc{ID: s.ID, Text: fullText(from), Time: s.Start}
		added = true
	}
	if !added {
		return nil
	}
	if _, err := importer.Import(ctx, r.env, importer.ImportOptions{}); err != nil {
		return err
	}
	// Every index up to date before the prompt is asked: a hook's search
	// builds only what fits in its allowance, so on a loaded machine what
	// show --recall and the hook each find would differ by what a build
	// had finished, not by what they decide (issue 49, finding 8).
	return r.indexAll(ctx)
}

// indexAll brings every project's search index up to date.
func (r *replayer) indexAll(ctx context.Context) error {
	seen := map[string]bool{}
	for _, s := range r.l.Sessions[:r.next] {
		if s.Cwd == "" || seen[s.Cwd] {
			continue
		}
		seen[s.Cwd] = true
		p, err := store.ResolveProject(r.env, s.Cwd)
		if err != nil {
			continue
		}
		if _, err := search.Refresh(ctx, r.env, search.ScopeOf(&p, false)); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string, mtime time.Time) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		return err
	}
	return os.Chtimes(to, mtime, mtime)
}

// fullText is what a person typed and the model answered in a
// transcript: the baselines' text.
func fullText(path string) string {
	var b strings.Builder
	_ = eachLine(path, func(_ int, line string) {
		var o struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &o) != nil || o.Type != "user" && o.Type != "assistant" {
			return
		}
		var s string
		if json.Unmarshal(o.Message.Content, &s) == nil {
			b.WriteString(s + "\n")
			return
		}
		var blocks []struct {
			Type, Text string
		}
		if json.Unmarshal(o.Message.Content, &blocks) == nil {
			for _, bl := range blocks {
				if bl.Type == "text" {
					b.WriteString(bl.Text + "\n")
				}
			}
		}
	})
	return b.String()
}

// docs are the baselines' documents for a folder: its imported sessions.
func (r *replayer) docs(project string) []baseline.Doc {
	var out []baseline.Doc
	for _, s := range r.l.Sessions[:r.next] {
		if s.Cwd == project {
			if d, ok := r.text[s.ID]; ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// episodeSID finds the session ids in episode file names.
var episodeSID = regexp.MustCompile(`\d{8}T\d{6}Z-([0-9A-Za-z_-]+)\.json`)

// sessionsIn are the sessions a text names by their episode files, once
// each, in order.
func sessionsIn(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range episodeSID.FindAllStringSubmatch(text, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// ask is what ccmem gives a prompt typed as the first of a new session in
// its folder: the start-up block is composed (what it shows is not
// recalled again), then the prompt hook runs; both in process, as the
// hooks run them. It returns the sessions recalled, in order, and the
// recall text.
func (r *replayer) ask(ctx context.Context, p Prompt) ([]string, memory.PromptResult) {
	r.asks++
	sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", r.asks)
	memory.Start(ctx, r.env, memory.StartRequest{Cwd: p.Project, Source: "startup", SessionID: sid})
	res, _ := memory.Prompt(ctx, r.env, memory.PromptRequest{SessionID: sid, Cwd: p.Project, Prompt: p.Text})
	// The asking session leaves nothing behind: the next prompt's store is
	// the sessions' alone.
	if proj, err := store.ResolveProject(r.env, p.Project); err == nil {
		os.Remove(r.env.CheckpointPath(proj.Key, sid))
	}
	return sessionsIn(res.Context), res
}

// promptKey is how a prompt of history.jsonl is found among a session
// record's prompts: its first words, as the record keeps them.
func promptKey(text string) string {
	k := strings.ToLower(strings.Join(strings.Fields(text), " "))
	if len(k) > 60 {
		k = strings.ToValidUTF8(k[:60], "")
	}
	return k
}

// typedIn is where each prompt was typed: the record of the session it
// opened a turn of, and the turn, over every session of the store.
type typedAt struct {
	rec  *session.Checkpoint
	turn int
}

func (r *replayer) typedIn() map[string]typedAt {
	out := map[string]typedAt{}
	ents, _ := os.ReadDir(r.env.ProjectsDir())
	for _, de := range ents {
		eps, _ := session.AllEpisodes(r.env, de.Name())
		for _, ep := range eps {
			for _, n := range ep.Record.Digest.Notes {
				if n.Kind == session.NotePrompt {
					out[promptKey(n.Text)] = typedAt{ep.Record, n.Turn}
				}
			}
		}
	}
	return out
}

// search is ccmem search's ranking of a prompt in its folder, as the
// sessions it finds.
func (r *replayer) search(ctx context.Context, p Prompt, limit int) []string {
	proj, err := store.ResolveProject(r.env, p.Project)
	if err != nil {
		return nil
	}
	hits, err := search.Search(ctx, r.env, p.Text, search.Options{Scope: search.ScopeOf(&proj, false), Limit: limit, Now: r.now})
	if err != nil {
		return nil
	}
	var paths strings.Builder
	for _, h := range hits {
		paths.WriteString(h.Path + "\n")
	}
	return sessionsIn(paths.String())
}

// explain writes how recall weighs a prompt (see ReplayOptions.Explain).
func (r *replayer) explain(ctx context.Context, w io.Writer, lb Label, p Prompt) {
	ex, err := memory.ExplainPrompt(ctx, r.env, p.Project, p.Text)
	if err != nil {
		fmt.Fprintf(w, "%s: %v\n", lb.ID, err)
		return
	}
	fmt.Fprintf(w, "\n=== %s %s %s rel=%v part=%v | %s\n", lb.ID, lb.Kind, p.Lang, lb.Related, lb.Partly, strings.Join(strings.Fields(p.Text), " "))
	var terms []string
	for _, t := range ex.Terms {
		x := fmt.Sprintf("%s:%.2f/%d", t.Term, t.Weight, t.In)
		if t.Weak != "" {
			x += "(" + t.Weak + ")"
		}
		terms = append(terms, x)
	}
	fmt.Fprintf(w, "  sessions %d; terms %s\n", ex.Sessions, strings.Join(terms, " "))
	for i, h := range ex.Ranked[:min(3, len(ex.Ranked))] {
		v := "recalled"
		if i < len(ex.Verdicts) && ex.Verdicts[i] != "" {
			v = ex.Verdicts[i]
		}
		sid := strings.Join(sessionsIn(h.Path), "")
		fmt.Fprintf(w, "  %d %s ev=%.2f share=%.2f score=%.2f %s | %s | %s\n", i+1, sid[:min(8, len(sid))], h.Evidence, h.Share, h.Score, v, textfmt.Shorten(h.Title, 60), textfmt.Shorten(strings.Join(strings.Fields(h.Snippet), " "), 100))
	}
	if ex.Silent != "" {
		fmt.Fprintf(w, "  silent: %s\n", ex.Silent)
	}
}

// ReplayOptions shape a replay.
type ReplayOptions struct {
	// Split, when set, replays only that split's sources.
	Split string
	// Verbose logs each prompt's outcome (ids and verdicts, never text) to
	// Log.
	Verbose bool
	Log     io.Writer
	// Explain writes to Log, for each prompt of a dev source, its text and
	// how recall weighed it (ccmem show --recall's report): for tuning on
	// this machine, never for a held-out source or a committed file.
	Explain bool
	// PointerShift, when set, is the pointer shift the replay's store
	// holds (as a person's use would have tuned it): for measuring how
	// readily recall should name a weaker match, on the dev split.
	PointerShift *float64
}

// Outcome is what one labelled prompt got.
type Outcome struct {
	Label    Label
	Lang     string
	Split    string
	Recalled []string // sessions ccmem's recall gave, in order
	// Pointer says recall gave one line naming a session (a weaker
	// match), not passages.
	Pointer bool
	Search  []string // ccmem search's first sessions
	BM25    []string
	Grep    []string
	// Measured says the session the prompt was typed in was found, and
	// Used whether it went on to use what recall named (see Replay).
	Measured, Used bool
	// Gap: an answerable task whose related sessions hold none of its
	// words; Reached: associations from the folder's history would reach
	// one, and Others how many other sessions they would reach beside
	// (evalset.Reach).
	Gap, Reached bool
	Others       int

	refs       []string
	kind, text string
}

// Replay replays each source's labelled prompts in time order, each
// against a store of the sessions of its folder that ended before it, and
// reports per split and language.
func Replay(ctx context.Context, dir string, sources []Source, o ReplayOptions) (*ReplayReport, error) {
	rep := &ReplayReport{}
	labels, err := ReadLabels()
	if err != nil {
		return nil, err
	}
	for _, s := range sources {
		if o.Split != "" && s.Split != o.Split {
			continue
		}
		l, err := Load(dir, s)
		if err != nil {
			return nil, err
		}
		var todo []Label
		for _, lb := range labels {
			if strings.HasPrefix(lb.ID, s.ID+":") {
				todo = append(todo, lb)
			}
		}
		if len(todo) == 0 {
			continue
		}
		r, err := newReplayer(l, "eval")
		if err != nil {
			return nil, err
		}
		if o.PointerShift != nil {
			if err := os.MkdirAll(r.env.Store, 0o700); err != nil {
				return nil, err
			}
			if err := store.WriteJSON(filepath.Join(r.env.Store, "use.json"), session.UseStats{PointerShift: *o.PointerShift}); err != nil {
				return nil, err
			}
		}
		type job struct {
			lb Label
			p  Prompt
		}
		var jobs []job
		for _, lb := range todo {
			p, ok := l.Prompt(lb.ID)
			if !ok {
				return nil, fmt.Errorf("label %s: no such prompt in the laid-out corpus", lb.ID)
			}
			if p.Hash != lb.Hash {
				return nil, fmt.Errorf("label %s: the prompt's hash is %s, the label's %s (a different copy of the corpus)", lb.ID, p.Hash, lb.Hash)
			}
			jobs = append(jobs, job{lb, p})
		}
		sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].p.Time.Before(jobs[j].p.Time) })
		first := len(rep.Outcomes)
		for _, j := range jobs {
			if err := r.advance(ctx, j.p.Time); err != nil {
				return nil, fmt.Errorf("%s: %v", j.lb.ID, err)
			}
			if o.Explain && s.Split == Dev && o.Log != nil {
				r.explain(ctx, o.Log, j.lb, j.p)
			}
			// What ccmem show --recall predicts, then what the hooks do.
			ex, err := memory.ExplainPrompt(ctx, r.env, j.p.Project, j.p.Text)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", j.lb.ID, err)
			}
			got, res := r.ask(ctx, j.p)
			text := res.Context
			rep.Asked++
			if ex.Context != text {
				rep.Mispredicted = append(rep.Mispredicted, j.lb.ID)
			}
			docs := r.docs(j.p.Project)
			out := Outcome{Label: j.lb, Lang: j.p.Lang, Split: s.Split, Recalled: got, Pointer: memory.IsPointer(text), Search: r.search(ctx, j.p, 5),
				BM25: baseline.NewIndex(docs).BM25(j.p.Text), Grep: baseline.Grep(docs, j.p.Text)}
			out.refs, out.kind, out.text = res.Recalled, res.RecalledKind, j.p.Text
			if j.lb.Answerable() {
				texts := map[string]string{}
				var answers []string
				for _, d := range docs {
					texts[d.ID] = d.Text
					if j.lb.relation(d.ID) == related {
						answers = append(answers, d.ID)
					}
				}
				out.Gap, out.Reached, out.Others = evalset.Reach(j.p.Text, answers, texts)
			}
			rep.Outcomes = append(rep.Outcomes, out)
			if o.Verbose && o.Log != nil {
				first := "-"
				if len(out.Search) > 0 {
					first = [...]string{"unrelated", "partly", "related"}[j.lb.relation(out.Search[0])]
				}
				fmt.Fprintf(o.Log, "%-8s %-4s %-2s %-5s recalled %-3s %-26s search's first: %s\n", j.lb.ID, s.Split[:3], j.p.Lang, j.lb.Kind, yes(len(got) > 0), out.verdict(), first)
			}
		}
		// Would it have been used? The session each prompt was typed in
		// went on without ccmem: what recall named counts as used if that
		// session read it or carried what it named into a later answer,
		// command or changed file (session.UseIn), as a session given it
		// is measured.
		if err := r.advance(ctx, time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			return nil, err
		}
		at := r.typedIn()
		for i := first; i < len(rep.Outcomes); i++ {
			o := &rep.Outcomes[i]
			t, ok := at[promptKey(o.text)]
			if len(o.refs) == 0 || !ok {
				continue
			}
			var given []checkpoint.Given
			for _, ref := range o.refs {
				given = append(given, checkpoint.Given{Ref: ref, Kind: o.kind, Turn: t.turn})
			}
			u := session.UseIn(r.env, t.rec, given)
			o.Measured, o.Used = true, u.Used[o.kind] > 0
		}
		os.RemoveAll(r.home)
	}
	return rep, nil
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// verdict says how a recall went, for the log.
func (o Outcome) verdict() string {
	if len(o.Recalled) == 0 {
		return ""
	}
	if o.Label.Kind == KindTalk {
		return "(small talk given memory)"
	}
	switch o.Label.relation(o.Recalled[0]) {
	case related:
		return "related"
	case partly:
		return "partly related"
	}
	return "UNRELATED"
}
