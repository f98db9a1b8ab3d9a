package ui

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"fmt"
	"html"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/lessons"
	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

//go:embed assets
var assets embed.FS

var (
	tmplOnce sync.Once
	tmpl     *template.Template
)

// templates parses the page templates once, on the first page served.
func templates() *template.Template {
	tmplOnce.Do(func() {
		tmpl = template.Must(template.New("").Funcs(template.FuncMap{
			"plural": textfmt.Plural,
			"short":  textfmt.Shorten,
			"line":   textfmt.Line,
			"esc":    url.PathEscape,
			"label":  session.NoteLabel,
			"lower":  strings.ToLower,
			"md":     inlineMarkdown,
			"paras":  paras,
		}).ParseFS(assets, "assets/*.html"))
	})
	return tmpl
}

// routes are every address the page answers; anything else is 404.
func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.projects)
	m.HandleFunc("GET /p/{key}", s.project)
	m.HandleFunc("GET /p/{key}/e/{id}", s.episode)
	m.HandleFunc("GET /p/{key}/friction", s.friction)
	m.HandleFunc("GET /search", s.search)
	m.HandleFunc("GET /learned", s.learned)
	m.HandleFunc("POST /learned/review", s.review)
	m.HandleFunc("POST /learned/forget", s.forget)
	m.HandleFunc("GET /assets/{name}", s.asset)
	s.mux = m
}

// view is what every page's layout needs, and the page's own data.
type view struct {
	// Base is the session's address, every link relative to it.
	Base       string
	Title, Nav string
	CSRF       string
	Query      string
	Data       any
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, start time.Time, status int, name, title, nav string, data any) {
	var b bytes.Buffer
	v := view{Title: title, Nav: nav, CSRF: s.csrf, Data: data, Base: base(r)}
	if sd, ok := data.(searchData); ok {
		v.Query = sd.Query
	}
	err := templates().ExecuteTemplate(&b, name, v)
	if err != nil {
		b.Reset()
		templates().ExecuteTemplate(&b, "error", view{Title: "error", Data: err.Error(), Base: v.Base})
		status = http.StatusInternalServerError
	}
	s.page(w, start, status, &b)
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request, start time.Time, what string) {
	s.render(w, r, start, http.StatusNotFound, "error", "not found", "", what)
}

func (s *Server) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	types := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}
	ct, ok := types[path.Ext(name)]
	if !ok || !plainName(name) {
		http.NotFound(w, r)
		return
	}
	data, err := assets.ReadFile("assets/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(data)
}

// projectKey is the route's project, when it names a project folder of
// the store (a real folder, not a link).
func (s *Server) projectKey(r *http.Request) (string, bool) {
	key := r.PathValue("key")
	if !store.ValidKey(key) || !plainName(key) {
		return "", false
	}
	fi, err := os.Lstat(s.env.ProjectDir(key))
	return key, err == nil && fi.IsDir()
}

// projectRow is one project on the first page.
type projectRow struct {
	Key, Root, Name string
	Size            string
	Files           int
	Last            string
	Sessions        int
	Automated       int
	PerWeek         string
	Mix             template.HTML
	Classes         map[string]int
}

type projectsData struct {
	Projects []projectRow
	// Global is the global MEMORY.md line by line, each with who wrote
	// it when the person did not (see provenance).
	Global  []labelledLine
	Learned int
	Pending int
}

// labelledLine is a line of memory and, when the person did not write or
// confirm it, who did.
type labelledLine struct{ Text, Label string }

func (s *Server) projects(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	d := projectsData{}
	ents, _ := os.ReadDir(s.env.ProjectsDir())
	for _, de := range ents {
		if !de.IsDir() || !store.ValidKey(de.Name()) {
			continue
		}
		d.Projects = append(d.Projects, s.projectRow(de.Name()))
	}
	slices.SortStableFunc(d.Projects, func(a, b projectRow) int { return strings.Compare(b.Last, a.Last) })
	if data, err := store.ReadFileIn(s.env.Store, s.env.GlobalMemory(), 256<<10); err == nil {
		l := provenance.Load(s.env)
		for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			ll := labelledLine{Text: line}
			if sh := provenance.ShapeOf(line); sh.Kind != provenance.Blank && sh.Kind != provenance.Heading {
				ll.Label = l.Line(s.env.GlobalMemory(), line).Label()
			}
			d.Global = append(d.Global, ll)
		}
	}
	if all, _ := learn.List(r.Context(), s.env); all != nil {
		d.Learned = len(all)
	}
	if p, _ := learn.Pending(s.env); p != nil {
		d.Pending = len(p)
	}
	if u, _ := notes.ListUnconfirmed(s.env); u != nil {
		d.Pending += len(u)
	}
	s.render(w, r, start, http.StatusOK, "projects", "projects", "projects", d)
}

// projectRow sums up a project from its folder and its INDEX.md: the
// sessions a session start's menu is made of.
func (s *Server) projectRow(key string) projectRow {
	row := projectRow{Key: key, Classes: map[string]int{}}
	if root := s.env.ProjectRoot(key); root != "" {
		row.Root, row.Name = s.env.Tilde(root), filepath.Base(root)
	} else {
		row.Name = key
	}
	var size int64
	filepath.WalkDir(s.env.ProjectDir(key), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
				row.Files++
			}
		}
		return nil
	})
	row.Size = humanBytes(size)
	weekAgo4 := s.env.Time().Add(-28 * 24 * time.Hour).UTC().Format("2006-01-02 15:04")
	recent := 0
	for _, ie := range s.index(key) {
		if ie.Automated {
			row.Automated++
			continue
		}
		row.Sessions++
		row.Classes[ie.Class]++
		if ie.Started > row.Last {
			row.Last = ie.Started
		}
		if ie.Started >= weekAgo4 {
			recent++
		}
	}
	row.PerWeek = strconv.FormatFloat(float64(recent)/4, 'f', -1, 64)
	row.Mix = classMix(row.Classes)
	return row
}

// index reads a project's INDEX.md lines.
func (s *Server) index(key string) []session.IndexEntry {
	data, err := store.ReadFileIn(s.env.ProjectDir(key), s.env.IndexPath(key), 8<<20)
	if err != nil {
		return nil
	}
	var out []session.IndexEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 16<<10), 1<<20)
	for sc.Scan() {
		if ie, ok := session.ParseIndexLine(sc.Text()); ok {
			out = append(out, ie)
		}
	}
	return out
}

// timelineRow is one session on a project's page.
type timelineRow struct {
	ID, Started, Title, Class, Files, By string
	// Agent names another agent's session ("Codex"); "" for Claude Code's.
	Agent            string
	Turns            int
	Live, Checkpoint bool
}

type projectData struct {
	Key, Root, Name string
	Block           string
	Budget          template.HTML
	Sections        []sectionRow
	Chars, Limit    int
	Preamble        int
	Warnings        []string
	Disabled        bool
	Sessions        []timelineRow
	Automated       []timelineRow
	Archived        int
	Records         []recordRow
	RepoMemory      string
	RepoMemoryPath  string
	Briefing        string
	BriefingPath    string
}

type sectionRow struct {
	Name, Cut       string
	Shown, Total    int
	Chars, Guarantd int
}

type recordRow struct {
	Ref, Title, Status, Updated, Error string
}

func (s *Server) project(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	key, ok := s.projectKey(r)
	if !ok {
		s.notFound(w, r, start, "no project "+r.PathValue("key")+" in this store")
		return
	}
	d := projectData{Key: key, Name: key}
	root := s.env.ProjectRoot(key)
	if root != "" {
		d.Root, d.Name = s.env.Tilde(root), filepath.Base(root)
	}
	inj := memory.Compose(r.Context(), s.env, memory.StartRequest{Cwd: root, Source: "startup", CCMem: s.ccmem})
	d.Block, d.Warnings, d.Disabled = inj.Block.Text, inj.Warnings, inj.Disabled
	if root == "" {
		d.Warnings = append(d.Warnings, "this project's folder is not recorded: the block is what a session with no project gets")
	} else if inj.Project != nil && inj.Project.Key != key {
		d.Warnings = append(d.Warnings, "a session in "+d.Root+" now belongs to project "+inj.Project.Key+": the block is that project's")
	}
	b := inj.Block
	d.Chars, d.Limit = b.Chars, b.Budget
	rest := b.Chars
	for _, sec := range b.Sections {
		rest -= sec.Chars
		d.Sections = append(d.Sections, sectionRow{Name: sec.Name, Cut: sec.Cut, Shown: sec.Shown, Total: sec.Total, Chars: sec.Chars, Guarantd: sec.Guaranteed})
	}
	d.Budget, d.Preamble = budgetBar(b, rest), rest

	eps, live, _ := session.ListSessions(s.env, key, inj.Config)
	for _, f := range live {
		row := timeline(f)
		row.Live, row.Checkpoint = !f.Ended, true
		d.Sessions = append(d.Sessions, row)
	}
	for _, f := range eps {
		row := timeline(f)
		if f.Record.Automated {
			d.Automated = append(d.Automated, row)
		} else {
			d.Sessions = append(d.Sessions, row)
		}
	}
	if ents, err := store.ReadDirIn(s.env.ProjectDir(key), s.env.EpisodeArchiveDir(key)); err == nil {
		for _, de := range ents {
			if strings.HasSuffix(de.Name(), ".json") && !strings.HasPrefix(de.Name(), ".") {
				d.Archived++
			}
		}
	}
	if root != "" {
		for _, f := range records.List(root) {
			row := recordRow{Ref: filepath.Base(filepath.Dir(f.Path)) + "/" + strings.TrimSuffix(filepath.Base(f.Path), ".json")}
			if f.Err != nil {
				row.Error = f.Err.Error()
			} else if f.Record != nil {
				row.Ref = f.Record.Category + "/" + f.Record.ID
				row.Title, row.Status, row.Updated = f.Record.Title, f.Record.RecordStatus, f.Record.UpdatedAt
			}
			d.Records = append(d.Records, row)
		}
		d.RepoMemoryPath = s.env.Tilde(store.RepoMemory(root))
		if data, err := store.ReadFileIn(root, store.RepoMemory(root), 256<<10); err == nil {
			d.RepoMemory = string(data)
		}
	}
	d.BriefingPath = s.env.Tilde(s.env.BriefingPath(key))
	if data, err := store.ReadFileIn(s.env.ProjectDir(key), s.env.BriefingPath(key), 256<<10); err == nil {
		d.Briefing = string(data)
	}
	s.render(w, r, start, http.StatusOK, "project", d.Name, "projects", d)
}

func timeline(f session.SessionFile) timelineRow {
	c := f.Record
	row := timelineRow{ID: filepath.Base(f.Path), Started: started(c), Title: c.Title, Class: c.Friction.Class, Turns: c.Turns, By: c.AutomatedBy}
	if c.Agent != "" {
		row.Agent = session.AgentName(c.Agent)
	}
	if row.Title == "" {
		row.Title = c.Goal
	}
	row.Files = strings.Join(first(c.FilesChanged, 4), ", ")
	if n := len(c.FilesChanged) - 4; n > 0 {
		row.Files += " +" + itoa(n)
	}
	return row
}

// started is when a session started, or for a session that has not said
// anything yet, when its record was last written.
func started(c *session.Checkpoint) string {
	for _, s := range []string{c.StartedAt, c.UpdatedAt} {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC().Format("2006-01-02 15:04")
		}
	}
	return "?"
}

type episodeData struct {
	Key, Project string
	Path         string
	Rec          *session.Checkpoint
	Started      string
}

func (s *Server) episode(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	key, ok := s.projectKey(r)
	id := r.PathValue("id")
	if !ok || !plainName(id) {
		s.notFound(w, r, start, "no such project or session")
		return
	}
	f, err := session.FindSession(s.env, key, id)
	if err != nil {
		s.notFound(w, r, start, err.Error())
		return
	}
	name := key
	if root := s.env.ProjectRoot(key); root != "" {
		name = filepath.Base(root)
	}
	title := f.Record.Title
	if title == "" {
		title = f.Record.Goal
	}
	s.render(w, r, start, http.StatusOK, "episode", textfmt.Shorten(title, 60), "projects", episodeData{Key: key, Project: name, Path: s.env.Tilde(f.Path), Rec: f.Record, Started: started(f.Record)})
}

type frictionData struct {
	Key, Name   string
	Report      lessons.Report
	Chart       template.HTML
	Read, Total int
}

// frictionWindow is how many of the newest sessions the friction page
// reads unless asked for all: it keeps the page fast on a store of
// thousands (each record is read whole).
const frictionWindow = 1500

func (s *Server) friction(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	key, ok := s.projectKey(r)
	if !ok {
		s.notFound(w, r, start, "no project "+r.PathValue("key")+" in this store")
		return
	}
	n := frictionWindow
	if r.URL.Query().Get("all") == "1" {
		n = 0
	}
	eps, total, _ := session.RecentEpisodes(s.env, key, n)
	rep := lessons.Analyze(eps, time.Time{})
	if root := s.env.ProjectRoot(key); root != "" {
		rep.Effects = lessons.Measure(s.env, root, eps)
	}
	name := key
	if root := s.env.ProjectRoot(key); root != "" {
		name = filepath.Base(root)
	}
	s.render(w, r, start, http.StatusOK, "friction", "friction in "+name, "projects", frictionData{Key: key, Name: name, Report: rep, Chart: frictionChart(rep.Weeks), Read: len(eps), Total: total})
}

// hitRow is one search result, with where it lives.
type hitRow struct {
	Kind, Title, When, Project, Where, Link, Passage string
}

type searchData struct {
	Query string
	Hits  []hitRow
	Err   string
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	d := searchData{Query: q}
	if len(q) > 1000 {
		q = q[:1000]
	}
	if q != "" {
		hits, err := search.Search(r.Context(), s.env, q, search.Options{Limit: 30, Scope: search.ScopeOf(nil, true)})
		if err != nil {
			d.Err = err.Error()
		}
		for _, h := range hits {
			d.Hits = append(d.Hits, s.hitRow(h, q))
		}
	}
	s.render(w, r, start, http.StatusOK, "search", "search", "search", d)
}

func (s *Server) hitRow(h search.Hit, q string) hitRow {
	row := hitRow{Kind: h.Kind, Title: h.Title, Where: s.env.Tilde(h.Path)}
	if h.Line > 0 {
		row.Where += ":" + itoa(h.Line)
	}
	if !h.Time.IsZero() {
		row.When = h.Time.UTC().Format("2006-01-02")
	}
	key := s.env.ProjectKeyOf(h.Path)
	if key != "" {
		row.Project = key
		if root := s.env.ProjectRoot(key); root != "" {
			row.Project = filepath.Base(root)
		}
	}
	switch {
	case h.Kind == search.KindEpisode && key != "":
		row.Link = "p/" + url.PathEscape(key) + "/e/" + url.PathEscape(filepath.Base(h.Path))
		if h.Turn > 0 {
			row.Link += "#turn-" + itoa(h.Turn)
		}
		row.Passage = search.QuotePassage(h.Snippet, q, 300)
	case h.Kind == search.KindLearned:
		typ, file := filepath.Base(filepath.Dir(h.Path)), strings.TrimSuffix(filepath.Base(h.Path), ".md")
		row.Link = "learned?only=" + url.QueryEscape(typ+"/"+file) + "#" + anchor(typ, file)
		row.Passage = h.Snippet
	case key != "":
		row.Link = "p/" + url.PathEscape(key)
		row.Passage = h.Snippet
	default:
		row.Passage = h.Snippet
	}
	return row
}

// entryRow is a learned entry with its provenance; Label says who wrote it
// when the person did not accept it.
type entryRow struct {
	Type, Name, File, Anchor, Description, Path, Label string
	Provenance                                         [][2]string
	// Evidence is a rule's evidence, one item each, paths shortened.
	Evidence []string
	Body     []string
	Global   bool
}

type pendingRow struct {
	File, Name, Description, Text, Current string
	// View is the item as a person reads it (no frontmatter, no escapes).
	View learn.ReviewView
	// Same says it says what its accepted entry says: nothing to decide.
	Same bool
}

type learnedData struct {
	Entries []entryRow
	Pending []pendingRow
	// Unconfirmed is the memory the person did not write nor accept: the
	// assistant's notes, other machines' lines, entries curated from
	// Claude Code's memory, lines nothing accounts for (ccmem learn
	// review lists the same).
	Unconfirmed []notes.Unconfirmed
	Done        string
	Err         string
	// Total counts every entry; Only names the one entry shown (a search
	// hit's link), else the first learnedPage are shown unless All.
	Total int
	Only  string
	All   bool
}

// learnedPage is how many entries the learned page shows before "all".
const learnedPage = 300

// provenanceKeys are the frontmatter fields that say where an entry came
// from, in the order shown.
var provenanceKeys = []string{"source_cwd", "source", "original_path", "ingested_at", "accepted_at", "confidence"}

func (s *Server) learned(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q := r.URL.Query()
	d := learnedData{Done: q.Get("done"), Only: q.Get("only"), All: q.Get("all") == "1"}
	all, err := learn.List(r.Context(), s.env)
	if err != nil {
		d.Err = err.Error()
	}
	d.Total = len(all)
	ledger := provenance.Load(s.env)
	for _, e := range all {
		file := strings.TrimSuffix(filepath.Base(e.Path), ".md")
		if d.Only != "" && d.Only != e.Type+"/"+file || d.Only == "" && !d.All && len(d.Entries) == learnedPage {
			continue
		}
		row := entryRow{Type: e.Type, Name: e.Name, File: strings.TrimSuffix(filepath.Base(e.Path), ".md"), Anchor: anchor(e.Type, strings.TrimSuffix(filepath.Base(e.Path), ".md")), Description: e.Description, Path: s.env.Tilde(e.Path), Global: e.Global(),
			Label: ledger.File(e.Path, e.Digest).Label()}
		if data, err := store.ReadFileIn(s.env.LearnedDir(), e.Path, 1<<20); err == nil {
			if m, body, err := frontmatter.Read(data); err == nil {
				for _, k := range provenanceKeys {
					if v, ok := m.Fields[k]; ok && v != nil {
						row.Provenance = append(row.Provenance, [2]string{k, textfmt.Line(s.env.TildeText(stringOf(v)))})
					}
				}
				if ev, ok := m.Fields["evidence"].([]any); ok {
					for _, x := range ev {
						row.Evidence = append(row.Evidence, textfmt.Line(s.env.TildeText(stringOf(x))))
					}
				}
				row.Body = bodyLines(body, 8)
				// The rule is said once: a body that opens with the
				// description does not say it again.
				if len(row.Body) > 0 && sameWords(row.Body[0], e.Description) {
					row.Body = row.Body[1:]
				}
			}
		}
		d.Entries = append(d.Entries, row)
	}
	items, _ := learn.Pending(s.env)
	for _, it := range items {
		row := pendingRow{File: it.File, Name: it.Name, Description: it.Description, Current: s.env.Tilde(it.Current)}
		if data, err := store.ReadFileIn(s.env.Store, it.Path, 1<<20); err == nil {
			row.Text = string(learn.ReviewText(data))
			row.View, _ = learn.ReviewViewOf(s.env, data)
			if it.Current != "" {
				if cur, err := store.ReadFileIn(s.env.LearnedDir(), it.Current, 1<<20); err == nil {
					row.Same = string(learn.ReviewText(cur)) == row.Text
				}
			}
		}
		d.Pending = append(d.Pending, row)
	}
	d.Unconfirmed, _ = notes.ListUnconfirmed(s.env)
	s.render(w, r, start, http.StatusOK, "learned", "learned memory", "learned", d)
}

// confirmData is the page that asks before a change.
type confirmData struct {
	Action, What, Detail, Post string
	Fields                     [][2]string
}

// review accepts or rejects a pending item: the first POST asks, the
// second (confirmed=1) does it, as `ccmem learn review --accept/--reject`.
func (s *Server) review(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	name, action, reason := r.PostForm.Get("name"), r.PostForm.Get("action"), r.PostForm.Get("reason")
	if action != "accept" && action != "reject" {
		s.render(w, r, start, http.StatusBadRequest, "error", "error", "learned", "action must be accept or reject")
		return
	}
	items, err := learn.Pending(s.env)
	if err != nil {
		s.render(w, r, start, http.StatusInternalServerError, "error", "error", "learned", err.Error())
		return
	}
	it, ok := learn.Find(items, name)
	if !ok {
		// Memory the person did not write: confirmed or dismissed here, as
		// by `ccmem learn review --accept/--reject ID`.
		others, _ := notes.ListUnconfirmed(s.env)
		u, found := notes.FindUnconfirmed(others, name)
		if !found {
			s.render(w, r, start, http.StatusNotFound, "error", "not found", "learned", "nothing waits for review under "+name+" (it may have been decided already)")
			return
		}
		s.decideUnconfirmed(w, r, start, u, action, reason)
		return
	}
	if r.PostForm.Get("confirmed") != "1" {
		detail := "It becomes a learned feedback entry. It applies in "
		if data, err := store.ReadFileIn(s.env.Store, it.Path, 1<<20); err == nil {
			if v, ok := learn.ReviewViewOf(s.env, data); ok {
				detail += strings.TrimSuffix(strings.SplitN(v.Applies, ", once accepted", 2)[0], ".") + "."
			}
		}
		if action == "reject" {
			detail = "It is kept as rejected, with the reason, and not proposed again."
		}
		s.render(w, r, start, http.StatusOK, "confirm", action+" "+it.Name, "learned", confirmData{Action: action, What: it.Name, Detail: detail, Post: "learned/review",
			Fields: [][2]string{{"name", it.File}, {"action", action}, {"reason", reason}}})
		return
	}
	var dest string
	if action == "accept" {
		dest, err = learn.Accept(s.env, it, "ui")
	} else {
		dest, err = learn.Reject(s.env, it, reason)
	}
	if err != nil {
		s.render(w, r, start, http.StatusInternalServerError, "error", "error", "learned", err.Error())
		return
	}
	_, _ = learn.RefreshStatus(context.WithoutCancel(r.Context()), s.env, nil)
	done := action + "ed " + it.Name + " → " + s.env.Tilde(dest)
	http.Redirect(w, r, base(r)+"learned?done="+url.QueryEscape(done), http.StatusSeeOther)
}

// decideUnconfirmed confirms or dismisses memory the person did not
// write: the first POST asks, showing the text whole; the second does it.
func (s *Server) decideUnconfirmed(w http.ResponseWriter, r *http.Request, start time.Time, u notes.Unconfirmed, action, reason string) {
	if r.PostForm.Get("confirmed") != "1" {
		detail := "“" + textfmt.Line(u.Text) + "” (" + u.Origin.Label() + ") becomes yours: sessions in every project read it as your own word"
		if g := guardWord(u.Text); g != "" {
			detail += ", and " + g
		}
		detail += "."
		if action == "reject" {
			detail = "“" + textfmt.Line(u.Text) + "” moves to the archive, with the reason; sessions no longer see it. Nothing is deleted."
		}
		s.render(w, r, start, http.StatusOK, "confirm", action+" "+u.ID, "learned", confirmData{Action: action, What: textfmt.Shorten(u.Text, 80), Detail: detail, Post: "learned/review",
			Fields: [][2]string{{"name", u.ID}, {"action", action}, {"reason", reason}}})
		return
	}
	var done string
	if action == "accept" {
		if err := notes.Confirm(s.env, u, "ui"); err != nil {
			s.render(w, r, start, http.StatusInternalServerError, "error", "error", "learned", err.Error())
			return
		}
		done = "accepted " + u.ID + ": yours now, in every project"
	} else {
		dest, err := notes.Dismiss(s.env, u, reason)
		if err != nil {
			s.render(w, r, start, http.StatusInternalServerError, "error", "error", "learned", err.Error())
			return
		}
		done = "rejected " + u.ID + " → " + s.env.Tilde(dest)
	}
	_, _ = learn.RefreshStatus(context.WithoutCancel(r.Context()), s.env, nil)
	http.Redirect(w, r, base(r)+"learned?done="+url.QueryEscape(done), http.StatusSeeOther)
}

// guardWord says what a rule-like line does once it is the person's.
func guardWord(text string) string {
	if l := strings.ToLower(text); strings.Contains(l, "never") || strings.Contains(l, "don't") || strings.Contains(l, "do not") || strings.Contains(l, "before") {
		return "if it forbids a command, ccmem holds the first such call of a session"
	}
	return ""
}

// forget moves a learned entry to the archive with a reason, as `ccmem
// forget --reason WHY TYPE/NAME`; it asks first.
func (s *Server) forget(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	typ, name, reason := r.PostForm.Get("type"), r.PostForm.Get("name"), strings.TrimSpace(r.PostForm.Get("reason"))
	if !slices.Contains(learn.Types, typ) || !plainName(name) {
		s.render(w, r, start, http.StatusBadRequest, "error", "error", "learned", "no such learned entry")
		return
	}
	if reason == "" {
		s.render(w, r, start, http.StatusBadRequest, "error", "error", "learned", "say why it is forgotten: the reason is kept with it in the archive")
		return
	}
	if _, err := learn.EntryPath(s.env, typ, name); err != nil {
		s.render(w, r, start, http.StatusNotFound, "error", "not found", "learned", err.Error())
		return
	}
	if r.PostForm.Get("confirmed") != "1" {
		s.render(w, r, start, http.StatusOK, "confirm", "forget "+typ+"/"+name, "learned", confirmData{Action: "forget", What: typ + "/" + name,
			Detail: "It moves to the archive with the reason “" + reason + "”; sessions are no longer told it, and search no longer finds it. Nothing is deleted.",
			Post:   "learned/forget", Fields: [][2]string{{"type", typ}, {"name", name}, {"reason", reason}}})
		return
	}
	dest, err := learn.Forget(s.env, typ, name, "forgotten: "+reason)
	if err != nil {
		s.render(w, r, start, http.StatusInternalServerError, "error", "error", "learned", err.Error())
		return
	}
	_, _ = learn.RefreshStatus(context.WithoutCancel(r.Context()), s.env, nil)
	http.Redirect(w, r, base(r)+"learned?done="+url.QueryEscape("forgot "+typ+"/"+name+" → "+s.env.Tilde(dest)), http.StatusSeeOther)
}

// anchor is a learned entry's id in the page.
func anchor(typ, file string) string { return "e-" + typ + "-" + strings.ToLower(file) }

func bodyLines(body []byte, n int) []string {
	var out []string
	for _, l := range strings.Split(string(body), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(out) == n {
			out = append(out, "…")
			break
		}
		out = append(out, textfmt.Shorten(l, 300))
	}
	return out
}

func stringOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, stringOf(e))
		}
		return strings.Join(parts, "; ")
	}
	return strings.TrimSpace(strings.ReplaceAll(fmt.Sprint(v), "\n", " "))
}

func first(list []string, n int) []string { return list[:min(n, len(list))] }

// paras is a text's lines that hold words, a line that says what the one
// before it said left out (a rule's description, then its body opening
// with it).
func paras(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" || len(out) > 0 && sameWords(l, out[len(out)-1]) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// sameWords tells two texts that say the same words (case, spacing and
// end punctuation aside).
func sameWords(a, b string) bool {
	norm := func(s string) string {
		return strings.ToLower(strings.Join(strings.Fields(strings.TrimRight(s, ". ")), " "))
	}
	return norm(a) != "" && norm(a) == norm(b)
}

// inlineMarkdown renders one line of a memory's Markdown as a person
// reads it: the text escaped, `code spans` as code, **strong** as strong;
// nothing else of the line becomes markup.
func inlineMarkdown(line string) template.HTML {
	var b strings.Builder
	strong := false
	for i := 0; i < len(line); {
		switch {
		case line[i] == '`':
			if j := strings.IndexByte(line[i+1:], '`'); j >= 0 {
				b.WriteString("<code>" + html.EscapeString(line[i+1:i+1+j]) + "</code>")
				i += j + 2
				continue
			}
		case strings.HasPrefix(line[i:], "**"):
			if strong || strings.Contains(line[i+2:], "**") {
				if strong {
					b.WriteString("</strong>")
				} else {
					b.WriteString("<strong>")
				}
				strong = !strong
				i += 2
				continue
			}
		}
		j := i + 1
		for j < len(line) && line[j] != '`' && line[j] != '*' {
			j++
		}
		b.WriteString(html.EscapeString(line[i:j]))
		i = j
	}
	if strong {
		b.WriteString("</strong>")
	}
	return template.HTML(b.String())
}
