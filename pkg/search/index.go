// Package search finds memory: ranked full-text search over every kind of
// memory ccmem keeps — the global and repository MEMORY.md lines and their
// topic files, learned entries, records, briefings and episodes (archived
// ones too) — with case folding, light stemming and field weights (BM25F).
// An index under $CCMEM_HOME/search/ saves reading the files again; it is
// kept per unit of source files, each rebuilt when its files change, and
// never trusted over them.
package search

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/store"
)

// Scope is what a search covers: memory of every project, and one
// project's (or, with All, every project's in the store).
type Scope struct {
	// Root and Key are the current project's root and store key ("" for
	// none: only memory of every project); Git tells whether Root is a git
	// working tree (see store.Here).
	Root, Key string
	Git       bool
	All       bool
}

// ScopeOf is the scope of a search run in project p (nil: none), all
// projects' too with all.
func ScopeOf(p *store.Project, all bool) Scope {
	sc := Scope{All: all}
	if p != nil {
		sc.Root, sc.Key, sc.Git = p.Root, p.Key, p.Git
	}
	return sc
}

// Options shape a search.
type Options struct {
	Scope Scope
	// Kinds limits the kinds searched (none: all).
	Kinds []string
	// Limit is the most hits (default 10).
	Limit int
	// Quick trusts a folder's index while the folder's modification time
	// is unchanged (a per-prompt hook's budget allows no stat of every
	// file); otherwise every source file's size and time are checked.
	Quick bool
	// Skip, when set, leaves out the memories whose RefKey it reports
	// (already shown); SkipMost is how many it may leave out at most, so
	// the search looks far enough down the ranking at once.
	Skip     func(key [refKeyLen]byte) bool
	SkipMost int
	// BuildFor, when set, bounds the time spent (re)building the index:
	// what is not built by then is left out of this search (but for its
	// files unchanged since its last index: see listing.go); below zero,
	// nothing is built.
	BuildFor time.Duration
	// Stale, when set, is told when a unit this search needed built was
	// left out (see BuildFor).
	Stale func()
	// Forgotten includes memory that is kept but forgotten (retired and
	// archived records); without it, it is never found or recalled.
	Forgotten bool
	// Now is the time "yesterday" or "last week" in a query is counted
	// from (zero: the clock's).
	Now time.Time
	// Off switches signals off, to measure what each adds (none in use).
	Off Signal
	// prompt: the query is a user's prompt: each hit's evidence (see
	// Hit.Evidence) is weighed for recall's bar.
	prompt bool
	// silentUnless, when set, says whether a hit clears per-prompt
	// recall's bar; when none of the first Limit hits does, recall will
	// say nothing whatever their order, and the ordering of updates
	// (which quotes each hit) is skipped.
	silentUnless func(h Hit, bar float64) bool
	recallBar    float64
	// window is the span of time the query names, if any; dates its
	// date terms, each true when named outright (see findDates).
	window Window
	dates  map[string]bool
	spanOf map[string]int
	// query is the query as given (updates of one another are told by the
	// words of it they answer).
	query string
}

// Hit is one ranked memory.
type Hit struct {
	Kind    string    `json:"kind"`
	Path    string    `json:"path"`
	Line    int       `json:"line,omitempty"`
	Title   string    `json:"title"`
	Snippet string    `json:"snippet"`
	Score   float64   `json:"score"`
	Time    time.Time `json:"time,omitzero"`
	// Matched is the share of the query's weight (by idf) this memory
	// matched: 1 when it holds every query term.
	Matched float64 `json:"matched"`
	// Turn is, for a passage of a session (Line numbers it within its
	// episode), the turn it was said in; Snippet is its text.
	Turn int `json:"turn,omitempty"`
	// Project names the project whose store folder holds the memory, for
	// a person reading hits (filled by the command that shows them).
	Project string `json:"project,omitempty"`
	// Evidence, for a prompt's hits, is the weight (by idf) of the
	// prompt's telling terms the memory or its session holds, and Share
	// that as a part of all the telling terms' weight (see Recall).
	Evidence float64 `json:"evidence,omitempty"`
	Share    float64 `json:"share,omitempty"`
	// Origin is who wrote the memory when not the person: "assistant",
	// "repository", "machine" or "curated" (see provenance); Label says it
	// in words.
	Origin string `json:"origin,omitempty"`
	Label  string `json:"origin_label,omitempty"`
	// Agent names, for a session another agent ran, that agent ("Codex",
	// "Gemini CLI", "opencode"; filled by WithAgents).
	Agent string `json:"agent,omitempty"`
}

// WithAgents fills, for the hits that are sessions another agent ran,
// which agent ran them (each session's record read once; for the
// commands that show hits to a person or a model, not the hooks).
func WithAgents(hits []Hit) []Hit {
	seen := map[string]string{}
	for i := range hits {
		h := &hits[i]
		if h.Kind != KindEpisode {
			continue
		}
		agent, ok := seen[h.Path]
		if !ok {
			if data, err := store.ReadSmallFile(h.Path, 8<<20); err == nil {
				if ep, err := episode.Decode(data); err == nil && ep.Agent != "" {
					agent = agentName(ep.Agent)
				}
			}
			seen[h.Path] = agent
		}
		h.Agent = agent
	}
	return hits
}

// Ref identifies the hit's memory (see Doc.Ref).
func (h Hit) Ref() string { return Ref(h.Path, h.Line) }

// Dir is where the index lives.
func Dir(e store.Env) string { return filepath.Join(e.Store, "search") }

// How many buckets a folder's files are split into: more buckets, less to
// rebuild when one file changes; fewer, fewer index files to open per
// search. A project's archive only grows at retention.
const (
	learnedBuckets = 4
	episodeBuckets = 4
	archiveBuckets = 16
)

// layout lists the units a scope covers.
func layout(e store.Env, sc Scope) []unit {
	md := func(n string) bool { return strings.HasSuffix(n, ".md") }
	topic := func(n string) bool { return md(n) && n != "MEMORY.md" }
	json := func(n string) bool { return strings.HasSuffix(n, ".json") }
	us := []unit{
		{key: "global", kind: KindGlobal, file: e.GlobalMemory()},
		{key: "global-topics.0", kind: KindTopic, dir: e.Store, match: topic, buckets: 1},
	}
	for _, typ := range []string{"user", "feedback", "project", "reference"} {
		for b := range learnedBuckets {
			us = append(us, unit{key: "learned-" + typ + "." + itoa(b), kind: KindLearned, typ: typ,
				dir: filepath.Join(e.LearnedDir(), typ), match: md, bucket: b, buckets: learnedBuckets})
		}
	}
	type project struct{ root, key string }
	var projects []project
	if sc.All {
		ents, _ := os.ReadDir(e.ProjectsDir())
		for _, de := range ents {
			if de.IsDir() && store.ValidKey(de.Name()) {
				root := e.ProjectRoot(de.Name())
				if de.Name() == sc.Key && sc.Root != "" {
					root = sc.Root
				}
				projects = append(projects, project{root, de.Name()})
			}
		}
	} else if sc.Key != "" {
		projects = append(projects, project{sc.Root, sc.Key})
	}
	for _, p := range projects {
		pre := "p-" + p.key + "-"
		pdir := e.ProjectDir(p.key)
		us = append(us, unit{key: pre + "briefing", kind: KindBriefing, file: e.BriefingPath(p.key), root: pdir})
		for b := range episodeBuckets {
			us = append(us, unit{key: pre + "episodes." + itoa(b), kind: KindEpisode, dir: e.EpisodesDir(p.key), root: pdir, match: json, bucket: b, buckets: episodeBuckets})
		}
		for b := range archiveBuckets {
			us = append(us, unit{key: pre + "archive." + itoa(b), kind: KindEpisode, dir: e.EpisodeArchiveDir(p.key), root: pdir, match: json, bucket: b, buckets: archiveBuckets})
		}
		if p.root == "" {
			continue
		}
		if fi, err := os.Stat(p.root); err != nil || !fi.IsDir() {
			continue
		}
		us = append(us,
			unit{key: pre + "repo", kind: KindProject, file: store.RepoMemory(p.root), root: p.root},
			unit{key: pre + "repo-topics.0", kind: KindTopic, dir: store.RepoMemoryDir(p.root), root: p.root, match: topic, buckets: 1})
		for _, cat := range records.Categories {
			us = append(us, unit{key: pre + "records-" + cat + ".0", kind: KindRecord, dir: filepath.Join(records.Dir(p.root), cat), root: p.root, match: json, buckets: 1})
		}
	}
	return us
}

func itoa(i int) string { return strconv.Itoa(i) }

// open brings the index of every unit up to date and opens it. A unit
// whose sources cannot be read has no docs; a unit that cannot be brought
// up to date before ctx ends is left out of this search, but for the files
// its last index holds unchanged (see listing.go).
// left says whether a unit that needed building was left out.
func open(ctx context.Context, e store.Env, units []unit, quick bool, buildFor time.Duration) (readers []*reader, left bool) {
	return openUnits(ctx, e, units, quick, buildFor, nil)
}

// folder is what a search learned of a folder of units (see openUnits).
type folder struct {
	stamp    string       // its modification time before it was listed
	trusted  bool         // quick: unchanged since its buckets were checked
	nonEmpty map[int]bool // trusted: the buckets that hold files
	listed   bool
	bucketed map[int][]entry
	ok       bool // every bucket is current
}

// openUnits is open; built, when set, is told of each unit built.
func openUnits(ctx context.Context, e store.Env, units []unit, quick bool, buildFor time.Duration, built func()) (readers []*reader, left bool) {
	dir := Dir(e)
	// Building is bounded apart: a unit that cannot be built in time is
	// left out of this search (and built by a later one).
	build := ctx
	if buildFor != 0 {
		var cancel context.CancelFunc
		build, cancel = context.WithTimeout(ctx, max(buildFor, 0))
		defer cancel()
	}
	var out []*reader
	folders := map[string]*folder{}
	var order []string
	// Leftovers of interrupted index writes go: on every full check, and
	// before any rebuild.
	tidied := false
	if !quick {
		store.Tidy(dir)
		pruneBuckets(dir)
		tidied = true
	}
	list := func(u unit, f *folder) {
		ls, err := u.list()
		if err != nil && !isNotExist(err) {
			ls = nil
		}
		f.listed, f.trusted = true, false
		f.bucketed = byBucket(ls, u.buckets)
	}
	for _, u := range units {
		if ctx.Err() != nil {
			break
		}
		path := filepath.Join(dir, u.key+".idx")
		var want string
		var f *folder
		if u.file != "" {
			want = u.fileStamp()
		} else {
			g := u.group()
			if f = folders[g]; f == nil {
				f = &folder{stamp: dirStamp(u.dir), ok: true}
				folders[g] = f
				order = append(order, g)
				if quick {
					f.trusted, f.nonEmpty = readDirStamp(filepath.Join(dir, g+".dir"), f.stamp)
				}
				if !f.trusted {
					list(u, f)
				}
			}
			if f.trusted {
				if !f.nonEmpty[u.bucket] {
					continue // an empty bucket: nothing to read
				}
			} else {
				if len(f.bucketed[u.bucket]) == 0 {
					os.Remove(path) // an empty bucket has no index
					os.Remove(listingPath(path))
					continue
				}
				want = bucketStamp(f.bucketed[u.bucket])
			}
		}
		r, err := openReader(path)
		if err == nil && (want == "" || r.stamp == want) {
			out = append(out, r)
			continue
		}
		// An out-of-date index is kept until this unit is built: if it
		// cannot be, its unchanged files answer (see listing.go).
		old := r
		if want == "" {
			// Trusted by its folder's stamp, but missing or damaged: check
			// the folder's files after all.
			list(u, f)
			if len(f.bucketed[u.bucket]) == 0 {
				continue
			}
			want = bucketStamp(f.bucketed[u.bucket])
		}
		if build.Err() != nil {
			if f != nil {
				f.ok = false
			}
			left = true
			out = withOutOfDate(out, old, u, f)
			continue
		}
		if !tidied {
			store.Tidy(dir) // leftovers of interrupted index writes
			tidied = true
		}
		if buildFor != 0 && u.file != "" && stampSize(want) > maxInlineFile {
			// Too big to index within a hook's allowance (a MEMORY.md of
			// megabytes edited by hand): left to the background refresh.
			left = true
			out = withOutOfDate(out, old, u, f)
			continue
		}
		var ents []entry
		if f != nil {
			ents = f.bucketed[u.bucket]
		}
		docs, ok := u.docs(build, ents)
		if !ok {
			// Out of time halfway: what was read is dropped, not indexed
			// as if it were all.
			if f != nil {
				f.ok = false
			}
			left = true
			out = withOutOfDate(out, old, u, f)
			continue
		}
		old.Close()
		data := index(want, docs).encode()
		if err := store.WriteCacheFile(path, data); err != nil && f != nil {
			f.ok = false
		} else if f != nil {
			writeListing(path, want, ents)
		}
		if built != nil {
			built()
		}
		if r, err := readerOf(data); err == nil {
			out = append(out, r)
		}
	}
	// A folder whose buckets were all checked and are current gets its
	// stamp, so a quick search trusts it until it changes again.
	for _, g := range order {
		f := folders[g]
		if f.listed && f.ok && ctx.Err() == nil {
			writeDirStamp(filepath.Join(dir, g+".dir"), f.stamp, f.bucketed)
		}
	}
	return out, left
}

// pruneBuckets removes the index files of buckets that no longer exist
// (an index made when a folder was split into more buckets).
func pruneBuckets(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, de := range ents {
		name, ok := strings.CutSuffix(de.Name(), ".idx")
		if !ok {
			if name, ok = strings.CutSuffix(de.Name(), listingSuffix); !ok {
				continue
			}
		}
		i := strings.LastIndexByte(name, '.')
		if i < 0 {
			continue
		}
		b, err := strconv.Atoi(name[i+1:])
		if err != nil {
			continue
		}
		group := name[:i]
		limit := 1
		switch {
		case strings.HasPrefix(group, "learned-"):
			limit = learnedBuckets
		case strings.HasSuffix(group, "-episodes"):
			limit = episodeBuckets
		case strings.HasSuffix(group, "-archive"):
			limit = archiveBuckets
		}
		if b >= limit {
			os.Remove(filepath.Join(dir, de.Name()))
		}
	}
}

// A folder's stamp file holds its modification time when its buckets were
// last found current, and which buckets hold files.
func writeDirStamp(path, stamp string, bucketed map[int][]entry) {
	var nonEmpty []string
	for b, ents := range bucketed {
		if len(ents) > 0 {
			nonEmpty = append(nonEmpty, strconv.Itoa(b))
		}
	}
	sort.Strings(nonEmpty)
	_ = store.WriteCacheFile(path, []byte(stamp+"\n"+strings.Join(nonEmpty, ",")+"\n"))
}

// readDirStamp tells whether a folder is unchanged since its stamp file
// was written (its time is stamp), and which of its buckets hold files.
func readDirStamp(path, stamp string) (bool, map[int]bool) {
	data, err := store.ReadSmallFile(path, 4096)
	if err != nil {
		return false, nil
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 2 || lines[0] != stamp || stamp == "absent" && lines[0] != "absent" {
		return false, nil
	}
	nonEmpty := map[int]bool{}
	for _, b := range strings.Split(lines[1], ",") {
		if n, err := strconv.Atoi(b); err == nil {
			nonEmpty[n] = true
		}
	}
	return true, nonEmpty
}

// readerOf opens an index held in memory.
func readerOf(data []byte) (*reader, error) {
	r := &reader{data: data, size: int64(len(data))}
	return r, r.readHead()
}

// Search ranks the memories of the scope for the query.
func Search(ctx context.Context, e store.Env, query string, opt Options) ([]Hit, error) {
	hits, _, err := search(ctx, e, query, opt)
	return hits, err
}

// search is Search, with the evidence a prompt's hits were weighed by
// (nil unless opt.prompt).
func search(ctx context.Context, e store.Env, query string, opt Options) ([]Hit, *evidence, error) {
	terms := Terms(query)
	if opt.Now.IsZero() {
		opt.Now = e.Time()
	}
	opt.query = query
	// The days a query names ("on April 1", "last spring") are looked
	// for as the days memories were said or name (see dateTerms), not as
	// words; the memories said in that span also gain (see adjust).
	if dm := findDates(query, opt.Now, true); len(dm) > 0 && opt.Off&SignalDates == 0 {
		rest := []byte(strings.ToLower(query)) // findDates's offsets are into this
		for _, m := range dm {
			for i := m.start; i < m.end; i++ {
				rest[i] = ' ' // the lowercased text's offsets: the same bytes
			}
			if opt.window.From.IsZero() || m.span.from.Before(opt.window.From) {
				opt.window.From = m.span.from
			}
			if m.span.to.After(opt.window.To) {
				opt.window.To = m.span.to
			}
		}
		terms = Terms(string(rest))
		low := strings.ToLower(query)
		opt.dates, opt.spanOf = map[string]bool{}, map[string]int{}
		for k, m := range dm {
			at := len(terms)
			terms = m.span.termsOf(terms)
			for _, t := range terms[at:] {
				opt.dates[t] = opt.dates[t] || m.named
				if opt.spanOf[t] == 0 {
					opt.spanOf[t] = k + 1
				}
			}
			// A month's or a weekday's name is a word too ("deploys on
			// Fridays are banned"), of the span it names: a text that says
			// "April" seven times does not outweigh one said in it.
			for _, w := range Terms(low[m.start:m.end]) {
				if namesDay(w) {
					terms = append(terms, w)
					if opt.spanOf[w] == 0 {
						opt.spanOf[w] = k + 1
					}
				}
			}
		}
	}
	terms = dedupe(terms)
	if len(terms) == 0 {
		return []Hit{}, nil, nil
	}
	if opt.Limit <= 0 {
		opt.Limit = 10
	}
	var units []unit
	for _, u := range layout(e, opt.Scope) {
		if len(opt.Kinds) == 0 || contains(opt.Kinds, u.kind) {
			units = append(units, u)
		}
	}
	for try := 0; ; try++ {
		readers, left := open(ctx, e, units, opt.Quick, opt.BuildFor)
		if left && opt.Stale != nil {
			opt.Stale()
			opt.Stale = nil
		}
		hits, ev := rank(readers, terms, opt)
		hits = withOrigins(e, hits, opt.Scope)
		damaged := false
		for _, r := range readers {
			r.Close()
			if r.damaged && r.path != "" {
				// A block failed its checksum: the unit is rebuilt, and
				// the search run again over what its files hold.
				os.Remove(r.path)
				damaged = true
			}
		}
		if !damaged || try > 0 {
			return hits, ev, nil
		}
	}
}

// rank scores the documents of the open units for the terms.
func rank(readers []*reader, terms []string, opt Options) ([]Hit, *evidence) {
	// The number of documents and each term's document frequency over
	// the whole scope: a term's idf.
	n := 0
	df := make([]float64, len(terms))
	for _, r := range readers {
		n += r.nDocs
		for i, t := range terms {
			df[i] += float64(r.dict[t].df)
		}
	}
	if n == 0 {
		return []Hit{}, nil
	}
	idfOf := func(df float64) float64 { return math.Log(1 + (float64(n)-df+0.5)/(df+0.5)) }
	// How each term weighs toward recall's bar (weakTerms); the ranking
	// weighs them all by their rarity. (Making a query's request words
	// and grammar in text written without spaces weigh a quarter in the
	// ranking was measured and left out: no figure of either corpus
	// moved.)
	rd := readPrompt(opt.query)
	why := rd.why
	idf := make([]float64, len(terms))
	idfSum := 0.0
	for i, t := range terms {
		idf[i] = idfOf(df[i])
		if isDateTerm(t) {
			// A day ranks; toward recall's bar only a date named outright
			// counts ("on September 18"), not "yesterday", said of
			// anything.
			if !opt.dates[t] {
				why[t] = weakDate
			}
		}
		idfSum += idf[i]
	}
	// The query's own terms make its share (Matched); the related words
	// the bridge brings (see related) rank at bridgeWeight and match
	// nothing of it.
	share := make([]float64, len(terms))
	for i := range terms {
		share[i] = idf[i] / idfSum
	}
	bridged := 0
	if opt.Off&SignalBridge == 0 {
		terms, idf, df, share, bridged = bridge(readers, terms, idf, df, share, why, idfOf, opt.Off)
	}
	keep := opt.Limit*8 + 32 + min(opt.SkipMost, 1<<16)
	largest := 0
	for _, r := range readers {
		largest = max(largest, r.nDocs)
	}
	acc := newAccumulator(largest)
	// The terms of the spans the query names (its days and months, and
	// the month's or weekday's name as a word) weigh as one (see
	// scoreUnit).
	span := make([]bool, len(terms))
	for i, t := range terms {
		span[i] = isDateTerm(t) || opt.spanOf[t] > 0
	}
	var ev *evidence
	if opt.prompt {
		group := make([]int, len(terms))
		for i, t := range terms {
			group[i] = opt.spanOf[t]
		}
		ev = newEvidence(rd, terms, idf, df, group, len(terms)-bridged)
		acc.masks, acc.owns = make([]uint64, largest), make([]uint64, largest)
	}
	for {
		top := &topK{keep: keep}
		if ev != nil {
			ev.reset()
		}
		for _, r := range readers {
			scoreUnit(r, terms, span, idf, share, acc, top, ev, opt.Off)
		}
		if ev != nil {
			ev.settle()
		}
		cands := top.sorted()
		hits := []Hit{}
		seen, replaced := map[string]int{}, map[string]bool{}
		// More hits than asked for are read, so that recency and a time
		// window can reorder them (see adjust).
		want := min(opt.Limit*3, opt.Limit+20)
		for _, c := range cands {
			if len(hits) == want {
				break
			}
			if opt.Skip != nil {
				if k, err := c.r.key(c.doc); err != nil || opt.Skip(k) {
					continue
				}
			}
			d, err := c.r.doc(c.doc)
			if err != nil || d.Hidden && !opt.Forgotten || !c.r.answers(d.Path) {
				continue // hidden, or its file changed since an out-of-date index was built
			}
			if d.Scope != "" && !opt.Scope.All && !inScope(d.Scope, opt.Scope) {
				continue // another project's learned entry
			}
			if d.Kind == KindEpisode {
				// One hit per session: its best passage, or the session.
				// A passage that only repeats the session's title (its
				// opening request) gives way to the session's next best
				// passage, if that matches nearly as well: the line shows
				// the title already.
				if at, ok := seen[d.Path]; ok {
					if h := &hits[at]; d.Turn > 0 && !opensWith(d.Snippet, d.Title) && (h.Turn == 0 || opensWith(h.Snippet, h.Title)) &&
						!replaced[d.Path] && float64(c.score) >= 0.6*h.Score {
						h.Line, h.Turn, h.Snippet, h.Time = d.Line, d.Turn, d.Snippet, d.Time
						replaced[d.Path] = true
					}
					continue
				}
				seen[d.Path] = len(hits)
			}
			h := Hit{Kind: d.Kind, Path: d.Path, Line: d.Line, Title: d.Title, Snippet: d.Snippet, Turn: d.Turn,
				Score: math.Round(float64(c.score)*1000) / 1000, Time: d.Time, Matched: math.Round(float64(c.matched)*1000) / 1000}
			if ev != nil {
				h.Evidence, h.Share = ev.of(c.mask, c.own, c.r.hasPassages())
			}
			hits = append(hits, h)
		}
		if len(hits) < opt.Limit && len(cands) == keep && keep < 1<<24 {
			keep *= 8 // filters left too few: look further down
			continue
		}
		hits = adjust(hits, opt.query, opt)
		return hits[:min(len(hits), opt.Limit)], ev
	}
}

// opensWith tells whether a passage opens with a session's title (its
// opening request, which the title is made of).
func opensWith(passage, title string) bool {
	t := strings.TrimSuffix(title, "…")
	return t != "" && strings.HasPrefix(strings.TrimPrefix(passage, "→ "), t)
}

// adjust reorders hits for time: among near-equal matches the newer wins
// (a score gains up to a tenth by recency, less as a memory ages: so an
// update outranks what it updates, and a much better old match still
// outranks a weak new one), and a memory from the span of time the query
// names ("last week") gains half again.
func adjust(hits []Hit, query string, opt Options) []Hit {
	adjusted := make([]float64, len(hits))
	for i, h := range hits {
		a := h.Score
		if !h.Time.IsZero() {
			age := opt.Now.Sub(h.Time).Hours() / 24
			a *= 1 + 0.1/(1+max(age, 0)/30)
			if opt.window.Contains(h.Time) {
				a *= 1.5
			}
		}
		adjusted[i] = a
	}
	idx := make([]int, len(hits))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return adjusted[idx[a]] > adjusted[idx[b]] })
	out := make([]Hit, len(hits))
	for i, j := range idx {
		out[i] = hits[j]
	}
	// updatesFirst only reorders the first Limit hits: when none of them
	// clears recall's bar, recall is silent whatever the order.
	if opt.silentUnless != nil && !slices.ContainsFunc(out[:min(len(out), opt.Limit)], func(h Hit) bool { return opt.silentUnless(h, opt.recallBar) }) {
		return out
	}
	return updatesFirst(out, query, opt.Limit)
}

// updatesFirst moves each passage that updates a higher-ranked one (see
// Superseded) to just above it: the newer value is read first. Only the
// first limit hits are looked at: the rest are not returned.
func updatesFirst(hits []Hit, query string, limit int) []Hit {
	top := hits[:min(len(hits), limit)]
	by := Superseded(top, query)
	// order holds indices of top; a move places the newer right above the
	// older, once per older.
	order := make([]int, len(top))
	for i := range order {
		order[i] = i
	}
	for pos := 0; pos < len(order); pos++ {
		j := by[order[pos]]
		if j < 0 {
			continue
		}
		at := slices.Index(order, j)
		if at <= pos {
			continue
		}
		copy(order[pos+1:at+1], order[pos:at])
		order[pos] = j
	}
	out := make([]Hit, 0, len(hits))
	for _, i := range order {
		out = append(out, top[i])
	}
	return append(out, hits[len(top):]...)
}

// topK keeps the keep best candidates offered: a min-heap on score (its
// root the worst kept), written out for speed — a common word in a large
// store offers hundreds of thousands.
type topK struct {
	keep int
	h    []cand
}

func (t *topK) offer(c cand) {
	h := t.h
	if len(h) < t.keep {
		h = append(h, c)
		for i := len(h) - 1; i > 0; { // up
			p := (i - 1) / 2
			if !h[p].better(h[i]) {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		t.h = h
		return
	}
	if !c.better(h[0]) {
		return
	}
	h[0] = c
	for i := 0; ; { // down
		l, r, worst := 2*i+1, 2*i+2, i
		if l < len(h) && h[worst].better(h[l]) {
			worst = l
		}
		if r < len(h) && h[worst].better(h[r]) {
			worst = r
		}
		if worst == i {
			break
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// sorted is the kept candidates, best first.
func (t *topK) sorted() []cand {
	out := slices.Clone(t.h)
	sort.Slice(out, func(i, j int) bool { return out[i].better(out[j]) })
	return out
}

// accumulator holds the scores of one unit's documents while it is scored;
// it is shared by the units of a search, cleared after each. masks, for a
// prompt, are the telling terms each document holds (see evidence).
// newAccumulator holds the scores of units of up to n docs.
func newAccumulator(n int) *accumulator {
	return &accumulator{scores: make([]float32, n), dates: make([]float32, n), matched: make([]float32, n), seen: make([]uint32, n)}
}

type accumulator struct {
	scores, dates, matched []float32
	masks, owns            []uint64
	touched                []uint32
	// seen marks the docs a unit's scoring touched (seen[d] == gen).
	seen []uint32
	gen  uint32
}

// cand is a scored document of a unit.
type cand struct {
	r       *reader
	doc     uint32
	score   float32
	matched float32
	mask    uint64
	own     uint64 // of mask, the terms held outside what the model said
}

// better orders candidates: higher score first, then a stable order.
func (c cand) better(o cand) bool {
	if c.score != o.score {
		return c.score > o.score
	}
	if c.r != o.r {
		return c.r.stamp < o.r.stamp
	}
	return c.doc < o.doc
}

// scoreUnit scores the documents of one unit that hold a query term
// (BM25F: each posting's stored impact times the term's idf) and offers
// them to top.
func scoreUnit(r *reader, terms []string, span []bool, idf, share []float64, acc *accumulator, top *topK, ev *evidence, off Signal) {
	scores, dates, matched, masks, owns := acc.scores, acc.dates, acc.matched, acc.masks, acc.owns
	acc.gen++
	gen := acc.gen
	touched := acc.touched[:0]
	defer func() {
		// Clear only what this unit touched, for the next.
		for _, d := range touched {
			scores[d], dates[d], matched[d] = 0, 0, 0
			if masks != nil {
				masks[d], owns[d] = 0, 0
			}
		}
		acc.touched = touched[:0]
	}()
	le := binary.LittleEndian
	passages := r.hasPassages()
	if ev != nil {
		// The sessions in scope and the other memories, and those that
		// hold each term.
		if passages {
			ev.sessions += r.tops
		} else {
			ev.memories += r.tops
		}
		for i, t := range terms {
			top := int(r.dict[t].top)
			if passages {
				ev.in[i] += top
			}
			ev.held[i] += top
		}
	}
	for i, t := range terms {
		buf, err := r.rawPostings(t)
		if err != nil || len(buf) == 0 {
			continue
		}
		w := float32(idf[i] * impactMax / impactScale)
		m := float32(share[i])
		var into []float32 // dates, for a term of a span the query names
		if span[i] && off&SignalDates == 0 {
			into = dates
		}
		var bit uint64
		if ev != nil {
			bit = ev.bit[i]
		}
		for off := 0; off+postingLen <= len(buf); off += postingLen {
			d := le.Uint32(buf[off:])
			if int(d) >= r.nDocs {
				return // damaged: nothing more from this unit
			}
			if acc.seen[d] != gen {
				acc.seen[d] = gen
				touched = append(touched, d)
			}
			v := le.Uint16(buf[off+4:])
			x := w * float32(v&impactScale)
			if v&ownBit == 0 {
				x *= saidRank // only in what the model said
			}
			if into == nil {
				scores[d] += x
			} else {
				// The days of a span weigh as one, however often a text
				// names them: a session that names every day of it does
				// not outweigh one said on one.
				dates[d] = max(dates[d], w*impactScale/2)
			}
			matched[d] += m
			if bit != 0 {
				masks[d] |= bit
				if v&ownBit != 0 {
					owns[d] |= bit
				}
			}
		}
	}
	for _, d := range touched {
		score, date, m := scores[d], dates[d], matched[d]
		var mask, own uint64
		if masks != nil {
			mask, own = masks[d], owns[d]
		}
		// A passage is fused with its session: what it says, and how
		// well the whole session matches. Its evidence for recall is its
		// own: what it quotes must hold the prompt's words, not a long
		// session somewhere around it.
		if p := r.parent(d); p > 0 && passages && off&SignalSessions == 0 {
			score += passageFusion * scores[p-1]
			date += passageFusion * dates[p-1]
			m = max(m, matched[p-1])
		}
		score += date
		if len(top.h) == top.keep && score < top.h[0].score {
			continue // below the worst kept: most docs of a large unit
		}
		top.offer(cand{r: r, doc: d, score: score, matched: m, mask: mask, own: own})
	}
}

// saidRank is how much of its weight a term brings a memory's rank when
// the memory holds it only in what the model said: what a person wrote
// outweighs a generic reply.
const saidRank = 0.75

// bridge adds to a query the words related to its telling terms (see
// related), each at bridgeWeight of its idf, the rarest maxBridged of
// those the memory holds; it returns the terms with them last, and how
// many there are.
func bridge(readers []*reader, terms []string, idf, df, share []float64, why map[string]string, idfOf func(float64) float64, off Signal) ([]string, []float64, []float64, []float64, int) {
	type cand struct {
		t  string
		df float64
	}
	var cands []cand
	seen := map[string]bool{}
	for _, t := range terms {
		seen[t] = true
	}
	for _, t := range terms {
		if why[t] != "" || isDateTerm(t) {
			continue
		}
		for _, r := range related(t, off) {
			if seen[r] {
				continue
			}
			seen[r] = true
			n := 0.0
			for _, rd := range readers {
				n += float64(rd.dict[r].df)
			}
			if n > 0 {
				cands = append(cands, cand{r, n})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].df < cands[j].df })
	cands = cands[:min(len(cands), maxBridged)]
	for _, c := range cands {
		terms = append(terms, c.t)
		idf = append(idf, bridgeWeight*idfOf(c.df))
		df = append(df, c.df)
		share = append(share, 0)
	}
	return terms, idf, df, share, len(cands)
}

// Signal names one of the signals search ranks by, to switch it off
// (Options.Off) and measure what it adds (make recall).
type Signal uint

const (
	// SignalDates: the days a query names are looked for as the days
	// memories were said or name (dateTerms).
	SignalDates Signal = 1 << iota
	// SignalBridge: words related to the query's are searched too
	// (related).
	SignalBridge
	// SignalSessions: a passage counts what its whole session matches
	// (passageFusion).
	SignalSessions
	// SignalWordNet and SignalTable: the related words WordNet's bridge
	// gives (lexicon.Related), and the hand-written table's (related).
	SignalWordNet
	SignalTable
)

// passageFusion is how much of its session's score a passage adds to its
// own. (Adding a quarter of the better of the passages either side of it
// as well was measured, and left out: MRR 0.881 against 0.880 on the
// coding corpus, no change on the chat corpus's dev questions.)
const passageFusion = 0.5

// inScope tells whether memory of the project at scope applies at root
// (see store.InProject).
func inScope(scope string, sc Scope) bool { return store.HereOf(sc.Root, sc.Git).Holds(scope, "") }

func dedupe(terms []string) []string {
	seen := map[string]bool{}
	out := terms[:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// originName is who wrote a hit, for Hit.Origin ("unconfirmed" when
// nothing says).
func originName(o provenance.Origin) string {
	if o.By == provenance.Unknown {
		return "unconfirmed"
	}
	return string(o.By)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// withOrigins says who wrote each hit when the person did not attest it
// (see provenance), and leaves out the assistant's notes of another
// project: a note the model saved in one project stays there until the
// person accepts it (a search of every project finds it, labelled).
func withOrigins(e store.Env, hits []Hit, sc Scope) []Hit {
	var l provenance.Ledger
	loaded := false
	lines := map[string][]string{}
	out := hits[:0]
	for _, h := range hits {
		o := provenance.Origin{By: provenance.Person}
		switch {
		case h.Kind == KindProject || h.Kind == KindRecord || h.Kind == KindTopic && !store.Within(e.Store, h.Path):
			o = provenance.Origin{By: provenance.Repository}
		case h.Kind == KindGlobal && h.Line > 0, h.Kind == KindLearned:
			if !loaded {
				l, loaded = provenance.Load(e), true
			}
			if h.Kind == KindLearned {
				o = l.Entry(h.Path)
				break
			}
			ls, ok := lines[h.Path]
			if !ok {
				data, _ := store.ReadSmallFile(h.Path, 16<<20)
				ls = strings.Split(string(data), "\n")
				lines[h.Path] = ls
			}
			if h.Line <= len(ls) {
				o = l.Line(h.Path, ls[h.Line-1])
			}
		}
		if !sc.All && !o.ShownIn(sc.Key) {
			continue
		}
		if !o.Standing() {
			h.Origin, h.Label = originName(o), o.Label()
		}
		out = append(out, h)
	}
	return out
}
