package recallset

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/store"
)

// Case is one query and the memory that answers it.
type Case struct {
	Query string
	Kind  string
	Ref   string // the answer's search.Ref
}

// Set is a generated store and its cases.
type Set struct {
	Env       store.Env
	Project   store.Project
	Cases     []Case
	SmallTalk []string
	Memories  int
}

// Build lays out the corpus under dir (a fresh HOME), deterministically
// for a seed: the facts, and about 200 filler memories of every kind made
// of the everyday words every query shares some of.
func Build(dir string, seed int64) (*Set, error) {
	r := rand.New(rand.NewSource(seed))
	home := filepath.Join(dir, "home")
	e, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "src", "shop")
	if err := write(filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n"); err != nil {
		return nil, err
	}
	p, err := store.ResolveProject(e, root)
	if err != nil {
		return nil, err
	}
	if p, err = store.ClaimProject(e, p); err != nil {
		return nil, err
	}
	s := &Set{Env: e, Project: p, SmallTalk: smallTalk}
	filler := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fillerWords[r.Intn(len(fillerWords))]
		}
		return strings.Join(w, " ")
	}
	// Markdown files: facts and fillers interleaved, each fact's line known.
	type mdFile struct {
		path  string
		lines []string
	}
	md := map[string]*mdFile{
		"global":   {path: e.GlobalMemory(), lines: []string{"## About me"}},
		"project":  {path: store.RepoMemory(root), lines: []string{"## Build and conventions"}},
		"briefing": {path: e.BriefingPath(p.Key)},
	}
	fillers := map[string]int{"global": 30, "project": 30, "briefing": 20}
	addFillers := func(kind string, n int) {
		f := md[kind]
		for range n {
			line := filler(5 + r.Intn(8))
			if kind != "briefing" {
				line = "- " + line
			}
			f.lines = append(f.lines, line)
			s.Memories++
			fillers[kind]--
		}
	}
	start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	episodes := 0
	writeEpisode := func(dir, goal, outcome string) (string, error) {
		episodes++
		t := start.Add(-time.Duration(episodes) * 37 * time.Hour)
		name := fmt.Sprintf("%s-e%04d.json", t.Format("20060102T150405Z"), episodes)
		path := filepath.Join(dir, name)
		body := fmt.Sprintf(`{"session_id":"e%04d","goal":%q,"outcome":%q,"turns":%d,"files_changed":["internal/%s.go"],"started_at":%q,"friction":{"class":"OK"}}`+"\n",
			episodes, goal, outcome, 2+r.Intn(30), fillerWords[r.Intn(len(fillerWords))], t.Format(time.RFC3339))
		return path, write(path, body)
	}
	for _, f := range facts {
		s.Memories++
		var ref string
		switch f.kind {
		case "global", "project", "briefing":
			addFillers(f.kind, min(fillers[f.kind], 1+r.Intn(4)))
			m := md[f.kind]
			line := f.text
			if f.kind != "briefing" {
				line = "- " + line
			}
			m.lines = append(m.lines, line)
			ref = search.Ref(m.path, len(m.lines))
		case "topic":
			path := filepath.Join(e.Store, f.name)
			if err := write(path, f.text); err != nil {
				return nil, err
			}
			ref = path
		case "learned":
			typ, name, _ := strings.Cut(f.name, "/")
			path := filepath.Join(e.LearnedDir(), typ, name+".md")
			if err := write(path, learnedEntry(name, typ, f.extra, f.text, root)); err != nil {
				return nil, err
			}
			ref = path
		case "record":
			cat, id, _ := strings.Cut(f.name, "/")
			path := filepath.Join(root, ".claude", "memory", "records", cat, id+".json")
			if err := write(path, record(cat, id, f.text, f.text)); err != nil {
				return nil, err
			}
			ref = path
		case "episode":
			dir := e.EpisodesDir(p.Key)
			if f.name == "archived" {
				dir = e.EpisodeArchiveDir(p.Key)
			}
			if ref, err = writeEpisode(dir, f.text, f.extra); err != nil {
				return nil, err
			}
		}
		s.Cases = append(s.Cases, Case{Query: f.query, Kind: f.kind, Ref: ref})
	}
	for kind, n := range fillers {
		addFillers(kind, n)
	}
	for _, m := range md {
		if err := write(m.path, strings.Join(m.lines, "\n")+"\n"); err != nil {
			return nil, err
		}
	}
	types := []string{"user", "feedback", "project", "reference"}
	for i := range 40 {
		typ := types[i%4]
		name := fmt.Sprintf("note-%02d", i)
		if err := write(filepath.Join(e.LearnedDir(), typ, name+".md"), learnedEntry(name, typ, filler(5), filler(20), root)); err != nil {
			return nil, err
		}
		s.Memories++
	}
	cats := []string{"decision", "constraint", "runbook", "tech_debt", "preference"}
	for i := range 20 {
		cat := cats[i%len(cats)]
		id := fmt.Sprintf("item-%02d", i)
		if err := write(filepath.Join(root, ".claude", "memory", "records", cat, id+".json"), record(cat, id, filler(6), filler(15))); err != nil {
			return nil, err
		}
		s.Memories++
	}
	for i := range 60 {
		dir := e.EpisodesDir(p.Key)
		if i >= 20 {
			dir = e.EpisodeArchiveDir(p.Key)
		}
		if _, err := writeEpisode(dir, filler(6), filler(8)); err != nil {
			return nil, err
		}
		s.Memories++
	}
	return s, nil
}

func learnedEntry(name, typ, desc, body, root string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\nmetadata:\n  type: %s\nsource_cwd: %q\n---\n%s\n", name, desc, typ, root, body)
}

func record(cat, id, title, text string) string {
	return fmt.Sprintf(`{"schema_version":"1.0","category":%q,"id":%q,"title":%q,"created_at":"2026-11-01T00:00:00Z","updated_at":"2026-11-01T00:00:00Z","tags":[%q],"related_files":[],"confidence":0.8,"record_status":"active","changes":[{"date":"2026-11-01T00:00:00Z","summary":"created"}],"times_updated":0,"content":{"summary":%q}}`+"\n",
		cat, id, title, cat, text)
}

func write(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o600)
}

// Report is what Evaluate measured.
type Report struct {
	Memories  int `json:"memories"`
	Queries   int `json:"queries"`
	SmallTalk int `json:"small_talk"`
	// RecallAt1 and RecallAt5: the share of queries whose answer `ccmem
	// search` ranks first, and among the first five.
	RecallAt1 float64 `json:"recall_at_1"`
	RecallAt5 float64 `json:"recall_at_5"`
	// PromptRecall is the share of queries, asked as prompts, whose answer
	// per-prompt recall injects.
	PromptRecall float64 `json:"prompt_recall"`
	// FalseInjection is the share of small-talk prompts that got any
	// memory injected.
	FalseInjection float64 `json:"false_injection"`
	// Misses name the queries whose answer was not in the first five, and
	// the small talk that got an injection.
	Misses []string `json:"misses,omitempty"`
}

// The targets.
const (
	TargetRecallAt5      = 0.9
	TargetRecallAt1      = 0.7
	TargetFalseInjection = 0.05
)

// Pass tells whether the report meets every target.
func (r Report) Pass() bool {
	return r.RecallAt5 >= TargetRecallAt5 && r.RecallAt1 >= TargetRecallAt1 && r.FalseInjection <= TargetFalseInjection
}

// Evaluate runs every case through search and every case and small-talk
// prompt through per-prompt recall with opt.
func Evaluate(ctx context.Context, s *Set, opt search.RecallOptions) (Report, error) {
	rep := Report{Memories: s.Memories, Queries: len(s.Cases), SmallTalk: len(s.SmallTalk)}
	scope := search.ScopeOf(&s.Project, false)
	opt.Scope = scope
	at1, at5, injected := 0, 0, 0
	for _, c := range s.Cases {
		hits, err := search.Search(ctx, s.Env, c.Query, search.Options{Scope: scope, Limit: 5})
		if err != nil {
			return rep, err
		}
		rank := -1
		for i, h := range hits {
			if h.Ref() == c.Ref {
				rank = i
				break
			}
		}
		switch {
		case rank == 0:
			at1++
			at5++
		case rank > 0:
			at5++
		default:
			top := "nothing"
			if len(hits) > 0 {
				top = hits[0].Kind + " " + hits[0].Title
			}
			rep.Misses = append(rep.Misses, fmt.Sprintf("search %q: answer not in the first 5 (first: %s)", c.Query, top))
		}
		rec, err := search.Recall(ctx, s.Env, c.Query, opt)
		if err != nil {
			return rep, err
		}
		for _, h := range rec {
			if h.Ref() == c.Ref {
				injected++
				break
			}
		}
	}
	falseInj := 0
	for _, q := range s.SmallTalk {
		rec, err := search.Recall(ctx, s.Env, q, opt)
		if err != nil {
			return rep, err
		}
		if len(rec) > 0 {
			falseInj++
			rep.Misses = append(rep.Misses, fmt.Sprintf("small talk %q got %d memories (first: %s)", q, len(rec), rec[0].Title))
		}
	}
	n := float64(len(s.Cases))
	rep.RecallAt1, rep.RecallAt5, rep.PromptRecall = float64(at1)/n, float64(at5)/n, float64(injected)/n
	rep.FalseInjection = float64(falseInj) / float64(len(s.SmallTalk))
	return rep, nil
}

// Options are the per-prompt recall options of a configuration.
func Options(c config.Recall) search.RecallOptions {
	return search.RecallOptions{MaxItems: c.MaxItems, MinScore: c.MinScore, MinMatched: c.MinMatched}
}
