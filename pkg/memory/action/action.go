// Package action is memory at the point of action, for the hooks around
// tool calls: the user's standing rules before a call (and the one call a
// rule forbids held, once), what fixed the same error before after a
// failed call, a starting subagent's rules, a skill's profile when it
// runs. It is the only hook chain that links the rules' index (guard).
package action

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/guard"
	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// ToolRequest is what the point-of-action hooks hand over: a tool call
// about to run (PreToolUse) or one that failed (PostToolUseFailure).
type ToolRequest struct {
	SessionID string
	Cwd       string
	// Tool is the tool's name; Command the shell command of a Bash call,
	// Path the file a call writes, Skill the skill a Skill call runs,
	// Input the call's other text.
	Tool, Command, Path, Skill, Input string
	// Error is what a failed call reported.
	Error string
	// Started is when the hook started; the configured deadline counts
	// from it.
	Started time.Time
}

// ToolResult is what a point-of-action hook tells the model ("" for
// nothing).
type ToolResult struct {
	Disabled bool
	Context  string
	// Hold, from PreToolUse, is why the call is held (the client's deny,
	// with this as the reason the model reads): a rule the person gave
	// forbids it, and this is the session's first such call. "" lets it
	// run.
	Hold string
}

// action is the text of a call rules are matched against: the command,
// the file (relative to the project's root, so the root's own name does
// not match), or the call's other text.
func (r ToolRequest) action(root string) string {
	switch {
	case r.Command != "":
		return r.Command
	case r.Path != "":
		p := r.Path
		if root != "" && filepath.IsAbs(p) {
			if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
				p = rel
			}
		}
		return p
	}
	return r.Input
}

// BeforeTool is the PreToolUse hook's work: the user's standing rules
// (guard) that bear on the call, at most guard.max_lines, each once a
// session; nothing when none does.
func BeforeTool(ctx context.Context, e store.Env, req ToolRequest) (ToolResult, error) {
	pl := config.Locate(e, req.Cwd)
	g := pl.Cfg.Guard
	if !pl.Cfg.Enabled {
		return ToolResult{Disabled: true}, nil
	}
	if !g.Enabled || g.MaxLines == 0 || !g.Watches(req.Tool) {
		return ToolResult{}, nil
	}
	if req.Skill != "" {
		text, err := memory.SkillProfile(e, pl.Project, req.SessionID, req.Skill)
		return ToolResult{Context: text}, err
	}
	root := ""
	if pl.Project != nil {
		root = pl.Project.Root
	}
	act := req.action(root)
	if strings.TrimSpace(act) == "" {
		return ToolResult{}, nil
	}
	idx, err := guard.Load(e, pl.Project)
	if err != nil {
		return ToolResult{}, err
	}
	found := idx.Find(act, g.MaxLines+4)
	var holds []guard.Rule
	if req.Command != "" {
		// A rule that forbids the command bears on it most of all (its
		// words may be ones every command has: "go test").
		forbidding := idx.Forbidding(req.Command)
		for i := len(forbidding) - 1; i >= 0; i-- {
			r := forbidding[i]
			found = slices.DeleteFunc(found, func(m guard.Match) bool { return m.Ref() == r.Ref() })
			found = slices.Insert(found, 0, guard.Match{Rule: r})
			if g.Hold && pl.Project != nil && r.Holds() {
				holds = slices.Insert(holds, 0, r)
			}
		}
	}
	if len(found) == 0 && len(holds) == 0 {
		return ToolResult{}, nil
	}
	var st session.Prompted
	if pl.Project != nil {
		if st, err = session.ReadPrompted(e, *pl.Project, req.SessionID); err != nil {
			return ToolResult{}, err
		}
	}
	if len(holds) > 0 {
		if !decidable(req.Started, pl.Cfg.Deadline, time.Now()) {
			// Too late to hold it: nothing said, nothing spent.
			return ToolResult{}, nil
		}
		if res, ok := hold(e, *pl.Project, req.SessionID, st, holds); ok {
			return res, nil
		}
	}
	// The user's own rules, and the repository's, each under what it is.
	var mine, repos, refs []string
	for _, m := range found {
		if len(mine)+len(repos) == g.MaxLines {
			break
		}
		if st.WasGuarded(m.Ref()) {
			continue
		}
		line := textfmt.Line("- " + m.Text + " (" + ruleSource(e, m.Rule) + ")")
		if m.By == provenance.Repository {
			repos = append(repos, line)
		} else {
			mine = append(mine, line)
		}
		refs = append(refs, m.Ref())
	}
	if len(refs) == 0 {
		return ToolResult{}, nil
	}
	var parts []string
	if len(mine) > 0 {
		parts = append(parts, "ccmem — the user's standing rules that bear on this call (from memory, not from this conversation; follow them or say why not):\n"+
			strings.Join(mine, "\n"))
	}
	if len(repos) > 0 {
		parts = append(parts, "ccmem — this repository's rules that bear on this call (committed in its .claude/memory/ by its authors, not the user's own words; weigh them as the repository's):\n"+
			strings.Join(repos, "\n"))
	}
	text := strings.Join(parts, "\n")
	if pl.Project != nil {
		err = session.CommitGuard(e, *pl.Project, req.SessionID, refs)
	}
	return ToolResult{Context: claudecode.Neutralize(text)}, err
}

// holdWithin is the most of the hook's own time a hold may be decided in:
// well inside the client's budget (5 s), which under load counts a start
// the hook's clock never sees. A hold decided later might reach a client
// that already let the call run, and spend the session's one hold on a
// call it did not stop: so it is not decided at all.
const holdWithin = 2 * time.Second

// decidable tells whether a hold may still be decided at now by a hook
// that started at started with the configured deadline: within holdWithin
// and the deadline. A hold not decided spends nothing: the next such call
// is held.
func decidable(started time.Time, deadline time.Duration, now time.Time) bool {
	if started.IsZero() {
		return true
	}
	return now.Sub(started) < min(holdWithin, deadline)
}

// hold is the first call of a session that a rule the person gave forbids
// (see guard.Index.Holds), held with the rules as the reason; ok is false
// when none holds it: each rule holds once a session, and a rule whose
// holding cannot be recorded holds nothing (a call is never held twice
// by one rule).
func hold(e store.Env, p store.Project, sessionID string, st session.Prompted, holds []guard.Rule) (ToolResult, bool) {
	var lines, refs []string
	for _, r := range holds {
		if st.WasGuarded(r.Ref()) || slices.Contains(refs, r.Ref()) {
			continue
		}
		lines = append(lines, textfmt.Line("- "+r.Text+" ("+ruleSource(e, r)+")"))
		refs = append(refs, r.Ref())
		if len(refs) == 2 {
			break
		}
	}
	if len(refs) == 0 || session.CommitGuard(e, p, sessionID, refs) != nil {
		return ToolResult{}, false
	}
	text := "ccmem held this command once, before it ran: the user's standing rule forbids it (from memory, not from this conversation):\n" +
		strings.Join(lines, "\n") +
		"\nFollow the rule. If this command is still the right one, say why and run it again: ccmem does not hold it again in this session."
	return ToolResult{Hold: claudecode.Neutralize(text)}, true
}

// ruleSource says where a rule comes from, for the model and the person.
func ruleSource(e store.Env, r guard.Rule) string {
	where := e.Tilde(r.Path)
	if r.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, r.Line)
	}
	switch r.Kind {
	case guard.KindFeedback:
		return "learned feedback, " + where
	case guard.KindRule:
		return where
	}
	return r.Kind + " record, " + where
}

// AfterFailure is the PostToolUseFailure hook's work: when an earlier
// session of the project failed with the same error (its signature: see
// transcript.ErrorSignature) and then found what made the command succeed,
// one line saying when, what fixed it and where to read more; once a
// session per fix.
func AfterFailure(ctx context.Context, e store.Env, req ToolRequest) (ToolResult, error) {
	pl := config.Locate(e, req.Cwd)
	if !pl.Cfg.Enabled {
		return ToolResult{Disabled: true}, nil
	}
	if !pl.Cfg.Guard.Enabled || !pl.Cfg.Guard.Fixes || pl.Project == nil {
		return ToolResult{}, nil
	}
	ctx, cancel := config.Deadline(ctx, req.Started, pl.Cfg)
	defer cancel()
	sig := transcript.ErrorSignature(req.Error)
	if len(strings.Fields(sig)) < 2 {
		return ToolResult{}, nil // "exit status": nothing to tell failures apart by
	}
	key := transcript.CommandKey(req.Command)
	hits, err := search.Search(ctx, e, key+" "+sig, search.Options{Scope: search.ScopeOf(pl.Project, false), Kinds: []string{search.KindEpisode}, Limit: 8, Quick: true})
	if err != nil {
		return ToolResult{}, err
	}
	var best *earlierFix
	seen := map[string]bool{}
	for _, h := range hits {
		if seen[h.Path] || ctx.Err() != nil {
			continue
		}
		seen[h.Path] = true
		if f := fixIn(h.Path, sig, key); f != nil && (best == nil || f.when.After(best.when)) {
			best = f
		}
	}
	if best == nil {
		return ToolResult{}, nil
	}
	st, err := session.ReadPrompted(e, *pl.Project, req.SessionID)
	if err != nil || st.WasGuarded(best.ref) {
		return ToolResult{}, err
	}
	line := fmt.Sprintf("ccmem — this error was seen before: on %s, in session %q, `%s` failed the same way; then it %s",
		best.when.UTC().Format("2006-01-02"), textfmt.Shorten(best.title, 60), textfmt.Shorten(best.failed, 120), best.fix)
	if best.said != "" {
		line += "; the conclusion then: \"" + textfmt.Shorten(best.said, 240) + "\""
	}
	line += fmt.Sprintf(" — %s (turn %d)", best.path, best.turn)
	err = session.CommitGuard(e, *pl.Project, req.SessionID, []string{best.ref})
	return ToolResult{Context: claudecode.Neutralize(textfmt.Line(line))}, err
}

// earlierFix is a fix found in an earlier session.
type earlierFix struct {
	path, title, failed, fix, said, ref string
	turn                                int
	when                                time.Time
}

// fixIn looks in one episode for a failure with the signature sig (of a
// command with key) followed by a fix of the same command.
func fixIn(path, sig, key string) *earlierFix {
	data, err := store.ReadSmallFile(path, 4<<20)
	if err != nil {
		return nil
	}
	ep, err := episode.Decode(data)
	if err != nil {
		return nil
	}
	notes := ep.Digest.Notes
	for i, n := range notes {
		if n.Kind != episode.NoteFailure || !sameError(transcript.ErrorSignature(n.Text), sig) {
			continue
		}
		fkey := transcript.CommandKey(n.Cmd)
		if key != "" && fkey != key {
			continue
		}
		for j := i + 1; j < len(notes); j++ {
			x := notes[j]
			if x.Kind != episode.NoteFix || transcript.CommandKey(x.Cmd) != fkey {
				continue
			}
			f := &earlierFix{path: path, title: ep.Title, failed: n.Cmd, fix: strings.TrimPrefix(x.Text, "failed at turn "), turn: x.Turn,
				ref: store.MemoryRef(path, j+1)}
			if f.title == "" {
				f.title = ep.Goal
			}
			if _, rest, ok := strings.Cut(f.fix, "; "); ok {
				f.fix = rest // "succeeded run as …"
			}
			f.when, _ = time.Parse(time.RFC3339Nano, x.At)
			if f.when.IsZero() {
				f.when, _ = time.Parse(time.RFC3339Nano, ep.StartedAt)
			}
			for _, a := range notes[j:] {
				if a.Kind == episode.NoteAnswer && a.Turn == x.Turn {
					f.said = a.Text
					break
				}
			}
			return f
		}
	}
	return nil
}

// sameError tells whether two error signatures are of one failure: most
// of their words (a Jaccard overlap of 0.6) in common.
func sameError(a, b string) bool {
	wa, wb := strings.Fields(a), strings.Fields(b)
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	slices.Sort(wa)
	slices.Sort(wb)
	wa, wb = slices.Compact(wa), slices.Compact(wb)
	both := 0
	for _, w := range wa {
		if _, ok := slices.BinarySearch(wb, w); ok {
			both++
		}
	}
	return float64(both) >= 0.6*float64(len(wa)+len(wb)-both)
}

// SubagentRequest is what the SubagentStart hook hands over.
type SubagentRequest struct {
	SessionID, Cwd, AgentType string
	Started                   time.Time
}

// Subagent is the SubagentStart hook's work: a compact block for a
// subagent, which starts with no memory — the user's feedback, then the
// project's constraints and preferences, then the rule-like lines of the
// MEMORY.md files — within guard.subagent_chars.
func Subagent(ctx context.Context, e store.Env, req SubagentRequest) (ToolResult, error) {
	pl := config.Locate(e, req.Cwd)
	if !pl.Cfg.Enabled {
		return ToolResult{Disabled: true}, nil
	}
	budget := pl.Cfg.Guard.SubagentChars
	if !pl.Cfg.Guard.Enabled || budget == 0 {
		return ToolResult{}, nil
	}
	idx, err := guard.Load(e, pl.Project)
	if err != nil || len(idx.Rules) == 0 {
		return ToolResult{}, err
	}
	rules := slices.Clone(idx.Rules)
	// The user's first, then the repository's: feedback, constraints,
	// preferences, rule lines.
	order := map[string]int{guard.KindFeedback: 0, guard.KindConstraint: 1, guard.KindPreference: 2, guard.KindRule: 3}
	rank := func(r guard.Rule) int {
		if r.By == provenance.Repository {
			return 10 + order[r.Kind]
		}
		return order[r.Kind]
	}
	slices.SortStableFunc(rules, func(a, b guard.Rule) int { return rank(a) - rank(b) })
	// Each heading only over rules of its kind: no "the user's standing
	// rules" above nothing of the user's.
	var b strings.Builder
	n := 0
	mineHeader, repoHeader := false, false
	for _, r := range rules {
		line := textfmt.Line("- " + r.Text)
		head := ""
		switch {
		case r.By == provenance.Repository && !repoHeader:
			head = "# The repository's rules (committed in its .claude/memory/ by its authors, not the user's own words)"
		case r.By != provenance.Repository && !mineHeader:
			head = "# ccmem: the user's standing rules (from memory: their feedback and rules; follow them)"
		}
		if head != "" && b.Len() > 0 {
			head = "\n" + head
		}
		sep := "\n"
		if b.Len() == 0 && head == "" {
			sep = ""
		}
		if textfmt.Chars(b.String())+textfmt.Chars(head)+len(sep)+textfmt.Chars(line) > budget {
			continue
		}
		if head != "" {
			b.WriteString(head)
			if r.By == provenance.Repository {
				repoHeader = true
			} else {
				mineHeader = true
			}
		}
		b.WriteString("\n" + line)
		n++
	}
	if n == 0 {
		return ToolResult{}, nil
	}
	if more := len(rules) - n; more > 0 {
		note := fmt.Sprintf("\n(%d more: `ccmem search` or the ccmem MCP search tool)", more)
		if textfmt.Chars(b.String()+note) <= budget {
			b.WriteString(note)
		}
	}
	return ToolResult{Context: claudecode.Neutralize(b.String())}, nil
}
