// Package guard is point-of-action memory: the standing rules a person gave
// — learned feedback, the project's preference and constraint records, and
// the rule-like lines of the global and the repository MEMORY.md — kept in
// a small precomputed index, so that the hook that runs before every tool
// call can find in microseconds the one or two that bear on a command or a
// file path.
package guard

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Kinds of rule.
const (
	KindFeedback   = "feedback"   // a learned feedback entry
	KindPreference = "preference" // a preference record
	KindConstraint = "constraint" // a constraint record
	KindRule       = "rule"       // a rule-like line of a MEMORY.md
)

// Rule is one standing rule.
type Rule struct {
	Kind string
	// By is who wrote it: the person (their feedback, their global
	// MEMORY.md) or the repository (its MEMORY.md and records, committed
	// by its authors). Memory the person did not write and did not accept
	// — the assistant's notes, what a sync brought, what was curated and
	// not reviewed — is no rule (see provenance).
	By provenance.By
	// Text is the rule, one line.
	Text string
	// Path is the file it comes from; Line its line (a MEMORY.md's), or 0.
	Path string
	Line int
	// Advisory marks a rule the person said only advises: it never holds
	// a call (learned feedback with "advisory: true").
	Advisory bool
	// terms are the rule's search terms, sorted, once each.
	terms []string
}

// Ref names the rule as search and the session's shown memory do.
func (r Rule) Ref() string { return store.MemoryRef(r.Path, r.Line) }

// Index is the rules of one project (or of no project), with the stamps of
// the files they were read from.
type Index struct {
	Rules  []Rule
	stamps []stamp
	// df is how many rules hold each term.
	df map[string]int
}

// stamp is what a source file or folder was when the index was built: a
// changed size or time (or one that appeared or went) makes it stale.
type stamp struct {
	path  string
	size  int64 // -1: absent
	mtime int64
}

// maxRuleChars bounds a rule's text; maxRules the rules one index holds.
const (
	maxRuleChars = 300
	maxRules     = 2000
	maxIndex     = 4 << 20
)

// header opens an index file; a file without it is rebuilt.
const header = "ccmem guard index 3\n"

// Path is where the index of the project key ("" for none) is kept: beside
// the search index, a cache that can always be rebuilt.
func Path(e store.Env, key string) string {
	if key == "" {
		key = "-"
	}
	return filepath.Join(search.Dir(e), "guard-"+key)
}

// Load reads the index of project p (nil: a folder that is no project),
// rebuilding it when a source changed, and writing it back for the next
// call. A read or a write that fails is no error: the rules are then read
// from their files.
func Load(e store.Env, p *store.Project) (*Index, error) {
	key, root, git := "", "", false
	if p != nil {
		key, root, git = p.Key, p.Root, p.Git
	}
	path := Path(e, key)
	if data, err := store.ReadSmallFile(path, maxIndex); err == nil {
		if idx, ok := decode(data); ok && idx.fresh() {
			return idx, nil
		}
	}
	idx := build(e, root, git)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
		_ = store.WriteFileAtomic(path, idx.encode())
	}
	return idx, nil
}

// sources are the files and folders the rules of root are read from.
func sources(e store.Env, root string) (dirs []string, files []string) {
	dirs = []string{filepath.Join(e.LearnedDir(), KindFeedback)}
	files = []string{e.GlobalMemory(), provenance.Path(e)}
	if root != "" {
		dirs = append(dirs, filepath.Join(records.Dir(root), KindPreference), filepath.Join(records.Dir(root), KindConstraint))
		files = append(files, store.RepoMemory(root))
	}
	return dirs, files
}

func stampOf(path string) stamp {
	fi, err := os.Lstat(path)
	if err != nil {
		return stamp{path: path, size: -1}
	}
	return stamp{path: path, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// fresh tells whether no source changed since the index was built.
func (x *Index) fresh() bool {
	for _, s := range x.stamps {
		if stampOf(s.path) != s {
			return false
		}
	}
	return true
}

// build reads the rules of the project rooted at root ("" for none).
func build(e store.Env, root string, git bool) *Index {
	x := &Index{}
	here := store.HereOf(root, git)
	dirs, files := sources(e, root)
	for _, p := range append(append([]string{}, dirs...), files...) {
		x.stamps = append(x.stamps, stampOf(p))
	}
	ledger := provenance.Load(e)
	files = slices.DeleteFunc(files, func(p string) bool { return p == provenance.Path(e) })
	// Learned feedback: the entry's description and the first line of its
	// body (the rule and its reason).
	fb := dirs[0]
	ents, _ := os.ReadDir(fb)
	for _, de := range ents {
		if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".md") || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		path := filepath.Join(fb, de.Name())
		x.stamps = append(x.stamps, stampOf(path))
		data, err := store.ReadSmallFile(path, 1<<20)
		if err != nil {
			continue
		}
		meta, body, err := frontmatter.Read(data)
		if err != nil || !ledger.File(path, provenance.Digest(data)).Standing() {
			continue // not accepted by the person, as this text: no rule
		}
		// A rule scoped to the project it was learned in holds only there.
		if scope, cwd := learn.ScopeOf(meta); scope == learn.ScopeProject && !here.Holds(cwd, "") {
			continue
		}
		text := strings.TrimSpace(meta.Description)
		if first := firstLine(body); first != "" && !strings.Contains(text, first) {
			text = strings.TrimSuffix(text, ".") + ". " + first
		}
		x.add(KindFeedback, provenance.Person, text, path, 0)
		if adv, _ := meta.Fields["advisory"].(bool); adv {
			x.Rules[len(x.Rules)-1].Advisory = true
		}
	}
	// The project's preference and constraint records, in force.
	if root != "" {
		for _, f := range records.List(root) {
			r := f.Record
			if f.Err != nil || r == nil || r.Category != KindPreference && r.Category != KindConstraint || r.RecordStatus != "" && r.RecordStatus != "active" {
				continue
			}
			x.stamps = append(x.stamps, stampOf(f.Path))
			text := r.Title
			switch r.Category {
			case KindConstraint:
				if active, ok := r.Content["active"].(bool); ok && !active {
					continue
				}
				if rule, _ := r.Content["rule"].(string); rule != "" {
					text += ": " + rule
				}
			case KindPreference:
				topic, _ := r.Content["topic"].(string)
				value, _ := r.Content["value"].(string)
				text += ": " + strings.TrimSpace(topic+" → "+value)
			}
			if len(r.RelatedFiles) > 0 {
				text += " (" + strings.Join(r.RelatedFiles[:min(3, len(r.RelatedFiles))], ", ") + ")"
			}
			x.add(r.Category, provenance.Repository, text, f.Path, 0)
		}
	}
	// Rule-like lines of the global and the repository MEMORY.md.
	for i, path := range files {
		var data []byte
		var err error
		if i == 0 {
			data, err = store.ReadSmallFile(path, 4<<20)
		} else {
			data, err = store.ReadFileIn(root, path, 4<<20)
		}
		if err != nil {
			continue
		}
		// Every line shape counts (a bullet of any marker or depth, a
		// numbered item, a plain line, a quote): provenance.ShapeOf takes
		// it apart as every other reader does, and only a line the ledger
		// attests as the person's is theirs.
		ruleSection := false
		for n, l := range strings.Split(string(data), "\n") {
			sh := provenance.ShapeOf(l)
			switch sh.Kind {
			case provenance.Blank:
				continue
			case provenance.Heading:
				ruleSection = IsRuleHeading(sh.Text)
				continue
			}
			item := sh.Text
			if !ruleSection && !IsRule(item) {
				continue
			}
			if i == 0 {
				if ledger.Line(path, l).Standing() {
					x.add(KindRule, provenance.Person, item, path, n+1)
				}
				continue
			}
			x.add(KindRule, provenance.Repository, item, path, n+1)
		}
	}
	x.count()
	return x
}

func firstLine(body []byte) string {
	for _, l := range strings.Split(string(body), "\n") {
		if sh := provenance.ShapeOf(l); sh.Kind != provenance.Blank && sh.Kind != provenance.Heading {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// add keeps a rule, one line, within maxRuleChars, with its terms.
func (x *Index) add(kind string, by provenance.By, text, path string, line int) {
	text = textfmt.Line(textfmt.Shorten(strings.Join(strings.Fields(text), " "), maxRuleChars))
	if text == "" || len(x.Rules) >= maxRules {
		return
	}
	terms := search.Terms(spaced(text))
	slices.Sort(terms)
	terms = slices.Compact(terms)
	x.Rules = append(x.Rules, Rule{Kind: kind, By: by, Text: text, Path: path, Line: line, terms: terms})
}

// count fills df.
func (x *Index) count() {
	x.df = map[string]int{}
	for _, r := range x.Rules {
		for _, t := range r.terms {
			x.df[t]++
		}
	}
}

// encode writes the index as lines: the header, "S size mtime path" per
// stamp, then "R kind by line path", its text and its terms per rule
// (fields tab-separated; a path or a text never holds a tab or a newline).
func (x *Index) encode() []byte {
	var b bytes.Buffer
	b.WriteString(header)
	for _, s := range x.stamps {
		fmt.Fprintf(&b, "S\t%d\t%d\t%s\n", s.size, s.mtime, clean(s.path))
	}
	for _, r := range x.Rules {
		adv := "-"
		if r.Advisory {
			adv = "advisory"
		}
		fmt.Fprintf(&b, "R\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Kind, r.By, r.Line, clean(r.Path), clean(r.Text), strings.Join(r.terms, " "), adv)
	}
	return b.Bytes()
}

func clean(s string) string { return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s) }

// decode reads an index; ok is false for anything else (it is rebuilt).
func decode(data []byte) (*Index, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(header))
	if !ok {
		return nil, false
	}
	x := &Index{}
	sc := bufio.NewScanner(bytes.NewReader(rest))
	sc.Buffer(make([]byte, 0, 4096), maxIndex)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch {
		case len(f) == 4 && f[0] == "S":
			size, err1 := strconv.ParseInt(f[1], 10, 64)
			mtime, err2 := strconv.ParseInt(f[2], 10, 64)
			if err1 != nil || err2 != nil {
				return nil, false
			}
			x.stamps = append(x.stamps, stamp{path: f[3], size: size, mtime: mtime})
		case len(f) == 8 && f[0] == "R":
			line, err := strconv.Atoi(f[3])
			if err != nil || line < 0 || len(x.Rules) >= maxRules {
				return nil, false
			}
			x.Rules = append(x.Rules, Rule{Kind: f[1], By: provenance.By(f[2]), Line: line, Path: f[4], Text: f[5], terms: strings.Fields(f[6]),
				Advisory: f[7] == "advisory"})
		default:
			return nil, false
		}
	}
	if sc.Err() != nil || len(x.stamps) == 0 {
		return nil, false
	}
	x.count()
	return x, true
}

// Match is a rule that bears on an action, and how well.
type Match struct {
	Rule
	// Terms are the action's words the rule holds.
	Terms []string
	Score float64
}

// commonWords are words of commands and paths too common to tie a rule to
// an action on their own.
var commonWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`run runs test tests go cd ls cat echo grep sed awk find sudo sh bash exec env export src bin lib
		tmp dev usr home file files dir new old use using with without the and not never always don't do make build main
		true false null none all one two get set add list show print out in on of to for from by at is are be it this that
		json yaml yml md txt log go py js ts tsx jsx rs java rb php sh html css sql toml lock mod sum cfg ini conf xml csv
		http https www com org io api app apps internal pkg cmd test_ spec specs`) {
		for _, t := range search.Terms(w) {
			m[t] = true
		}
	}
	return m
})

// Find returns the rules that bear on an action — a shell command, or the
// path of a file about to be written — best first, at most max: a rule
// holding two of the action's words, or one that few rules hold and that
// is not a word every command has, bears on it. At most most are returned.
func (x *Index) Find(action string, most int) []Match {
	if len(x.Rules) == 0 || most <= 0 {
		return nil
	}
	var want []string
	for _, t := range search.Terms(spaced(action)) {
		if !commonWords()[t] && !slices.Contains(want, t) {
			want = append(want, t)
		}
	}
	if len(want) == 0 {
		return nil
	}
	var out []Match
	for _, r := range x.Rules {
		var hit []string
		score := 0.0
		rare := false
		for _, t := range want {
			if m := r.holds(t); m != "" {
				hit = append(hit, m)
				// Rarer among the rules, more telling.
				score += 1 / float64(max(x.df[m], 1))
				rare = x.df[m] <= max(2, len(x.Rules)/20) && len([]rune(m)) >= 3
			}
		}
		rare = rare && len(hit) == 1
		if len(hit) >= 2 || rare {
			out = append(out, Match{Rule: r, Terms: hit, Score: score + float64(len(hit))})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out[:min(len(out), most)]
}

// spaced makes the parts of paths and options words: "db/migrations/0003.sql",
// "--dry-run", "KEY=value".
var spaced = strings.NewReplacer("/", " ", "\\", " ", "_", " ", "=", " ", ":", " ").Replace

// holds returns the rule's term that matches t: t itself, or one that
// begins with t or that t begins with, of at least 5 letters ("migrat"
// and "migration": the stemmer is light); "" for none.
func (r Rule) holds(t string) string {
	i, ok := slices.BinarySearch(r.terms, t)
	if ok {
		return t
	}
	if len(t) < minPrefix {
		return ""
	}
	if i < len(r.terms) && strings.HasPrefix(r.terms[i], t) {
		return r.terms[i]
	}
	for n := len(t) - 1; n >= minPrefix; n-- {
		if _, ok := slices.BinarySearch(r.terms, t[:n]); ok {
			return t[:n]
		}
	}
	return ""
}

// minPrefix is the shortest term a prefix match counts for.
const minPrefix = 5

// ruleWords mark a line as a rule, in the languages ccmem's users write.
var ruleWords = []string{
	// English
	"never ", "always ", "don't ", "do not ", "must ", "mustn't", "should ", "shouldn't", "avoid ", "prefer ", "instead of",
	"make sure", "not allowed", "forbidden", "required", "only use",
	// Chinese, Japanese
	"不要", "别", "必须", "禁止", "总是", "務必", "务必", "不得", "请勿", "一律", "不能", "しない", "必ず", "ないこと",
	// Spanish, German, French, Portuguese
	"nunca ", "siempre ", "no uses", "evita", "debe ", "hay que", "prefiero", "nie ", "niemals", "immer ", "muss ", "kein ",
	"jamais", "toujours", "ne pas", "doit ", "éviter", "sempre ", "não ",
}

// IsRule tells whether a memory line reads as a standing rule ("never run
// migrations without --dry-run", "必须先跑测试").
func IsRule(line string) bool {
	l := " " + strings.ToLower(line) + " "
	for _, w := range ruleWords {
		if strings.Contains(l, " "+w) || !isASCII(w) && strings.Contains(l, w) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// ruleHeadings name MEMORY.md sections whose every line is a rule.
var ruleHeadings = []string{"rule", "preference", "feedback", "convention", "constraint", "guideline", "style", "don't", "do not",
	"规则", "偏好", "约定", "规范", "ルール", "規約", "reglas", "preferencias", "convenciones", "regeln", "règles"}

// IsRuleHeading tells whether a MEMORY.md heading names a section of rules.
func IsRuleHeading(h string) bool {
	h = strings.ToLower(h)
	for _, w := range ruleHeadings {
		if strings.Contains(h, w) {
			return true
		}
	}
	return false
}
