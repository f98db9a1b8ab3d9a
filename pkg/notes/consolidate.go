package notes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/redact"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// The markers of the section `ccmem consolidate` owns in CLAUDE.md.
const (
	MarkerStart = "<!-- MEMORY:START -->"
	MarkerEnd   = "<!-- MEMORY:END -->"
)

// ConsolidateOptions choose what private memory goes into the committed
// CLAUDE.md besides the team's.
type ConsolidateOptions struct {
	// Episodes adds the last 5 sessions (their goals are the user's own).
	Episodes bool
	// Learned adds the learned project entries (curated from the user's
	// own Claude Code memory).
	Learned bool
	// Briefing adds the project briefing, which lives in the user's private
	// store (ccmem briefing --set, or drafted from their sessions).
	Briefing bool
}

// ConsolidateSection renders the CLAUDE.md section for a project. By
// default it holds only what the team shares or was meant to: the
// repository's MEMORY.md bullets, high-confidence preferences, active
// decisions and constraints (all committed in the repository already); the
// user's briefing, sessions and learned entries, which live in the private
// store, only when opts ask for them, and never a link into the store. It is deterministic: the same files give the same
// bytes.
func ConsolidateSection(ctx context.Context, e store.Env, p store.Project, opts ConsolidateOptions) string {
	var b strings.Builder
	b.WriteString(MarkerStart + "\n")
	b.WriteString("<!-- Written by `ccmem consolidate` from the project's memory; change the memory (ccmem remember, ccmem record), not this section. -->\n")
	b.WriteString("## Project memory\n")
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n### %s\n%s\n", title, strings.Join(lines, "\n"))
	}
	var facts []string
	if data, err := store.ReadFileIn(p.Root, store.RepoMemory(p.Root), 4<<20); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if sh := provenance.ShapeOf(l); sh.Kind == provenance.Item && len(facts) < 1000 {
				facts = append(facts, "- "+textfmt.OneLine(sh.Text))
			}
		}
	}
	if learned, _ := learn.List(ctx, e); opts.Learned && len(learned) > 0 {
		for _, le := range learned {
			if le.Type == "project" && le.AppliesTo(store.HereOf(p.Root, p.Git)) {
				facts = append(facts, "- "+le.Name+": "+le.Description)
			}
		}
	}
	section("Facts", capped(MergeNearDuplicates(LatestPerKey(facts)), maxFacts, "facts"))
	var briefing []string
	if !opts.Briefing {
		// Private: only on request.
	} else if h, err := store.ReadHeadIn(e.ProjectDir(p.Key), e.BriefingPath(p.Key), store.Limits{Lines: 80, Chars: 16 << 10, LineChars: 500}); err == nil {
		briefing = h.Lines
	}
	section("Briefing", briefing)
	var prefs, decisions, constraints []string
	// Oldest first, so that the newest of two saying the same is kept.
	files := records.List(p.Root)
	slices.SortStableFunc(files, func(a, b records.File) int {
		if a.Record == nil || b.Record == nil {
			return 0
		}
		return strings.Compare(a.Record.UpdatedAt, b.Record.UpdatedAt)
	})
	for _, rf := range files {
		r := rf.Record
		if rf.Err != nil || r == nil || r.RecordStatus != records.StatusActive {
			continue
		}
		text := func(k string) string { s, _ := r.Content[k].(string); return textfmt.OneLine(s) }
		switch r.Category {
		case "preference":
			// Strong, or held with confidence; a soft preference is a
			// leaning, never the team's rule, whatever its confidence.
			if st := text("strength"); st == "strong" || st != "soft" && r.Confidence >= 0.8 {
				prefs = append(prefs, fmt.Sprintf("- %s: %s", textfmt.OneLine(r.Title), text("value")))
			}
		case "decision":
			if s := text("status"); s == "accepted" || s == "proposed" {
				decisions = append(decisions, fmt.Sprintf("- %s: %s", textfmt.OneLine(r.Title), text("decision")))
			}
		case "constraint":
			if active, ok := r.Content["active"].(bool); !ok || active {
				constraints = append(constraints, fmt.Sprintf("- %s: %s", textfmt.OneLine(r.Title), text("rule")))
			}
		}
	}
	tidy := func(l []string) []string {
		l = MergeNearDuplicates(LatestPerKey(l))
		sort.Strings(l)
		return l
	}
	section("Preferences", capped(tidy(prefs), maxRecordLines, "preferences"))
	section("Decisions", capped(tidy(decisions), maxRecordLines, "decisions"))
	section("Constraints", capped(tidy(constraints), maxRecordLines, "constraints"))
	var episodes []string
	if !opts.Episodes {
		// Private: only on request.
	} else if h, err := store.ReadHeadIn(e.ProjectDir(p.Key), e.IndexPath(p.Key), store.Limits{Lines: 5, Chars: 1 << 20}); err == nil {
		for _, l := range h.Lines {
			// The link is into the user's own store: no use to the team.
			text, _ := session.SplitMenuLine(l)
			episodes = append(episodes, text)
		}
	}
	section("Recent sessions", episodes)
	b.WriteString(MarkerEnd)
	// CLAUDE.md is committed: whatever a memory file held, no secret goes.
	out, _ := redact.String(b.String())
	return out
}

// The section's caps: the session hook injects all of the memory anyway,
// so CLAUDE.md keeps what matters most at a size a person reads (seed
// 002's 100 to 150 lines).
const (
	maxFacts       = 40
	maxRecordLines = 20
)

// capped keeps the first n lines of a list, and says how many more there
// are.
func capped(lines []string, n int, what string) []string {
	if len(lines) <= n {
		return lines
	}
	return append(lines[:n:n], fmt.Sprintf("- … %d more %s in the project's memory (ccmem injects them at session start)", len(lines)-n, what))
}

// LatestPerKey keeps, of lines that set the same key ("- Timezone: EST",
// then "- Timezone: PST (moved)"), only the last — lines come oldest
// first — at its place: two values of one setting are never both stated.
// A key is the words before the first ": ", five at most, any case.
func LatestPerKey(lines []string) []string {
	last := map[string]int{}
	keys := make([]string, len(lines))
	for i, l := range lines {
		k, _, ok := strings.Cut(provenance.ShapeOf(l).Text, ": ")
		if ok && k != "" && len(strings.Fields(k)) <= 5 && !strings.ContainsAny(k, "`[(") {
			keys[i] = strings.ToLower(strings.Join(strings.Fields(k), " "))
			last[keys[i]] = i
		}
	}
	var out []string
	for i, l := range lines {
		if keys[i] == "" || last[keys[i]] == i {
			out = append(out, l)
		}
	}
	return out
}

// MergeNearDuplicates keeps one of each group of lines that say nearly the
// same thing — most of their words in common (a Jaccard overlap of 0.75 of
// their search terms, 3 or more each) — at the place of the first, in the
// words of the last (lines come oldest first: the newest wording).
func MergeNearDuplicates(lines []string) []string {
	type kept struct {
		text  string
		terms map[string]bool
	}
	var out []kept
	for _, l := range lines {
		terms := termSet(l)
		merged := false
		for i := range out {
			if nearSame(out[i].terms, terms) {
				out[i].text, out[i].terms = l, terms
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, kept{l, terms})
		}
	}
	res := make([]string, len(out))
	for i, k := range out {
		res[i] = k.text
	}
	return res
}

// termSet is the search terms of s, once each.
func termSet(s string) map[string]bool {
	terms := map[string]bool{}
	for _, t := range search.Terms(s) {
		terms[t] = true
	}
	return terms
}

// nearSame tells whether two lines' terms nearly all match.
func nearSame(a, b map[string]bool) bool {
	if len(a) < 3 || len(b) < 3 {
		return false
	}
	both := 0
	for t := range a {
		if b[t] {
			both++
		}
	}
	return float64(both) >= 0.75*float64(len(a)+len(b)-both)
}

// ConsolidateResult says what Consolidate did.
type ConsolidateResult struct {
	Path    string `json:"path"`
	Changed bool   `json:"changed"`
	Created bool   `json:"created"`
}

// Consolidate writes the section between the MEMORY:START and MEMORY:END
// markers of the repository's CLAUDE.md, adding only that section when the
// markers are absent (and the file, when it is). Bytes outside the markers
// are never changed; a second run with the same memory changes nothing.
func Consolidate(ctx context.Context, e store.Env, p store.Project, opts ConsolidateOptions, dryRun bool) (ConsolidateResult, error) {
	path := filepath.Join(p.Root, "CLAUDE.md")
	res := ConsolidateResult{Path: path}
	section := ConsolidateSection(ctx, e, p, opts)
	if !dryRun {
		store.Tidy(p.Root, "CLAUDE.md") // the repository's root: only ccmem's own
	}
	// CLAUDE.md is the repository's: a symlink there (to a secret, say)
	// is refused, never read nor copied into a file.
	data, err := store.ReadFileIn(p.Root, path, 16<<20)
	var out string
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res.Created = true
		out = section + "\n"
	case err != nil:
		return res, err
	default:
		old := string(data)
		i := strings.Index(old, MarkerStart)
		j := strings.Index(old, MarkerEnd)
		switch {
		case i < 0 && j < 0:
			out = old
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			if out != "" {
				out += "\n"
			}
			out += section + "\n"
		case i >= 0 && j > i:
			out = old[:i] + section + old[j+len(MarkerEnd):]
		default:
			return res, fmt.Errorf("%s: %s and %s are not a pair in that order; fix them by hand (ccmem changes only what lies between them)", path, MarkerStart, MarkerEnd)
		}
		if out == old {
			return res, nil
		}
	}
	res.Changed = true
	if dryRun {
		return res, nil
	}
	return res, store.WriteFileIn(p.Root, path, []byte(out))
}

// SetBriefing replaces a project's briefing, keeping the two previous
// versions as briefing.md.1 and briefing.md.2. Unchanged content is not
// rewritten. The briefing is injected at most 80 lines (caps.briefing).
func SetBriefing(e store.Env, p store.Project, content string) (bool, error) {
	p, err := store.ClaimProject(e, p)
	if err != nil {
		return false, err
	}
	unlock, err := store.Lock(e.ProjectDir(p.Key))
	if err != nil {
		return false, err
	}
	defer unlock()
	path := e.BriefingPath(p.Key)
	content, _ = redact.String(content)
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	old, err := store.ReadSmallFile(path, 16<<20)
	if err == nil && string(old) == content {
		return false, nil
	}
	if err == nil {
		if prev, err := store.ReadSmallFile(path+".1", 16<<20); err == nil {
			if err := store.WriteFileAtomic(path+".2", prev); err != nil {
				return false, err
			}
		}
		if err := store.WriteFileAtomic(path+".1", old); err != nil {
			return false, err
		}
	}
	return true, store.WriteFileAtomic(path, []byte(content))
}
