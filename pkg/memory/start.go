package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/inject"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/stale"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/syncstate"
	"github.com/ccmem/ccmem/pkg/textfmt"
	"github.com/ccmem/ccmem/pkg/triage"
)

// StartRequest says where a session starts and why.
type StartRequest struct {
	// Cwd is the session's working directory; empty when unknown.
	Cwd string
	// Source is the client's reason: startup, resume, clear, compact, fork.
	Source string
	// Started is when the hook started; the configured deadline counts
	// from it. Zero leaves ctx as the only bound (ccmem show).
	Started time.Time
	// SessionID, TranscriptPath and Process identify the starting session
	// for Start; Compose does not use them.
	SessionID      string
	TranscriptPath string
	Process        proc.Info
	// CCMem says how the model can run ccmem, for the preamble's advice
	// on saving memory; asked only when that advice is given. Nil means
	// "ccmem" from PATH.
	CCMem func() string
	// Automation says what other program started the session ("" for a
	// person); asked once per session (see session.CaptureRequest).
	Automation func() string
}

// Injection is the outcome of composing the memory block for a session.
type Injection struct {
	Block inject.Block
	// Project is nil when the working directory was missing or unusable;
	// the block then holds only memory that applies everywhere.
	Project *store.Project
	Config  config.Config
	// Disabled is true when config turned ccmem off for this project.
	Disabled bool
	// AutoMemory is true when Claude Code's own auto memory is on for the
	// session: the preamble then leaves saving to it.
	AutoMemory bool
	// Warnings are problems met on the way, one line each; the block is
	// still complete apart from what they name.
	Warnings []string
}

// Compose reads every source of memory for a session starting in req.Cwd and
// fits them into one block. It never fails: what cannot be read is left out
// and reported in Warnings. Optional work (the silo count behind the nudge)
// is skipped when ctx is done.
func Compose(ctx context.Context, e store.Env, req StartRequest) Injection {
	pl := config.Locate(e, req.Cwd)
	ctx, cancel := config.Deadline(ctx, req.Started, pl.Cfg)
	defer cancel()
	return compose(ctx, e, req, pl, nil, true, nil)
}

// Start is the SessionStart hook's work: archive the project's sessions that
// are over (so the episode menu is current), apply retention, refresh the
// status cache, compose the block, then open the starting session's
// checkpoint (so even a session that crashes before its first Stop leaves a
// record) with what the block shows. The optional steps before composing
// stop short of the deadline, leaving time to compose.
func Start(ctx context.Context, e store.Env, req StartRequest) Injection {
	pl := config.Locate(e, req.Cwd)
	ctx, cancel := config.Deadline(ctx, req.Started, pl.Cfg)
	defer cancel()
	var warnings []string
	note := func(what string, err error) {
		if err != nil {
			warnings = append(warnings, what+": "+err.Error())
		}
	}
	if pl.Cfg.Enabled && !e.Disabled {
		_ = e.MakePrivate() // best effort: a store someone else owns stays as it is
	}
	var left []session.LeftTriage
	if p := pl.Project; p != nil && pl.Cfg.Enabled && req.SessionID != "" {
		// Claim the project's folder first: a new project's lossy slug may
		// be claimed by another root at this very moment.
		if claimed, err := store.ClaimProject(e, *p); err != nil {
			note("project", err)
		} else {
			*p = claimed
		}
		// Optional work ends early enough to leave time for the block:
		// a second, or half the time left when that is less.
		opt := ctx
		if d, ok := ctx.Deadline(); ok {
			reserve := min(time.Second, time.Until(d)/2)
			var cancel context.CancelFunc
			opt, cancel = context.WithDeadline(ctx, d.Add(-reserve))
			defer cancel()
		}
		rep, err := session.ArchiveOrphans(opt, e, *p, session.Current{ID: req.SessionID, Process: req.Process}, pl.Cfg)
		note("archiving ended sessions", err)
		left = rep.Triage
		_, _, err = session.Maintain(opt, e, p.Key, pl.Cfg, false)
		note("episodes", err)
		// Now and then, the sessions that ended in other projects too.
		session.SettleElsewhere(opt, e, p.Key)
	}
	var backlog *learn.Backlog
	if pl.Cfg.Enabled && ctx.Err() == nil && !e.Disabled {
		// One count, listing only the silos that changed since the last.
		if st, err := learn.RefreshStatus(ctx, e, nil); err == nil {
			backlog = &st.Backlog
		} else if ctx.Err() == nil {
			note("status", err)
		}
	}
	// What triage found at the end of a session no prompt followed:
	// offered once, now (the episode no longer holds it), whole or not at
	// all, within the person's budget.
	var extra []inject.Section
	var waits []string
	if len(left) > 0 && pl.Cfg.Enabled && !pl.Cfg.Triage.AskModel {
		if line := keepLine(undecided(e, pl.Project.Key, left)); line != "" {
			waits = append(waits, line)
		}
	} else if len(left) > 0 && pl.Cfg.Enabled {
		ccmem := "ccmem"
		if req.CCMem != nil {
			ccmem = req.CCMem()
		}
		for _, l := range left {
			if note := records.LeftTriageNote(textfmt.Shorten(l.Title, 80), l.Hits, ccmem, pl.Cfg.Records); note != "" {
				lines := strings.Split(note, "\n")
				extra = append(extra, inject.Section{Name: "triage", Title: lines[0], Lines: lines[1:], Total: len(lines) - 1, Whole: true})
			}
		}
	}
	inj := compose(ctx, e, req, pl, backlog, false, waits, extra...)
	if p := pl.Project; p != nil && pl.Cfg.Enabled && req.SessionID != "" {
		// The starting session's checkpoint, with what its block shows
		// (per-prompt recall does not show it again).
		turn := session.Turn{SessionID: req.SessionID, TranscriptPath: req.TranscriptPath, Cwd: req.Cwd, Process: req.Process, Automation: req.Automation}
		// A resumed session's transcript may be tens of megabytes: the
		// start reads what it can in a small allowance and the turn's end
		// reads on from there (the block is ready; the person waits for
		// this hook).
		cctx, cancel := context.WithTimeout(ctx, startCaptureFor)
		defer cancel()
		_, err := session.Capture(cctx, e, session.CaptureRequest{Turn: turn,
			NewSession: req.Source == "startup" || req.Source == "clear" || req.Source == "fork",
			Project:    p, Shown: inj.Block.Refs, SetShown: true, Capture: &pl.Cfg.Capture, Fork: req.Source == "fork"})
		note("checkpoint", err)
	}
	inj.Warnings = append(warnings, inj.Warnings...)
	return inj
}

// startCaptureFor bounds how long the start reads the session's
// transcript into its checkpoint; what is left, the turn's end reads.
const startCaptureFor = 250 * time.Millisecond

// compose builds the block; backlog, when set, is the silo backlog already
// counted. With preview (ccmem show), nothing has been archived: the
// episode menu is the one the next start will leave, computed without
// writing, so the block is the one that start injects.
func compose(ctx context.Context, e store.Env, req StartRequest, pl config.Place, backlog *learn.Backlog, preview bool, waits []string, extra ...inject.Section) Injection {
	inj := Injection{Project: pl.Project, Config: pl.Cfg}
	warn := func(err error) {
		if err != nil {
			inj.Warnings = append(inj.Warnings, err.Error())
		}
	}
	if pl.Err != nil {
		warn(fmt.Errorf("%w; injecting global memory only", pl.Err))
	}
	inj.Warnings = append(inj.Warnings, config.Problems(e, pl.Files)...)
	cfg := pl.Cfg
	if !cfg.Enabled {
		inj.Disabled = true
		return inj
	}
	root := ""
	if pl.Project != nil {
		root = pl.Project.Root
	}
	budget := cfg.BudgetChars
	var sections []inject.Section
	add := func(s inject.Section, err error) {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			warn(e.PathError(s.Path, err))
			return
		}
		if err == nil {
			sections = append(sections, s)
		}
	}

	key := ""
	if pl.Project != nil {
		key = pl.Project.Key
	}
	add(globalSection(e, key, cfg, budget))
	here := store.Here{}
	if p := pl.Project; p != nil {
		here = store.HereOf(p.Root, p.Git)
	}
	pending, perr := learn.Pending(e)
	if perr != nil {
		warn(e.PathError(e.ReviewDir(), perr))
	}
	if cfg.Caps.Learned > 0 {
		s, err := learnedSection(ctx, e, here, pending, cfg.Caps.Learned, cfg.LineChars)
		warn(err)
		if len(s.Lines) > 0 {
			sections = append(sections, s)
		}
	}
	if p := pl.Project; p != nil {
		pdir := e.ProjectDir(p.Key)
		briefing := e.BriefingPath(p.Key)
		// What the project's memory names that its working tree no longer
		// has is marked (see stale): checked before it is shown.
		check := stale.New(root)
		add(marked(check)(fileSection(pdir, "briefing", heading("Project briefing", briefing), briefing, cfg.Caps.Briefing, budget, cfg.LineChars)))
		repo := store.RepoMemory(root)
		// The repository's files are untrusted: read without following a
		// symlink (and the records, the episode menu, likewise).
		add(marked(check)(fileSection(root, "project", heading("Project memory (the repository's: committed by its authors, shared with the team)", repo),
			repo, cfg.Caps.Project, budget, cfg.LineChars)))
		if cfg.Caps.Records > 0 {
			s, ok, err := recordsSection(root, cfg.Records, e.Time(), cfg.Caps.Records, budget, cfg.LineChars)
			warn(err)
			if ok {
				sections = append(sections, s)
			}
		}
		episodes := "# Recent sessions, newest first (episode paths are relative to " + pdir + "; read one when it is relevant)"
		var next []byte
		changed := false
		if preview && cfg.Caps.Episodes > 0 {
			var err error
			next, changed, err = session.NextIndex(ctx, e, *p, cfg)
			warn(err)
		}
		add(episodesSection(pdir, episodes, e.IndexPath(p.Key), next, changed, cfg))
	}
	// One line, when something waits for the person that they have not
	// looked at yet: what triage found in the sessions just finished (in
	// waits already), silo memories to curate, rules drawn from this
	// project's friction to review, a briefing worth drafting.
	if cfg.NudgeThreshold > 0 && (ctx.Err() == nil || backlog != nil) {
		var b learn.Backlog
		var err error
		if backlog != nil {
			b = *backlog
		} else {
			b, err = learn.CountBacklog(ctx, e)
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			warn(err)
		}
		if err == nil && b.Files >= cfg.NudgeThreshold {
			waits = append(waits, NudgeLine(b))
		}
	}
	if n := unseenRules(e, here, pending); n > 0 {
		waits = append(waits, textfmt.Plural(n, "rule", "rules")+" drawn from this project's friction await review — /friction")
	} else if p := pl.Project; p != nil {
		if w := rough(e, p.Key, sections); w != "" {
			waits = append(waits, w)
		}
	}
	if p := pl.Project; p != nil {
		if line := briefingNudge(e, p.Key); line != "" {
			waits = append(waits, line)
		}
	}
	if len(waits) > 0 {
		sections = append(sections, inject.Section{
			Name: "nudge", Title: "# Waiting for the user", Path: e.ReviewDir(), Total: 1,
			Lines: []string{strings.Join(waits, "; ")},
		})
	}
	repoMemory := ""
	if root != "" {
		repoMemory = store.RepoMemory(root)
	}
	sections = append(sections, extra...)
	for i := range sections {
		sections[i].Share = cfg.Shares.Of(sections[i].Name)
		if sections[i].Name == "episodes" && pl.Project != nil {
			sections[i].Refs = episodeRefs(e.EpisodesDir(pl.Project.Key), sections[i].Lines)
		}
	}
	inj.AutoMemory = learn.AutoMemoryOn(e, root)
	ccmem := "ccmem"
	if !inj.AutoMemory && req.CCMem != nil {
		ccmem = req.CCMem()
	}
	inj.Block = inject.Fit(inject.Preamble(req.Source, e.GlobalMemory(), repoMemory, ccmem, inj.AutoMemory), sections, budget)
	return inj
}

// unseenRules counts the rules drawn from this project's friction that
// wait for review and that the person has not looked at yet.
func unseenRules(e store.Env, here store.Here, pending []learn.ReviewItem) int {
	n := 0
	var seen map[string]bool
	for _, it := range pending {
		if it.Origin != learn.OriginFriction || it.SourceCwd == "" || !here.Holds(it.SourceCwd, "") {
			continue
		}
		if seen == nil {
			seen = learn.Seen(e)
		}
		if !seen[it.File] {
			n++
		}
	}
	return n
}

// rough says, when several of the sessions in the project's menu went
// badly and the person has not looked at its friction since the newest of
// them, that /friction finds what recurs; else "".
func rough(e store.Env, key string, sections []inject.Section) string {
	bad, newest := 0, ""
	for _, s := range sections {
		if s.Name != "episodes" {
			continue
		}
		for _, l := range s.Lines {
			if ie, ok := session.ParseIndexLine(l); ok && (ie.Class == "FRICTION" || ie.Class == "BAD") {
				bad++
				if newest == "" {
					newest = ie.Episode // the menu is newest first
				}
			}
		}
	}
	if bad < roughAfter || learn.Seen(e)[learn.FrictionSeen(key, newest)] {
		return ""
	}
	return fmt.Sprintf("%d of the recent sessions here went badly — /friction finds what recurs and proposes rules for the user to review", bad)
}

// undecided is what triage found in the sessions this start finished
// that the person has not decided on already (the same words kept or
// dismissed from an earlier session).
func undecided(e store.Env, key string, left []session.LeftTriage) []session.LeftTriage {
	seen := learn.Seen(e)
	var out []session.LeftTriage
	for _, l := range left {
		var hits []triage.Hit
		for _, h := range l.Hits {
			if !seen[learn.TriageDecided(key, "kept", h.Category, h.Excerpt, l.SessionID)] &&
				!seen[learn.TriageDecided(key, "dismissed", h.Category, h.Excerpt, l.SessionID)] {
				hits = append(hits, h)
			}
		}
		if len(hits) > 0 {
			l.Hits = hits
			out = append(out, l)
		}
	}
	return out
}

// keepLine says what triage found in the sessions this start finished,
// for the person to keep or dismiss: it is offered once, here ("" for
// nothing).
func keepLine(left []session.LeftTriage) string {
	if len(left) == 0 {
		return ""
	}
	n := 0
	var kinds []string
	for _, l := range left {
		for _, h := range l.Hits {
			n++
			if !slices.Contains(kinds, h.Category) {
				kinds = append(kinds, h.Category)
			}
		}
	}
	from := "recent sessions here"
	if len(left) == 1 {
		from = fmt.Sprintf("the last session here (%q)", textfmt.Shorten(left[0].Title, 60))
	}
	what := strings.ReplaceAll(strings.Join(kinds, ", "), "_", " ")
	if n == 1 {
		return fmt.Sprintf("1 thing from %s may be worth keeping as a project record (%s) — /ccmem keep lists it for the user to keep or dismiss", from, what)
	}
	return fmt.Sprintf("%d things from %s may be worth keeping as project records (%s) — /ccmem keep lists them for the user to keep or dismiss", n, from, what)
}

// roughAfter is how many sessions of the menu that went badly make the
// friction worth a look.
const roughAfter = 3

// briefingNudge is what the start-up block says of the project's
// briefing: none yet though the project has sessions enough to draft one
// from, or briefingAfter sessions or more since it was written; "" when
// neither, or when the person looked at a draft since.
func briefingNudge(e store.Env, key string) string {
	written := time.Time{}
	if fi, err := os.Lstat(e.BriefingPath(key)); err == nil {
		written = fi.ModTime()
	}
	if learn.Seen(e)[learn.BriefingSeen(key, written)] {
		return ""
	}
	d, err := os.Open(e.EpisodesDir(key))
	if err != nil {
		return ""
	}
	// Enough names to know (episode names start with their UTC time).
	names, _ := d.Readdirnames(4 * briefingAfter * briefingAfter)
	d.Close()
	stamp := written.UTC().Format("20060102T150405Z")
	since := 0
	for _, n := range names {
		if n > stamp && session.EpisodeSession(n) != "" {
			since++
		}
	}
	switch {
	case since < briefingAfter:
		return ""
	case written.IsZero():
		return "no briefing yet for this project: /ccmem briefing drafts one from its sessions"
	}
	return fmt.Sprintf("%d sessions since the project's briefing was written (%s): /ccmem briefing drafts what changed, for the user to review",
		since, written.UTC().Format("2006-01-02"))
}

// briefingAfter is how many sessions a project has before a briefing is
// worth drafting.
const briefingAfter = 8

// NudgeLine is the one line that asks the user to curate the silos.
func NudgeLine(b learn.Backlog) string {
	return learn.BacklogLine(b) + " — run /learn to curate them"
}

func heading(title, path string) string { return "# " + title + " — " + path }

// marked marks, in a section about a project, each line naming a file,
// target or script its working tree no longer has.
func marked(c *stale.Checker) func(inject.Section, error) (inject.Section, error) {
	return func(s inject.Section, err error) (inject.Section, error) {
		if err == nil {
			for i, l := range s.Lines {
				s.Lines[i] = c.Mark(l)
			}
		}
		return s, err
	}
}

// fileSection reads the head of a Markdown file as a section; with a root,
// the file is under it and read without following a symlink. A line over
// lineChars is shortened, pointing at where it goes on.
func fileSection(root, name, title, path string, capLines, budget, lineChars int) (inject.Section, error) {
	s := inject.Section{Name: name, Title: title, Path: path, Cap: capLines}
	if capLines <= 0 {
		return s, fs.ErrNotExist
	}
	lim := store.Limits{Lines: capLines, Chars: budget, LineChars: lineChars, Cut: goesOn(path)}
	var h store.Head
	var err error
	if root != "" {
		h, err = store.ReadHeadIn(root, path, lim)
	} else {
		h, err = store.ReadHead(path, lim)
	}
	if err != nil {
		return s, err
	}
	s.Lines, s.Total, s.Approx = h.Lines, h.Total, h.Approx
	for _, n := range h.LineNos {
		s.Refs = append(s.Refs, search.Ref(path, n))
	}
	return s, nil
}

// globalSection is the global MEMORY.md as the sessions of the project
// key see it: the person's own lines first, as the user's word, then what
// nobody confirmed (see withOrigins). When the file is longer than its cap,
// the person's lines further down come before other lines: a remote that
// puts lines above the person's cannot push them out of sight.
func globalSection(e store.Env, key string, cfg config.Config, budget int) (inject.Section, error) {
	path := e.GlobalMemory()
	title := heading("Global memory (about the user, for every project)", path)
	s, err := fileSection("", "global", title, path, cfg.Caps.Global, budget, cfg.LineChars)
	if err != nil {
		return s, err
	}
	l := provenance.Load(e)
	if s.Total > len(s.Lines) && !s.Approx {
		if fi, err := os.Stat(path); err == nil && fi.Size() <= maxWholeGlobal {
			if all, err := fileSection("", "global", title, path, maxWholeGlobal, maxWholeGlobal, cfg.LineChars); err == nil {
				s = all
			}
		}
	}
	s = withOrigins(s, l, syncstate.UnsettledLines(e, path), key)
	if len(s.Lines) > cfg.Caps.Global {
		s.Lines, s.Refs = s.Lines[:cfg.Caps.Global], s.Refs[:min(len(s.Refs), cfg.Caps.Global)]
	}
	return s, nil
}

// maxWholeGlobal bounds the global MEMORY.md read whole to find the
// person's lines past the cap (ccmem remember keeps it within 2 MB).
const maxWholeGlobal = 2 << 20

// unconfirmedHeading heads, in the global memory, the lines the person
// did not write or confirm.
const unconfirmedHeading = "## Not confirmed by the user (memory to weigh, not the user's rules)"

// withOrigins orders a section of the global MEMORY.md: the lines the
// ledger attests as the person's first, under their headings; then, under
// unconfirmedHeading, the others, each with who wrote it (the assistant,
// another machine) unless nobody knows; the assistant's notes from
// another project are left out (and not counted). A line that is one of
// two versions of a fact (edited differently on two machines, see
// syncstate.Unsettled) says so.
func withOrigins(s inject.Section, l provenance.Ledger, disagree map[string]bool, key string) inject.Section {
	type line struct{ text, ref string }
	// What a cut says is left out is what the file holds past what was
	// read: the lines read are all accounted for below (shown, moved, or
	// another project's note, which nothing here points at).
	beyond := max(0, s.Total-len(s.Lines))
	var mine, others []line
	var pendingHeads []line // headings not yet followed by a line of the person's
	for i, text := range s.Lines {
		ref := ""
		if i < len(s.Refs) {
			ref = s.Refs[i]
		}
		sh := provenance.ShapeOf(text)
		if sh.Kind == provenance.Heading {
			// A heading opens a new part: the ones above it with nothing
			// of the person's under them are dropped.
			for len(pendingHeads) > 0 && provenance.ShapeOf(pendingHeads[len(pendingHeads)-1].text).Level >= sh.Level {
				pendingHeads = pendingHeads[:len(pendingHeads)-1]
			}
			pendingHeads = append(pendingHeads, line{text, ref})
			continue
		}
		if sh.Kind == provenance.Blank {
			if len(mine) > 0 && len(pendingHeads) == 0 {
				mine = append(mine, line{text, ref})
			}
			continue
		}
		o := l.Line(s.Path, text)
		if !o.ShownIn(key) {
			continue
		}
		if disagree[strings.TrimSpace(text)] {
			text += " (one of two versions edited on different machines; the user has not chosen yet)"
		}
		if o.Standing() {
			mine = append(mine, pendingHeads...)
			pendingHeads = pendingHeads[:0]
			mine = append(mine, line{text, ref})
			continue
		}
		if o.By != provenance.Unknown || o.Via != "" {
			text += " (" + o.Label() + ")"
		}
		others = append(others, line{text, ref})
	}
	for len(mine) > 0 && strings.TrimSpace(mine[len(mine)-1].text) == "" {
		mine = mine[:len(mine)-1]
	}
	out := mine
	if len(others) > 0 {
		if len(out) > 0 {
			out = append(out, line{})
		}
		out = append(out, line{text: unconfirmedHeading})
		out = append(out, others...)
	}
	s.Total = len(out) + beyond
	s.Lines, s.Refs = nil, nil
	for _, ln := range out {
		s.Lines = append(s.Lines, ln.text)
		s.Refs = append(s.Refs, ln.ref)
	}
	return s
}

// episodesSection is the episode menu: the newest lines of INDEX.md that
// are a person's sessions (next, when changed, is INDEX.md as the next
// start will leave it), and one line counting the automated runs kept out
// of it.
func episodesSection(pdir, title, path string, next []byte, changed bool, cfg config.Config) (inject.Section, error) {
	s := inject.Section{Name: "episodes", Title: title, Path: path, Cap: cfg.Caps.Episodes}
	if cfg.Caps.Episodes <= 0 {
		return s, fs.ErrNotExist
	}
	var r io.Reader = bytes.NewReader(next)
	if !changed {
		f, _, err := store.OpenIn(pdir, path)
		if err != nil {
			return s, err
		}
		defer f.Close()
		r = io.LimitReader(f, 64<<20)
	}
	m, err := session.ReadMenu(r, cfg.Caps.Episodes)
	if err != nil {
		return s, err
	}
	cut := goesOn(path)
	for i, l := range m.Lines {
		if textfmt.Chars(l) > cfg.LineChars {
			l = textfmt.Prefix(l, cfg.LineChars-1) + "…" + cut(m.LineNos[i])
		}
		s.Lines = append(s.Lines, l)
	}
	s.Total = m.Total
	if m.Automated > 0 {
		s.Lines = append(s.Lines, m.AutomatedLine("ccmem"))
		s.Total++
	}
	return s, nil
}

// episodeRefs names the episode each line of the menu points at.
func episodeRefs(dir string, lines []string) []string {
	refs := make([]string, len(lines))
	for i, l := range lines {
		if _, name := session.SplitMenuLine(l); name != "" {
			refs[i] = filepath.Join(dir, name)
		}
	}
	return refs
}

// goesOn is the pointer after a shortened line of the file at path.
func goesOn(path string) func(int) string {
	return func(line int) string { return fmt.Sprintf(" (line %d goes on in %s)", line, path) }
}

// recordsSection lists the project's active records, rendered from the
// records themselves (records/index.md, which a kill can leave stale, is
// only their copy for people).
func recordsSection(root string, policy config.Records, now time.Time, capLines, budget, lineChars int) (inject.Section, bool, error) {
	index := records.IndexPath(root)
	s := inject.Section{Name: "records", Path: index, Cap: capLines,
		Title: "# Project records (structured; the full record is <category>/<id>.json beside " + index + ")"}
	files := records.List(root)
	// A record refused for what it is (a symlink, a folder) is reported;
	// one that is merely invalid is for `ccmem record list` to show.
	var refused error
	for _, f := range files {
		if f.Err != nil && f.Record == nil && !errors.Is(f.Err, records.ErrNotRecord) && refused == nil {
			refused = f.Err
		}
	}
	// A record past its category's retention (a session summary of
	// months ago) is history: left out here until record gc retires it.
	files = slices.DeleteFunc(files, func(f records.File) bool { return f.Record != nil && records.Expired(f.Record, policy, now) })
	if len(files) == 0 {
		return s, false, refused
	}
	// The rendered index, without its own title line; each line shown
	// with the record it links (the index hands them out together).
	lines := records.IndexLines(files)
	var text strings.Builder
	for _, l := range lines {
		text.WriteString(l.Text + "\n")
	}
	h, err := store.ReadHeadFrom(strings.NewReader(text.String()), store.Limits{Lines: capLines + 1, Chars: budget,
		LineChars: lineChars, Cut: func(int) string { return " (the rest is in the record)" }})
	if err != nil || h.Total <= 1 {
		return s, false, refused
	}
	s.Lines, s.Total = h.Lines[1:], h.Total-1
	for i := range s.Lines {
		ref := ""
		if r := lines[i+1].Ref; r != "" {
			ref = filepath.Join(records.Dir(root), filepath.FromSlash(r))
		}
		s.Refs = append(s.Refs, ref)
	}
	return s, true, refused
}

// learnedSection lists the canonical entries that apply to the project,
// and the corrections still awaiting review that the person gave in this
// project (one keeps reaching its project's sessions until someone
// decides on it). Its longer rendering adds the
// bodies of user and feedback entries, which are short.
func learnedSection(ctx context.Context, e store.Env, here store.Here, all []learn.ReviewItem, capLines, lineChars int) (inject.Section, error) {
	s := inject.Section{
		Name: "learned", Cap: capLines, Path: e.LearnedDir(),
		Title: "# Learned memories (curated from Claude Code's memory folders; full entry in " +
			filepath.Join(e.LearnedDir(), "<type>", "<name>.md") + ")",
	}
	v, err := learn.Show(ctx, e, here, capLines)
	if err != nil {
		return s, err
	}
	// Of the memories awaiting review, only a correction the person gave
	// in this project is shown: never a rule ccmem inferred.
	var pending []learn.ReviewItem
	for _, it := range all {
		if it.ShownWhilePending(here) {
			pending = append(pending, it)
		}
	}
	type item struct {
		line, path string
		body       bool
		lines      []string // the body, when the learned cache had it
		cached     bool
	}
	var items []item
	add := func(line, desc, path string, body bool, lines []string, cached bool) {
		if len(items) == capLines {
			return
		}
		if desc != "" {
			line += " — " + desc
		}
		items = append(items, item{textfmt.Shorten(line, lineChars), path, body, lines, cached})
	}
	// User and feedback first, then the feedback pending review, then the
	// project's entries.
	s.Total = v.GlobalTotal + len(pending) + v.ProjectTotal
	// An entry the person did not write nor accept says who did (a
	// project or reference entry is curated from Claude Code's memory by
	// nature: the section's title says so).
	ledger := provenance.Load(e)
	name := func(le learn.Entry) string {
		line := "- " + le.Type + "/" + le.Name
		if o := ledger.File(le.Path, le.Digest); !o.Standing() && !((o.By == provenance.Curated || o.By == provenance.Unknown && o.Via == "") && (le.Type == "project" || le.Type == "reference")) {
			line += " (" + o.Label() + ")"
		}
		return line
	}
	for _, le := range v.Global {
		add(name(le), le.Description, le.Path, true, le.Body, true)
	}
	for _, p := range pending {
		add("- feedback/"+p.Name+" (pending review: `ccmem learn review`)", p.Description, p.Path, true, nil, false)
	}
	for _, le := range v.Project {
		add(name(le), le.Description, le.Path, false, nil, false)
	}
	err = v.Err
	withBody := false
	for _, it := range items {
		s.Lines = append(s.Lines, it.line)
		s.Refs = append(s.Refs, it.path)
		s.Full = append(s.Full, it.line)
		if !it.body || ctx.Err() != nil {
			continue
		}
		lines := it.lines
		if !it.cached { // pending review: not in the learned cache
			lines = learn.BodyLines(it.path, learn.ShownBodyLines, learn.ShownBodyChars)
		}
		for _, l := range lines {
			s.Full = append(s.Full, "  "+textfmt.Shorten(l, lineChars))
			withBody = true
		}
	}
	if !withBody {
		s.Full = nil
	}
	return s, err
}
