package search

import (
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/lazyregexp"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// The kinds of memory search finds.
const (
	KindGlobal   = "global"   // a line of the global MEMORY.md
	KindProject  = "project"  // a line of a repository's MEMORY.md
	KindTopic    = "topic"    // a topic file beside either MEMORY.md
	KindLearned  = "learned"  // a learned entry
	KindRecord   = "record"   // a project record
	KindBriefing = "briefing" // a line of a project briefing
	KindEpisode  = "episode"  // a finished session, archived ones too
)

// Kinds lists the kinds, in the order help shows them.
var Kinds = []string{KindGlobal, KindProject, KindTopic, KindLearned, KindRecord, KindBriefing, KindEpisode}

// The fields of a document, by weight: a name, title or goal counts most,
// a description, heading or outcome next, a body least.
const (
	fieldTitle = iota
	fieldDesc
	fieldBody
	nFields
)

// Doc is one searchable memory: a line of a MEMORY.md or briefing, or a
// whole entry, record, topic file or episode.
type Doc struct {
	Kind string
	Path string
	// Line is the line of Path the memory is on (0: the whole file).
	Line int
	// Title is what a hit shows first; Snippet the text after it.
	Title   string
	Snippet string
	// Time orders equal scores, newest first (zero when unknown).
	Time time.Time
	// Scope is the project root a learned project or reference entry
	// belongs to ("" for memory of every project).
	Scope string
	// Hidden marks memory that is kept but forgotten (a retired or
	// archived record): found only when asked for (Options.Forgotten),
	// never recalled.
	Hidden bool
	// Turn is the turn of a session a passage was said in (0: not a
	// passage). A passage is one note of an episode's digest: its Line
	// numbers it within the episode (from 1), and Parent is 1 + the index
	// of its episode's doc among the unit's docs (0: none).
	Turn   int
	Parent int
	Fields [nFields]string
	// Said marks the fields that hold what the model said (a session's
	// conclusions, a passage's answer) rather than what a person wrote or
	// a tool reported: a prompt's words found there are weaker evidence
	// (see evidence), as a generic reply holds many words.
	Said [nFields]bool
	// Asked is what a person wrote in a Said field (a passage's question
	// beside its answer): its words are the person's, not the model's.
	Asked string
	// Dates are terms indexed as they are, beside the body's: the day the
	// memory was said and the days it names (see dateTerms).
	Dates []string
}

// Ref identifies a memory for "already shown": the file, and the line for
// a line of a file.
func (d Doc) Ref() string { return Ref(d.Path, d.Line) }

// Ref identifies the memory at line of path (0: the whole file); see
// store.MemoryRef.
func Ref(path string, line int) string { return store.MemoryRef(path, line) }

// refKeyLen is the size of a store.RefKey.
const refKeyLen = store.RefKeyLen

// RefKey is store.RefKey.
func RefKey(ref string) [refKeyLen]byte { return store.RefKey(ref) }

// Limits of what one file gives search.
const (
	maxMarkdown = 8 << 20 // a MEMORY.md or briefing
	maxEntry    = 1 << 20 // a learned entry, record, topic file or episode
	maxBody     = 64 << 10
	snippetLen  = 160
	titleLen    = 120
)

var mdLink = lazyregexp.New(`\[([^\]]*)\]\(([^)]*)\)`)

// markdownDocs makes a doc of each line of a MEMORY.md-like file: bullets
// and plain lines, each with the heading above it as its description.
func markdownDocs(kind, path string, data []byte) []Doc {
	var out []Doc
	heading := ""
	inFence := false
	for i, line := range strings.Split(textfmt.ValidUTF8(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
			continue
		}
		if t == "" || inFence || strings.HasPrefix(t, "<!--") {
			continue
		}
		sh := provenance.ShapeOf(t)
		if sh.Kind == provenance.Heading {
			heading = sh.Text
			continue
		}
		text := mdLink.ReplaceAllString(sh.Text, "$1")
		if strings.TrimSpace(text) == "" {
			continue
		}
		d := Doc{Kind: kind, Path: path, Line: i + 1, Title: textfmt.Shorten(text, titleLen), Snippet: textfmt.Shorten(heading, snippetLen)}
		d.Fields[fieldTitle] = text
		d.Fields[fieldDesc] = heading
		// A linked topic file's name is worth finding too.
		for _, m := range mdLink.FindAllStringSubmatch(t, -1) {
			d.Fields[fieldBody] += " " + strings.TrimSuffix(filepath.Base(m[2]), ".md")
		}
		out = append(out, d)
	}
	return out
}

// topicDoc makes one doc of a topic file: its first heading (else its
// name) as title, its text as body.
func topicDoc(path string, data []byte) Doc {
	text := textfmt.ValidUTF8(data)
	title := strings.TrimSuffix(filepath.Base(path), ".md")
	for _, l := range strings.Split(text, "\n") {
		if sh := provenance.ShapeOf(l); sh.Kind == provenance.Heading {
			title = sh.Text
			break
		}
	}
	d := Doc{Kind: KindTopic, Path: path, Title: textfmt.Shorten(title, titleLen), Snippet: firstText(text)}
	d.Fields[fieldTitle] = title + " " + strings.TrimSuffix(filepath.Base(path), ".md")
	d.Fields[fieldBody] = capText(text)
	return d
}

// learnedDoc makes one doc of a learned entry: name, description, body.
func learnedDoc(typ, path string, data []byte) (Doc, bool) {
	meta, body, err := frontmatter.Read(data)
	if err != nil {
		return Doc{}, false
	}
	name := meta.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	d := Doc{Kind: KindLearned, Path: path, Title: textfmt.Shorten(typ+"/"+name, titleLen), Snippet: textfmt.Shorten(meta.Description, snippetLen)}
	if d.Snippet == "" {
		d.Snippet = firstText(string(body))
	}
	if typ == "project" || typ == "reference" {
		if s, ok := meta.Fields["source_cwd"].(string); ok {
			d.Scope = filepath.Clean(s)
		}
	}
	if t, ok := meta.Fields["source_modified"].(string); ok {
		d.Time, _ = time.Parse(time.RFC3339Nano, t)
	}
	d.Fields[fieldTitle] = strings.ReplaceAll(name, "-", " ")
	d.Fields[fieldDesc] = meta.Description
	d.Fields[fieldBody] = capText(textfmt.ValidUTF8(body))
	return d, true
}

// recordDoc makes one doc of a project record: title; tags and category;
// its content's text and related files.
func recordDoc(root, path string) (Doc, bool) {
	rf := records.Read(root, path)
	r := rf.Record
	if r == nil {
		return Doc{}, false
	}
	d := Doc{Kind: KindRecord, Path: path, Title: textfmt.Shorten(r.Title, titleLen)}
	d.Time, _ = time.Parse(time.RFC3339Nano, r.UpdatedAt)
	var body []string
	collectStrings(r.Content, &body)
	body = append(body, r.RelatedFiles...)
	status := ""
	if r.RecordStatus != "" && r.RecordStatus != records.StatusActive {
		status = " (" + r.RecordStatus + ")"
		d.Hidden = true
	}
	d.Snippet = textfmt.Shorten(r.Category+status+": "+strings.Join(body, " · "), snippetLen)
	d.Fields[fieldTitle] = r.Title
	d.Fields[fieldDesc] = r.Category + " " + strings.Join(r.Tags, " ")
	d.Fields[fieldBody] = capText(strings.Join(body, "\n"))
	return d, true
}

func collectStrings(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			collectStrings(e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			collectStrings(x[k], out)
		}
	}
}

// episodeDocs makes the docs of an episode: one for the session (its
// title and first prompt, its conclusions, and all its digest holds), then
// one passage per note of its digest (a prompt, a conclusion, a failure or
// a fix), whose Parent is the session's doc (1: the first of those
// returned; unit.docs makes it the unit's index).
func episodeDocs(path string, data []byte) []Doc {
	ep, err := episode.Decode(data)
	if err != nil || strings.TrimSpace(ep.Goal) == "" && strings.TrimSpace(ep.Title) == "" {
		return nil
	}
	title := ep.Title
	if title == "" {
		title = ep.Goal
	}
	d := Doc{Kind: KindEpisode, Path: path, Title: textfmt.Shorten(title, titleLen)}
	when := "unknown time"
	if t, err := time.Parse(time.RFC3339Nano, ep.StartedAt); err == nil {
		d.Time = t
		when = t.UTC().Format("2006-01-02 15:04")
	}
	parts := []string{when, textfmt.Plural(ep.Turns, "turn", "turns")}
	if ep.Agent != "" {
		parts = append(parts, "in "+agentName(ep.Agent))
	}
	if ep.Automated {
		parts = append(parts, "automated")
	}
	if ep.Friction.Class != "" {
		parts = append(parts, ep.Friction.Class)
	}
	if len(ep.FilesChanged) > 0 {
		parts = append(parts, strings.Join(ep.FilesChanged[:min(3, len(ep.FilesChanged))], ", "))
	}
	if ep.Outcome != "" {
		parts = append(parts, ep.Outcome)
	}
	d.Snippet = textfmt.Shorten(strings.Join(parts, " · "), snippetLen)
	d.Fields[fieldTitle] = title + " " + ep.Goal
	var desc, body []string
	desc = append(desc, ep.Outcome)
	for _, n := range ep.Digest.Notes {
		switch n.Kind {
		case "answer", "opening":
			desc = append(desc, n.Text)
		default:
			body = append(body, n.Cmd, n.Text)
		}
	}
	d.Fields[fieldDesc] = capText(strings.Join(desc, "\n"))
	d.Said[fieldDesc] = true
	files := strings.Join(append(append(append([]string{}, ep.FilesChanged...), ep.Digest.Read...), ep.Digest.Commands...), " ")
	body = append(body, strings.NewReplacer("/", " ", ".", " ", "_", " ").Replace(files), ep.GitBranch)
	d.Fields[fieldBody] = capText(strings.Join(body, "\n"))
	if !d.Time.IsZero() {
		// The session's days: the one it was held, and the ones its
		// notes name, each resolved against the day it was said.
		d.Dates = dateTerms("", d.Time)
		for _, n := range ep.Digest.Notes {
			at := d.Time
			if t, err := time.Parse(time.RFC3339Nano, n.At); err == nil {
				at = t
			}
			d.Dates = append(d.Dates, dateTerms(n.Text, at)...)
		}
		d.Dates = dedupe(d.Dates)
	}
	out := []Doc{d}
	// A turn's prompts and conclusions are one passage, so that a passage
	// found by the question it asked quotes the answer too; a failed
	// command and its fix are passages of their own (found by the error).
	notes := ep.Digest.Notes
	for i := 0; i < len(notes); i++ {
		n := notes[i]
		if strings.TrimSpace(n.Text) == "" || n.Kind == "triage" {
			continue
		}
		// What was said before the first prompt (turn 0) is read with
		// turn 1.
		p := Doc{Kind: KindEpisode, Path: path, Line: i + 1, Turn: max(n.Turn, 1), Title: d.Title, Time: d.Time, Parent: 1}
		if t, err := time.Parse(time.RFC3339Nano, n.At); err == nil {
			p.Time = t
		}
		switch n.Kind {
		case "opening":
			p.Snippet = PassageText("", n.Text)
			p.Fields[fieldBody] = capText(n.Text) // often what the person said before, recalled: their facts
			p.Dates = dateTerms(n.Text, p.Time)
			out = append(out, p)
		case "prompt", "answer":
			var asked, said []string
			j := i
			for ; j < len(notes) && notes[j].Turn == n.Turn && (notes[j].Kind == "prompt" || notes[j].Kind == "answer"); j++ {
				if t := strings.TrimSpace(notes[j].Text); t != "" && notes[j].Kind == "prompt" {
					asked = append(asked, t)
				} else if t != "" {
					said = append(said, t)
				}
			}
			i = j - 1
			for _, c := range turnPassages(strings.Join(asked, " "), strings.Join(said, " ")) {
				q := p
				q.Snippet = c.snippet
				q.Fields[fieldBody] = capText(c.asked + "\n" + c.said)
				q.Said[fieldBody], q.Asked = true, capText(c.asked)
				q.Dates = dateTerms(c.asked+"\n"+c.said, q.Time)
				out = append(out, q)
			}
		default:
			text := n.Text
			if n.Cmd != "" {
				text = n.Cmd + ": " + text
			}
			p.Snippet = textfmt.Shorten(text, passageLen)
			p.Fields[fieldBody] = capText(text)
			p.Dates = dateTerms(text, p.Time)
			out = append(out, p)
		}
	}
	return out
}

// chunk is one passage of a turn: what was asked and what was concluded,
// indexed, and the text kept to quote.
type chunk struct{ asked, said, snippet string }

// turnPassages cuts a turn into passages: one (what was asked, then what
// was concluded) when it fits passageLen; else what was asked in pieces of
// whole sentences (each quoting the start of the conclusion after it), and
// the conclusion on its own — so a fact deep in a long prompt is quoted,
// not cut away.
func turnPassages(asked, said string) []chunk {
	if textfmt.Chars(asked)+textfmt.Chars(said) <= passageLen {
		return []chunk{{asked, said, PassageText(asked, said)}}
	}
	tail := textfmt.Shorten(said, passageLen/4)
	var out []chunk
	var cur []string
	n := 0
	flush := func() {
		if len(cur) > 0 {
			text := strings.Join(cur, " ")
			out = append(out, chunk{text, tail, PassageText(text, tail)})
			cur, n = nil, 0
		}
	}
	for _, s := range sentences(strings.Join(strings.Fields(asked), " ")) {
		if k := textfmt.Chars(s); n > 0 && n+1+k > pieceLen {
			flush()
		}
		cur = append(cur, s)
		n += textfmt.Chars(s) + 1
	}
	flush()
	if said != "" {
		out = append(out, chunk{"", said, PassageText("", said)})
	}
	return out
}

// turnMark joins what a turn asked to what it concluded in a passage's
// text.
const turnMark = "\n→ "

// PassageText is the stored text of a turn's passage: what was asked,
// then what was concluded, within passageLen (what was asked first).
func PassageText(asked, said string) string {
	switch {
	case said == "":
		return textfmt.Shorten(asked, passageLen)
	case asked == "":
		return "→ " + textfmt.Shorten(said, passageLen)
	}
	q := textfmt.Shorten(asked, passageLen-min(textfmt.Chars(said), passageLen/4))
	return q + turnMark + textfmt.Shorten(said, max(passageLen-textfmt.Chars(q), passageLen/4))
}

// QuotePassage quotes a passage for query within max characters: the
// sentences that answer the query (Quote), what was asked and what was
// concluded told apart by an arrow. When the conclusion matches the query
// as well as the question does, it is quoted first: it holds the answer.
func QuotePassage(text, query string, max int) string {
	asked, said, ok := strings.Cut(text, turnMark)
	if !ok {
		return Quote(strings.TrimPrefix(text, "→ "), query, max)
	}
	whole := asked + " \u2192 " + said
	if _, a := quote(asked, query, max); a >= 0 {
		if s, b := quote(said, query, max); b >= a && b > 0 && textfmt.Chars(whole) > max {
			return s
		}
	}
	// The arrow is a sentence of its own, so it stays where it belongs.
	q := Quote(whole, query, max)
	return strings.TrimPrefix(strings.TrimSuffix(q, " \u2192"), "\u2192 ")
}

// passageLen is how much of a passage the index keeps to quote.
const passageLen = 800

// pieceLen is the most of a long prompt one passage holds (whole
// sentences; a sentence longer than that is a piece of its own).
const pieceLen = 480

// firstText is the first line of text that is not a heading, shortened.
func firstText(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if sh := provenance.ShapeOf(l); sh.Kind != provenance.Blank && sh.Kind != provenance.Heading && !strings.HasPrefix(sh.Text, "---") {
			return textfmt.Shorten(mdLink.ReplaceAllString(sh.Text, "$1"), snippetLen)
		}
	}
	return ""
}

func capText(s string) string {
	if len(s) > maxBody {
		return s[:maxBody]
	}
	return s
}

// agentName is how a session's agent is named to a person.
func agentName(agent string) string {
	if agent == "codex" {
		return "Codex"
	}
	return agent
}
