package notes

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ccmem/ccmem/pkg/profiles"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/redact"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// MaxBriefingLines is what a session start injects of a briefing (seed
// 003: 80 lines).
const MaxBriefingLines = 80

// DraftBriefing drafts a project's briefing from its newest sessions
// (episodes, newest first; automated runs left out; at most n): a
// synthesis, not a list — the goals being worked toward (sessions on one
// subject are one goal, with how its last session ended), the decisions in
// force (active decision records, then decisions the sessions stated, a
// later one on the same subject replacing the earlier), the open threads
// (a command that failed and no later session ran cleanly, a session that
// went badly with nothing on its subject since, deferred work and next
// steps the records hold), what changed since the current briefing was
// written (since, when not zero), and the files and commands that recur.
// At most 80 lines, every line from the sessions' own records and the
// repository's; deterministic: no model is asked.
func DraftBriefing(p store.Project, eps []session.SessionFile, n int, since time.Time) string {
	var recent []*session.Checkpoint
	for _, f := range eps {
		if c := f.Record; !c.Automated && len(recent) < n {
			recent = append(recent, c)
		}
	}
	var b strings.Builder
	name := filepath.Base(p.Root)
	if len(recent) == 0 {
		fmt.Fprintf(&b, "# %s\n\n(no sessions recorded yet to draft a briefing from)\n", name)
		return b.String()
	}
	from, to := day(recent[len(recent)-1].StartedAt), day(recent[0].StartedAt)
	fmt.Fprintf(&b, "# %s\n\nDrafted by `ccmem briefing draft` from the %s between %s and %s; edit it freely.\n",
		name, textfmt.Plural(len(recent), "newest session", "newest sessions"), from, to)
	section := func(title string, lines []string, max int) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n", title)
		for _, l := range lines[:min(max, len(lines))] {
			b.WriteString(textfmt.Line(textfmt.Shorten(l, 200)) + "\n")
		}
		if len(lines) > max {
			fmt.Fprintf(&b, "- … and %d more\n", len(lines)-max)
		}
	}
	recs := activeRecords(p.Root)
	open := openFailures(recent)
	section("Goals", goals(recent, open), 8)
	section("Decisions in force", decisionsInForce(recent, recs), 10)
	section("Open threads", openThreads(recent, open, recs), 10)
	if !since.IsZero() {
		section("What changed since the briefing of "+since.UTC().Format("2006-01-02"), changedSince(recent, recs, since), 8)
	}
	files, commands := map[string]int{}, map[string]int{}
	for _, c := range recent {
		for _, f := range dedupe(c.FilesChanged) {
			files[f]++
		}
		for _, k := range dedupe(mapStrings(c.Digest.Commands, transcript.CommandKey)) {
			if k != "" {
				commands[k]++
			}
		}
	}
	section("Files that recur", recurring(files, "- %s (%s)", "changed in"), 8)
	section("Commands that recur", recurring(commands, "- `%s` (%s)", "run in"), 6)
	text, _ := redact.String(b.String())
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return strings.Join(lines[:min(MaxBriefingLines, len(lines))], "\n") + "\n"
}

// activeRecords are the repository's active records.
func activeRecords(root string) []*records.Record {
	var out []*records.Record
	for _, rf := range records.List(root) {
		if r := rf.Record; rf.Err == nil && r != nil && r.RecordStatus == records.StatusActive {
			out = append(out, r)
		}
	}
	return out
}

// failure is a command that failed in a session and that no later session
// ran cleanly: an open thread.
type failure struct {
	cmd, text, day string
	session        *session.Checkpoint
}

// openFailures are the commands (by key) that failed in a session, were
// not fixed in it, and were not run cleanly by a later session: newest
// first.
func openFailures(recent []*session.Checkpoint) []failure {
	cleanLater := map[string]bool{} // run without failing in a newer session
	var out []failure
	for _, c := range recent { // newest first
		failed, fixed := map[string]bool{}, map[string]bool{}
		for _, nt := range c.Digest.Notes {
			switch nt.Kind {
			case session.NoteFailure:
				failed[transcript.CommandKey(nt.Cmd)] = true
			case session.NoteFix:
				fixed[transcript.CommandKey(nt.Cmd)] = true
			}
		}
		reported := map[string]bool{}
		for _, nt := range c.Digest.Notes {
			k := transcript.CommandKey(nt.Cmd)
			if nt.Kind == session.NoteFailure && !fixed[k] && !cleanLater[k] && !reported[k] {
				reported[k] = true
				out = append(out, failure{cmd: nt.Cmd, text: nt.Text, day: day(c.StartedAt), session: c})
			}
		}
		for _, cmd := range c.Digest.Commands {
			if k := transcript.CommandKey(cmd); !failed[k] || fixed[k] {
				cleanLater[k] = true
			}
		}
	}
	return out
}

// goals are the subjects the sessions worked on, newest first: sessions
// whose titles share their subject's words are one goal, said by its
// newest title, with how many sessions and how the last one ended.
func goals(recent []*session.Checkpoint, open []failure) []string {
	type goal struct {
		title, first, last string
		words              map[string]bool
		n                  int
		newest             *session.Checkpoint
	}
	var list []*goal
	for _, c := range recent {
		t := cmp.Or(c.Title, c.Goal)
		if t == "" {
			continue
		}
		w := subjectWords(t)
		var g *goal
		for _, x := range list {
			if sameSubject(x.words, w) {
				g = x
				break
			}
		}
		if g == nil {
			g = &goal{title: t, last: day(c.StartedAt), words: w, newest: c}
			list = append(list, g)
		}
		g.n++
		g.first = day(c.StartedAt)
		maps.Copy(g.words, w)
	}
	var out []string
	for _, g := range list {
		when := g.last
		if g.n > 1 {
			when = fmt.Sprintf("%d sessions, %s to %s", g.n, g.first, g.last)
		}
		out = append(out, fmt.Sprintf("- %s (%s) — %s", g.title, when, howItEnded(g.newest, open)))
	}
	return out
}

// howItEnded says how a goal's newest session ended.
func howItEnded(c *session.Checkpoint, open []failure) string {
	for _, f := range open {
		if f.session == c {
			return fmt.Sprintf("open: `%s` still fails", textfmt.Shorten(transcript.NormalCommand(f.cmd), 60))
		}
	}
	switch c.Friction.Class {
	case "BAD":
		return "open: its last session went badly"
	case "FRICTION":
		return "its last session was hard going"
	}
	if o := strings.TrimSpace(c.Outcome); o != "" {
		return "last: " + textfmt.Shorten(textfmt.OneLine(o), 100)
	}
	return "its last session ended well"
}

// decisionsInForce are the active decision records (not superseded or
// deprecated), then the decisions the sessions stated, newest first, a
// later one on the same subject replacing an earlier (said beside it).
func decisionsInForce(recent []*session.Checkpoint, recs []*records.Record) []string {
	var out []string
	var recorded []string
	for _, r := range recs {
		if st, _ := r.Content["status"].(string); r.Category != "decision" || st == "superseded" || st == "deprecated" {
			continue
		}
		d, _ := r.Content["decision"].(string)
		recorded = append(recorded, fmt.Sprintf("- %s: %s (record decision/%s)", textfmt.OneLine(r.Title), textfmt.OneLine(d), r.ID))
	}
	slices.Sort(recorded)
	out = append(out, recorded...)
	type stated struct {
		text, day string
		words     map[string]bool
		replaced  []string
	}
	var said []*stated
	for _, c := range recent { // newest first
		for _, nt := range c.Digest.Notes {
			if nt.Kind != session.NoteAnswer {
				continue
			}
			s := decisionSentence(nt.Text)
			if s == "" {
				continue
			}
			w := subjectWords(s)
			if i := slices.IndexFunc(said, func(x *stated) bool { return sameSubject(x.words, w) }); i >= 0 {
				if !strings.EqualFold(said[i].text, s) {
					said[i].replaced = append(said[i].replaced, fmt.Sprintf("%q of %s", textfmt.Shorten(s, 60), day(c.StartedAt)))
				}
				continue
			}
			said = append(said, &stated{text: s, day: day(c.StartedAt), words: w})
		}
	}
	for _, x := range said {
		line := fmt.Sprintf("- %s (%s)", x.text, x.day)
		if len(x.replaced) > 0 {
			line += "; replaces " + strings.Join(x.replaced, ", ")
		}
		out = append(out, line)
	}
	return out
}

// openThreads are what is left to do: commands that still fail, sessions
// that went badly with no later session on their subject, and the
// deferred work and next steps of the repository's records.
func openThreads(recent []*session.Checkpoint, open []failure, recs []*records.Record) []string {
	var out []string
	for _, f := range open {
		out = append(out, fmt.Sprintf("- `%s` fails: %s (since %s, in %q; no later session ran it cleanly)",
			textfmt.Shorten(f.cmd, 80), textfmt.Shorten(f.text, 100), f.day, textfmt.Shorten(cmp.Or(f.session.Title, f.session.Goal), 60)))
	}
	for i, c := range recent {
		if c.Friction.Class != "BAD" {
			continue
		}
		w := subjectWords(cmp.Or(c.Title, c.Goal))
		later := slices.ContainsFunc(recent[:i], func(n *session.Checkpoint) bool { return sameSubject(subjectWords(cmp.Or(n.Title, n.Goal)), w) })
		if !later {
			out = append(out, fmt.Sprintf("- %q went badly (%s; friction %.0f), and no session since took it up", cmp.Or(c.Title, c.Goal), day(c.StartedAt), c.Friction.Score))
		}
	}
	var summary *records.Record
	for _, r := range recs {
		switch r.Category {
		case "tech_debt":
			if st, _ := r.Content["status"].(string); st == "open" || st == "in_progress" {
				d, _ := r.Content["description"].(string)
				out = append(out, fmt.Sprintf("- deferred: %s — %s (record tech_debt/%s)", textfmt.OneLine(r.Title), textfmt.Shorten(textfmt.OneLine(d), 100), r.ID))
			}
		case "session_summary":
			if summary == nil || r.UpdatedAt > summary.UpdatedAt {
				summary = r
			}
		}
	}
	if summary != nil {
		for _, field := range []string{"in_progress", "next_actions", "blockers"} {
			items, _ := summary.Content[field].([]any)
			for _, it := range items {
				if s, ok := it.(string); ok && strings.TrimSpace(s) != "" {
					out = append(out, fmt.Sprintf("- %s: %s (record session_summary/%s)", strings.ReplaceAll(field, "_", " "), textfmt.OneLine(s), summary.ID))
				}
			}
		}
	}
	return out
}

// changedSince is what the sessions and records since t brought: the
// sessions, the files they changed most, and the records created.
func changedSince(recent []*session.Checkpoint, recs []*records.Record, t time.Time) []string {
	var out, titles []string
	files := map[string]int{}
	for _, c := range recent {
		if st, err := time.Parse(time.RFC3339Nano, c.StartedAt); err != nil || !st.After(t) {
			continue
		}
		titles = append(titles, fmt.Sprintf("%s (%s)", cmp.Or(c.Title, c.Goal), day(c.StartedAt)))
		for _, f := range dedupe(c.FilesChanged) {
			files[f]++
		}
	}
	if len(titles) == 0 {
		return nil // nothing new: a draft just applied drafts the same again
	}
	out = append(out, fmt.Sprintf("- %s: %s", textfmt.Plural(len(titles), "session", "sessions"), strings.Join(titles[:min(4, len(titles))], "; ")))
	if len(files) > 0 {
		names := slices.Sorted(maps.Keys(files))
		slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(files[b], files[a]) })
		out = append(out, "- files changed: "+strings.Join(names[:min(6, len(names))], ", "))
	}
	for _, r := range recs {
		if c, err := time.Parse(time.RFC3339, r.CreatedAt); err == nil && c.After(t) {
			out = append(out, fmt.Sprintf("- new record: %s/%s — %s", r.Category, r.ID, textfmt.OneLine(r.Title)))
		}
	}
	return out
}

// subjectWords are the words that say what a title or a sentence is about:
// lowercased, four letters or more, without the words of any decision
// or task; a word in a script without spaces (Chinese, Japanese) counts
// by its pairs of characters.
func subjectWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if r := []rune(w); len(r) > 1 && unicode.Is(unicode.Han, r[0]) {
			for i := 0; i+1 < len(r); i++ {
				out[string(r[i:i+2])] = true
			}
			continue
		}
		if len([]rune(w)) >= 4 && !commonWords[w] {
			out[w] = true
		}
	}
	return out
}

// sameSubject tells two sets of subject words apart: the same subject when
// they share two words, or one when either has only one.
func sameSubject(a, b map[string]bool) bool {
	shared := 0
	for w := range a {
		if b[w] {
			shared++
		}
	}
	return shared >= 2 || shared == 1 && (len(a) == 1 || len(b) == 1)
}

// commonWords say nothing of a subject.
var commonWords = map[string]bool{
	"decided": true, "decide": true, "chose": true, "chosen": true, "going": true, "with": true, "switched": true, "moved": true,
	"because": true, "since": true, "will": true, "we'll": true, "that": true, "this": true, "from": true, "into": true, "them": true,
	"they": true, "have": true, "keep": true, "make": true, "still": true, "then": true, "than": true, "when": true, "what": true,
	"there": true, "their": true, "which": true, "would": true, "should": true, "could": true, "about": true, "after": true,
	"before": true, "again": true, "also": true, "only": true, "more": true, "some": true, "just": true, "like": true, "need": true,
	"want": true, "please": true, "instead": true, "rather": true, "it's": true, "does": true, "fix": true, "fixed": true,
	"the": true, "add": true, "update": true, "test": true, "tests": true, "work": true, "make it": true, "runs": true, "every": true,
}

// decisionWords mark a conclusion that states a decision.
var decisionWords = regexp.MustCompile(`(?i)\b(we decided|decided to|we chose|chose|we'll use|we will use|going with|switched to|moved to)\b|决定|決定|decidimos|elegimos`)

// decisionSentence is the sentence of a conclusion that states a decision
// ("" for none).
func decisionSentence(text string) string {
	for _, s := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '.' || r == '。' }) {
		if s = strings.TrimSpace(s); decisionWords.MatchString(s) && len(s) > 12 {
			return s
		}
	}
	return ""
}

// recurring lists what more than one session holds, most sessions first.
func recurring(m map[string]int, format, verb string) []string {
	type kv struct {
		k string
		n int
	}
	var list []kv
	for k, n := range m {
		if n > 1 {
			list = append(list, kv{k, n})
		}
	}
	slices.SortFunc(list, func(a, b kv) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.k, b.k)) })
	var out []string
	for _, x := range list {
		out = append(out, fmt.Sprintf(format, x.k, verb+" "+textfmt.Plural(x.n, "session", "sessions")))
	}
	return out
}

func dedupe(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return slices.Compact(out)
}

func mapStrings(list []string, f func(string) string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = f(s)
	}
	return out
}

// day is an RFC 3339 time's date ("" when it is not one).
func day(ts string) string {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return t.UTC().Format("2006-01-02")
	}
	return ""
}

// DraftProfile drafts a skill's profile from the sessions of the project
// that ran it (episodes, newest first; automated runs left out; at most
// n): when it ran and how those sessions ended, the commands and files
// that recur across them, and what failed in them with what fixed it —
// at most profiles.MaxLines lines (what a session is given of it), every one from the sessions' own
// records, for the person to review before it is given to a session;
// and how many sessions it was drafted from.
func DraftProfile(skill string, eps []session.SessionFile, n int) (draft string, sessions int) {
	var runs []*session.Checkpoint
	for _, f := range eps {
		if c := f.Record; !c.Automated && slices.Contains(c.SkillsUsed, skill) && len(runs) < n {
			runs = append(runs, c)
		}
	}
	var b strings.Builder
	if len(runs) == 0 {
		fmt.Fprintf(&b, "# %s\n\n(no session of this project ran it yet: nothing to draft from)\n", skill)
		return b.String(), 0
	}
	fmt.Fprintf(&b, "# %s in this project\n\nDrafted by `ccmem profile draft` from the %s that ran it; edit it freely.\n",
		skill, textfmt.Plural(len(runs), "session", "sessions"))
	section := func(title string, lines []string, max int) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n", title)
		for _, l := range lines[:min(max, len(lines))] {
			b.WriteString(textfmt.Line(textfmt.Shorten(l, 160)) + "\n")
		}
	}
	var ran []string
	for _, c := range runs {
		out := c.Friction.Class
		if c.Outcome != "" {
			if out != "" {
				out += ": "
			}
			out += c.Outcome
		}
		ran = append(ran, fmt.Sprintf("- %s %s — %s", day(c.StartedAt), cmp.Or(c.Title, c.Goal), cmp.Or(out, "no outcome recorded")))
	}
	section("Runs", ran, 5)
	files, commands := map[string]int{}, map[string]int{}
	for _, c := range runs {
		for _, f := range dedupe(c.FilesChanged) {
			files[f]++
		}
		for _, k := range dedupe(mapStrings(c.Digest.Commands, transcript.CommandKey)) {
			if k != "" {
				commands[k]++
			}
		}
	}
	section("Commands its runs use", recurring(commands, "- `%s` (%s)", "run in"), 5)
	section("Files its runs change", recurring(files, "- %s (%s)", "changed in"), 5)
	var lessons []string
	seen := map[string]bool{}
	for _, c := range runs {
		for _, nt := range c.Digest.Notes {
			if nt.Kind != session.NoteFix || seen[nt.Cmd+nt.Text] {
				continue
			}
			seen[nt.Cmd+nt.Text] = true
			lessons = append(lessons, fmt.Sprintf("- `%s` %s (%s)", textfmt.Shorten(nt.Cmd, 60), textfmt.Shorten(nt.Text, 90), day(c.StartedAt)))
		}
	}
	section("What failed, and what fixed it", lessons, 5)
	text, _ := redact.String(b.String())
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return strings.Join(lines[:min(profiles.MaxLines, len(lines))], "\n") + "\n", len(runs)
}
