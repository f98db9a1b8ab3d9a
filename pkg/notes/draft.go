package notes

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

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
// (episodes, newest first; automated runs left out; at most n): what the
// project is being used for, the files and commands that recur, its
// decisions, its open problems and the last outcomes — at most 80 lines,
// every line from the sessions' own records. Deterministic: no model is
// asked; the same sessions give the same draft.
func DraftBriefing(p store.Project, eps []session.SessionFile, n int) string {
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
	}
	// What the sessions were for: their titles, once each.
	var work []string
	seen := map[string]bool{}
	for _, c := range recent {
		t := cmp.Or(c.Title, c.Goal)
		if k := strings.ToLower(t); t != "" && !seen[k] {
			seen[k] = true
			work = append(work, fmt.Sprintf("- %s (%s)", t, day(c.StartedAt)))
		}
	}
	section("What the project is being used for", work, 10)
	// Files and commands that recur across sessions.
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
	section("Files that recur", recurring(files, "- %s (%s)", "changed in"), 10)
	section("Commands that recur", recurring(commands, "- `%s` (%s)", "run in"), 8)
	// Decisions: the project's active decision records, then conclusions
	// that state one.
	var decisions []string
	for _, rf := range records.List(p.Root) {
		if r := rf.Record; rf.Err == nil && r != nil && r.Category == "decision" && r.RecordStatus == records.StatusActive {
			d, _ := r.Content["decision"].(string)
			decisions = append(decisions, fmt.Sprintf("- %s: %s (record decision/%s)", textfmt.OneLine(r.Title), textfmt.OneLine(d), r.ID))
		}
	}
	slices.Sort(decisions)
	for _, c := range recent {
		for _, nt := range c.Digest.Notes {
			if nt.Kind == session.NoteAnswer {
				if s := decisionSentence(nt.Text); s != "" {
					decisions = append(decisions, fmt.Sprintf("- %s (%s)", s, day(c.StartedAt)))
				}
			}
		}
	}
	section("Decisions", decisions, 10)
	// Open problems: commands that failed and were not fixed in their
	// session, newest first; sessions that ended badly.
	var open []string
	for _, c := range recent {
		fixed := map[string]bool{}
		for _, nt := range c.Digest.Notes {
			if nt.Kind == session.NoteFix {
				fixed[transcript.CommandKey(nt.Cmd)] = true
			}
		}
		reported := map[string]bool{}
		for _, nt := range c.Digest.Notes {
			k := transcript.CommandKey(nt.Cmd)
			if nt.Kind == session.NoteFailure && !fixed[k] && !reported[k] {
				reported[k] = true
				open = append(open, fmt.Sprintf("- `%s` failed, not fixed in that session: %s (%s)", textfmt.Shorten(nt.Cmd, 80), textfmt.Shorten(nt.Text, 100), day(c.StartedAt)))
			}
		}
		if c.Friction.Class == "BAD" {
			open = append(open, fmt.Sprintf("- %q went badly (%s; friction %.0f)", cmp.Or(c.Title, c.Goal), day(c.StartedAt), c.Friction.Score))
		}
	}
	section("Open problems", open, 10)
	var last []string
	for _, c := range recent[:min(5, len(recent))] {
		out := c.Friction.Class
		if c.Outcome != "" {
			out += ": " + c.Outcome
		}
		last = append(last, fmt.Sprintf("- %s %s — %s", day(c.StartedAt), cmp.Or(c.Title, c.Goal), out))
	}
	section("Last outcomes", last, 5)
	text, _ := redact.String(b.String())
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return strings.Join(lines[:min(MaxBriefingLines, len(lines))], "\n") + "\n"
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
