// Package learn curates Claude Code's per-project memory folders ("silos")
// into ccmem's store: it plans and applies the ingestion of each silo file
// (with provenance, deduplicated by name, safe to re-run after a kill),
// lists the canonical entries, holds feedback for review, and counts the
// silo backlog behind the status line and the nudge.
package learn

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/frontmatter"
	"github.com/ccmem/ccmem/pkg/lazyregexp"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/redact"
	"github.com/ccmem/ccmem/pkg/store"
)

// Claude Code's memory folders ("silos") are staging; learned/ is the
// durable, curated copy. A plan says, per silo file, what apply would do.

// Learn actions.
const (
	ActCreate    = "create"    // a new canonical entry
	ActUpdate    = "update"    // the canonical entry changes
	ActUnchanged = "unchanged" // the store already holds this (or a newer) content
	ActMerge     = "merge"     // another silo's copy of an entry chosen elsewhere in the plan
	ActReview    = "review"    // feedback: staged for a person's decision
	ActSkip      = "skipped"   // left alone, with a reason
)

// Item is one silo file and what apply would do with it.
type Item struct {
	Path      string    `json:"path"`
	Silo      string    `json:"silo"`
	Name      string    `json:"name,omitempty"`
	Type      string    `json:"type,omitempty"`
	Action    string    `json:"action"`
	Reason    string    `json:"reason,omitempty"`
	Target    string    `json:"target,omitempty"`
	Hash      string    `json:"hash,omitempty"`
	Modified  time.Time `json:"modified,omitzero"`
	SourceCwd string    `json:"source_cwd,omitempty"`
	// Description and Body are what the memory says (redacted): the
	// model wrote it, and the person sees it whole before it is kept.
	Description string `json:"description,omitempty"`
	Body        string `json:"body,omitempty"`

	front, body []byte
	size        int64
	mtime       time.Time
}

// Plan is the outcome of scanning every silo.
type Plan struct {
	Items []Item `json:"items"`
	Silos int    `json:"silos"`
}

// Count returns how many items have the action.
func (p Plan) Count(action string) int {
	n := 0
	for _, it := range p.Items {
		if it.Action == action {
			n++
		}
	}
	return n
}

// provenance keys ccmem adds to a canonical entry's frontmatter.
var provenanceKeys = []string{"source_cwd", "ingested_at", "original_path", "source_modified", "sources", "archived_reason", "scope", "accepted_at", "modified"}

// Check scans every silo and plans what apply would do. It reads nothing
// outside the silos and the store, and writes nothing.
func Check(ctx context.Context, e store.Env) (Plan, error) {
	var plan Plan
	slugs, err := os.ReadDir(e.SilosDir())
	if errors.Is(err, fs.ErrNotExist) {
		return plan, nil
	}
	if err != nil {
		return plan, e.PathError(e.SilosDir(), err)
	}
	for _, s := range slugs {
		if err := ctx.Err(); err != nil {
			return plan, err
		}
		if !s.IsDir() {
			continue
		}
		dir := filepath.Join(e.SilosDir(), s.Name(), "memory")
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		counted := false
		cwd := ""
		for _, de := range ents {
			name := de.Name()
			if name == "MEMORY.md" || !strings.HasSuffix(name, ".md") {
				continue
			}
			if !counted {
				plan.Silos++
				counted = true
				cwd = siloCwd(e, s.Name())
			}
			it := Item{Path: filepath.Join(dir, name), Silo: s.Name(), SourceCwd: cwd}
			plan.Items = append(plan.Items, classify(it, de))
		}
	}
	resolvePlan(e, &plan)
	return plan, nil
}

// classify reads one silo file and decides its kind, or why it is skipped.
func classify(it Item, de fs.DirEntry) Item {
	skip := func(reason string) Item {
		it.Action, it.Reason = ActSkip, reason
		return it
	}
	if de.Type()&fs.ModeSymlink != 0 {
		return skip("a symlink: not followed")
	}
	if !de.Type().IsRegular() {
		return skip("not a regular file")
	}
	f, fi, err := store.OpenRegular(it.Path)
	if err != nil {
		return skip(err.Error())
	}
	data, err := readAllLimit(f, 1<<20)
	f.Close()
	if err != nil {
		return skip(err.Error())
	}
	it.size, it.mtime = fi.Size(), fi.ModTime()
	sum := sha256.Sum256(data)
	it.Hash = hex.EncodeToString(sum[:])
	front, body, err := frontmatter.Split(data)
	if errors.Is(err, frontmatter.ErrNone) {
		return skip("no frontmatter")
	}
	if err != nil {
		return skip(err.Error())
	}
	meta, err := frontmatter.Parse(front)
	if err != nil {
		return skip(err.Error())
	}
	// The store keeps the memory with its secrets redacted.
	it.front, it.body = redactFront(front), redactBytes(body)
	it.Name, it.Type = meta.Name, meta.Type
	it.Description, it.Body = strings.TrimSpace(string(redactBytes([]byte(meta.Description)))), strings.TrimSpace(string(it.body))
	if strings.TrimSpace(it.Name) == "" {
		return skip("frontmatter has no name")
	}
	switch it.Type {
	case "user", "project", "reference", "feedback":
	case "":
		return skip("frontmatter has no type")
	default:
		return skip(fmt.Sprintf("unknown type %q", it.Type))
	}
	it.Modified = it.mtime
	if m, ok := meta.Fields["modified"]; ok {
		if t, ok := parseTime(m); ok {
			it.Modified = t
		}
	}
	return it
}

func readAllLimit(f *os.File, max int64) ([]byte, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, fmt.Errorf("%w (over %d bytes)", store.ErrTooLarge, max)
	}
	return buf.Bytes(), nil
}

func parseTime(v any) (time.Time, bool) {
	switch t := v.(type) {
	case time.Time:
		return t, true
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
			if p, err := time.Parse(layout, t); err == nil {
				return p, true
			}
		}
	}
	return time.Time{}, false
}

// resolvePlan groups entries by type and name, picks the newest of each
// group, and compares it with the store.
//
// A memory's identity is its type, its name (in any case: on macOS and
// Windows "Deploy-Steps.md" and "deploy-steps.md" are one file) and, for
// project and reference memories, its project: two projects' "build"
// memories are two memories. Copies with one identity are merged; memories
// with different identities never are, even where their names make the
// same file name ("deploy steps", "deploy/steps", or names alike in their
// first 100 characters): the later one gets a name of its own.
func resolvePlan(e store.Env, plan *Plan) {
	groups := map[string][]int{}
	var keys []string
	for i, it := range plan.Items {
		if it.Action == ActSkip {
			continue
		}
		k := identity(it.Type, it.Name, it.SourceCwd)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	sort.Strings(keys)
	taken := map[string]bool{} // target files given out, in lower case
	names := storeNames{}
	for _, k := range keys {
		idx := groups[k]
		sort.SliceStable(idx, func(a, b int) bool {
			x, y := plan.Items[idx[a]], plan.Items[idx[b]]
			if !x.Modified.Equal(y.Modified) {
				return x.Modified.After(y.Modified)
			}
			return x.Path < y.Path
		})
		chosen := &plan.Items[idx[0]]
		chosen.Target = targetFor(e, k, chosen.Type, chosen.Name, taken, names)
		chosen.Action, chosen.Reason = compareWithStore(e, *chosen, groupSources(plan, idx))
		for _, j := range idx[1:] {
			it := &plan.Items[j]
			it.Target, it.Action = chosen.Target, ActMerge
			it.Reason = "older copy of " + filepath.Base(chosen.Path) + " in " + chosen.Silo
		}
		if len(idx) > 1 && chosen.Action != ActUnchanged {
			chosen.Reason = strings.TrimSpace(chosen.Reason + fmt.Sprintf(" newest of %d copies", len(idx)))
			if strings.HasPrefix(chosen.Reason, "→") {
				chosen.Reason = strings.Replace(chosen.Reason, " newest", ", newest", 1)
			}
		}
	}
}

func groupSources(plan *Plan, idx []int) []string {
	var out []string
	for _, j := range idx {
		out = append(out, plan.Items[j].Path)
	}
	sort.Strings(out)
	return out
}

// identity keys a memory: type, name in lower case, and the project for
// the types that belong to one.
func identity(typ, name, sourceCwd string) string {
	scope := ""
	if typ == "project" || typ == "reference" {
		scope = filepath.Clean(sourceCwd)
	}
	return typ + "\x00" + scope + "\x00" + strings.ToLower(strings.TrimSpace(name))
}

// targetFor gives a memory its file in the store: its safe name, unless
// another memory holds that file (in the store, or earlier in this plan),
// then its safe name and a hash of its identity.
func targetFor(e store.Env, id, typ, name string, taken map[string]bool, names storeNames) string {
	base := store.SafeFileName(name)
	for _, file := range []string{base, base + "-" + shortHash(id)} {
		// A stored file whose name differs only in case is the same file
		// on macOS and Windows: on Linux too, it is that one.
		path := names.find(targetPath(e, typ, file))
		if taken[strings.ToLower(path)] {
			continue
		}
		if owner, ok := storedIdentity(path, typ); ok && owner != id {
			continue
		}
		if typ == "feedback" {
			// An accepted entry of another memory holds the name too.
			accepted := names.find(filepath.Join(e.LearnedDir(), "feedback", file+".md"))
			if owner, ok := storedIdentity(accepted, typ); ok && owner != id {
				continue
			}
		}
		taken[strings.ToLower(path)] = true
		return path
	}
	// Two identities with one hash: vanishingly rare; keep them apart still.
	path := targetPath(e, typ, base+"-"+shortHash(id+"\x00"+name))
	taken[strings.ToLower(path)] = true
	return path
}

// storeNames finds the stored file a path names, ignoring case; each
// folder is listed once per plan.
type storeNames map[string]map[string]string // folder → lower-case name → name

func (sn storeNames) find(path string) string {
	dir, file := filepath.Split(path)
	m, ok := sn[dir]
	if !ok {
		m = map[string]string{}
		ents, _ := os.ReadDir(dir)
		for _, de := range ents {
			if lower := strings.ToLower(de.Name()); m[lower] == "" || de.Name() == lower {
				m[lower] = de.Name()
			}
		}
		sn[dir] = m
	}
	if n, ok := m[strings.ToLower(file)]; ok {
		return filepath.Join(dir, n)
	}
	return path
}

// storedIdentity is the identity of the entry stored at path, if any.
func storedIdentity(path, typ string) (string, bool) {
	data, err := store.ReadSmallFile(path, 1<<20)
	if err != nil {
		return "", false
	}
	m, _, err := frontmatter.Read(data)
	if err != nil {
		return "", false
	}
	name := m.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	cwd, _ := m.Fields["source_cwd"].(string)
	return identity(typ, name, cwd), true
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

func targetPath(e store.Env, typ, file string) string {
	if typ == "feedback" {
		return filepath.Join(e.ReviewDir(), file+".md")
	}
	return filepath.Join(e.LearnedDir(), typ, file+".md")
}

// compareWithStore decides create, update, unchanged or review for the
// chosen copy of an entry.
func compareWithStore(e store.Env, it Item, sources []string) (string, string) {
	existing, err := store.ReadSmallFile(it.Target, 1<<20)
	if it.Type == "feedback" {
		if err == nil && sameEntry(existing, it) {
			return ActUnchanged, "already awaiting review"
		}
		if a, err := store.ReadSmallFile(filepath.Join(e.LearnedDir(), "feedback", filepath.Base(it.Target)), 1<<20); err == nil && sameEntry(a, it) {
			return ActUnchanged, "already accepted"
		}
		return ActReview, "→ review/feedback/" + filepath.Base(it.Target)
	}
	if err != nil {
		return ActCreate, ""
	}
	if sameEntry(existing, it) {
		return ActUnchanged, ""
	}
	if m, ok := storedModified(existing); ok && !it.Modified.After(m) {
		return ActUnchanged, "the store holds a newer version"
	}
	return ActUpdate, ""
}

// sameEntry tells whether a stored entry holds exactly the silo file's
// frontmatter and body, provenance aside.
func sameEntry(stored []byte, it Item) bool {
	front, body, err := frontmatter.Split(stored)
	if err != nil {
		return false
	}
	return bytes.Equal(stripProvenance(front), stripProvenance(it.front)) && bytes.Equal(body, it.body)
}

func storedModified(stored []byte) (time.Time, bool) {
	front, _, err := frontmatter.Split(stored)
	if err != nil {
		return time.Time{}, false
	}
	m, err := frontmatter.Parse(front)
	if err != nil {
		return time.Time{}, false
	}
	return parseTime(m.Fields["source_modified"])
}

// stripProvenance removes ccmem's provenance keys (and their indented
// continuation lines) from a raw frontmatter block.
func stripProvenance(front []byte) []byte {
	var out bytes.Buffer
	skipping := false
	sc := bufio.NewScanner(bytes.NewReader(front))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if skipping && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "- ")) {
			continue
		}
		skipping = false
		for _, k := range provenanceKeys {
			if strings.HasPrefix(line, k+":") {
				skipping = true
				break
			}
		}
		if !skipping {
			out.WriteString(line)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// canonical renders a store entry: the silo file's frontmatter and body,
// with provenance appended to the frontmatter.
func canonical(it Item, sources []string, now time.Time, extra map[string]string) []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(stripProvenance(it.front))
	q := func(s string) string { j, _ := json.Marshal(s); return string(j) }
	fmt.Fprintf(&b, "source_cwd: %s\n", q(it.SourceCwd))
	fmt.Fprintf(&b, "ingested_at: %s\n", q(now.UTC().Format(time.RFC3339)))
	fmt.Fprintf(&b, "original_path: %s\n", q(it.Path))
	fmt.Fprintf(&b, "source_modified: %s\n", q(it.Modified.UTC().Format(time.RFC3339Nano)))
	if len(sources) > 1 {
		b.WriteString("sources:\n")
		for _, s := range sources {
			fmt.Fprintf(&b, "  - %s\n", q(s))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		fmt.Fprintf(&b, "%s: %s\n", k, q(extra[k]))
	}
	b.WriteString("---\n")
	b.Write(it.body)
	return b.Bytes()
}

var cwdField = lazyregexp.New(`"cwd":"((?:[^"\\]|\\.)*)"`)

// siloCwd is the project path a silo belongs to: the cwd recorded in its
// newest transcript, else the path the slug was made from as the store's
// projects and the file system know it (store.PathOfSlug; slugs are lossy).
func siloCwd(e store.Env, slug string) string {
	dir := filepath.Join(e.SilosDir(), slug)
	ents, _ := os.ReadDir(dir)
	var newest string
	var newestT time.Time
	for _, de := range ents {
		if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".jsonl") {
			continue
		}
		if fi, err := de.Info(); err == nil && fi.ModTime().After(newestT) {
			newest, newestT = filepath.Join(dir, de.Name()), fi.ModTime()
		}
	}
	if newest != "" {
		if f, _, err := store.OpenRegular(newest); err == nil {
			buf := make([]byte, 256<<10)
			n, _ := f.Read(buf)
			f.Close()
			if m := cwdField.FindSubmatch(buf[:n]); m != nil {
				var s string
				if json.Unmarshal([]byte(`"`+string(m[1])+`"`), &s) == nil && s != "" {
					return s
				}
			}
		}
	}
	// From the silo's name alone: "" when two folders share it (see
	// store.PathOfSlug), so its memories apply in no project rather than in
	// the wrong one.
	path, _ := store.PathOfSlug(e, slug)
	return path
}

// Report says what apply did.
type Report struct {
	Written []string `json:"written"` // canonical and review entries written
	Deleted []string `json:"deleted"` // silo files removed
	Kept    []string `json:"kept"`    // silo files left: changed since planned, or not in the plan
	Indexes []string `json:"indexes"` // silo MEMORY.md files rewritten
}

// Apply carries out a fresh plan: for each entry it writes the
// canonical (or review) file, then deletes the silo copies, then rewrites
// each silo's MEMORY.md without their lines, each step atomic. The order
// makes an interrupted run safe to repeat: every memory is in its silo or
// in the store at every moment. A silo file whose content changed after it
// was read (or from the hash in expect, a plan from `learn check --json`)
// is not deleted.
func Apply(ctx context.Context, e store.Env, expect map[string]string) (Plan, Report, error) {
	var rep Report
	unlock, err := store.Lock(e.Store)
	if err != nil {
		return Plan{}, rep, err
	}
	defer unlock()
	// A killed apply may have left silo files renamed aside: put them back
	// before planning; and its temporary files go.
	if slugs, err := os.ReadDir(e.SilosDir()); err == nil {
		for _, s := range slugs {
			if s.IsDir() {
				dir := filepath.Join(e.SilosDir(), s.Name(), "memory")
				recoverAsides(dir)
				store.Tidy(dir, "MEMORY.md") // the silo is Claude Code's: only ccmem's own
			}
		}
	}
	tidyStore(e)
	plan, err := Check(ctx, e)
	if err != nil {
		return plan, rep, err
	}
	now := e.Time()
	// Group items by target, in plan order.
	type group struct {
		chosen  *Item
		members []*Item
	}
	groups := map[string]*group{}
	var order []string
	for i := range plan.Items {
		it := &plan.Items[i]
		if it.Action == ActSkip {
			continue
		}
		if expect != nil {
			if h, ok := expect[it.Path]; !ok || h != it.Hash {
				rep.Kept = append(rep.Kept, it.Path)
				it.Action, it.Reason = ActSkip, "changed since the plan was made, or not in it"
				continue
			}
		}
		g := groups[it.Target]
		if g == nil {
			g = &group{}
			groups[it.Target] = g
			order = append(order, it.Target)
		}
		g.members = append(g.members, it)
		if it.Action != ActMerge {
			g.chosen = it
		}
	}
	indexEdits := map[string][]string{} // silo dir → file names removed
	for _, target := range order {
		if err := ctx.Err(); err != nil {
			return plan, rep, err
		}
		g := groups[target]
		if g.chosen == nil { // the chosen copy changed since the plan: leave all
			for _, m := range g.members {
				rep.Kept = append(rep.Kept, m.Path)
			}
			continue
		}
		stored, _ := store.ReadSmallFile(target, 1<<20)
		// A merged entry keeps every origin it ever had.
		sources := storedSources(stored)
		for _, m := range g.members {
			sources = append(sources, m.Path)
		}
		slices.Sort(sources)
		sources = slices.Compact(sources)
		final := stored
		if g.chosen.Action == ActCreate || g.chosen.Action == ActUpdate || g.chosen.Action == ActReview {
			var extra map[string]string
			if g.chosen.Type == "user" && g.chosen.SourceCwd != "" {
				// What the model wrote about the user stays in the
				// project it came from until the person accepts it
				// (ccmem learn review): then it applies everywhere.
				extra = map[string]string{"scope": ScopeProject}
			}
			final = canonical(*g.chosen, sources, now, extra)
		}
		// Nothing is lost: a version the store replaces, and a copy whose
		// text differs from what the store keeps (an older same-name copy,
		// one older than the store's), go to the archive first.
		if err := archiveHistory(e, g.chosen, g.members, stored, final, now); err != nil {
			return plan, rep, err
		}
		if !bytes.Equal(final, stored) {
			// The model wrote it: memory, shown as curated from Claude
			// Code's memory, no standing rule until the person accepts
			// it; recorded before it is written (a kill between leaves
			// nothing that passes for the person's).
			if err := provenance.NoteFile(e, provenance.Origin{By: provenance.Curated, Via: "learn", At: now}, target); err != nil {
				return plan, rep, err
			}
			if err := store.WriteFileAtomic(target, final); err != nil {
				return plan, rep, err
			}
			rep.Written = append(rep.Written, target)
			stepDone("written", target)
		}
		for _, m := range g.members {
			removed, err := removeIfUnchanged(m.Path, m.Hash)
			if err != nil {
				return plan, rep, err
			}
			if !removed {
				rep.Kept = append(rep.Kept, m.Path)
				continue
			}
			rep.Deleted = append(rep.Deleted, m.Path)
			stepDone("deleted", m.Path)
			dir := filepath.Dir(m.Path)
			indexEdits[dir] = append(indexEdits[dir], filepath.Base(m.Path))
		}
	}
	// Lines left behind by an interrupted run: the file was deleted after
	// its entry reached the store, but the index was not yet rewritten.
	if dangling, err := danglingIndexLines(e); err == nil {
		for d, files := range dangling {
			indexEdits[d] = append(indexEdits[d], files...)
		}
	}
	dirs := make([]string, 0, len(indexEdits))
	for d := range indexEdits {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		changed, err := dropIndexLines(filepath.Join(d, "MEMORY.md"), indexEdits[d])
		if err != nil {
			return plan, rep, err
		}
		if changed {
			rep.Indexes = append(rep.Indexes, filepath.Join(d, "MEMORY.md"))
			stepDone("index", filepath.Join(d, "MEMORY.md"))
		}
	}
	return plan, rep, nil
}

// storedSources are the origins a stored entry names: its sources list and
// its original_path.
func storedSources(stored []byte) []string {
	if stored == nil {
		return nil
	}
	m, _, err := frontmatter.Read(stored)
	if err != nil {
		return nil
	}
	var out []string
	if p, ok := m.Fields["original_path"].(string); ok && p != "" {
		out = append(out, p)
	}
	if list, ok := m.Fields["sources"].([]any); ok {
		for _, x := range list {
			if p, ok := x.(string); ok && p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// archiveHistory keeps in $CCMEM_HOME/archive/<type>/ the texts an apply
// would otherwise lose: the stored version final replaces, and every silo
// copy (the older same-name copies, a copy older than the store's) whose
// text is not what the store ends up holding. Each is named by a hash of
// its text, so a repeated apply writes it once.
func archiveHistory(e store.Env, chosen *Item, members []*Item, stored, final []byte, now time.Time) error {
	kept := func(it *Item) bool {
		if final != nil && sameEntry(final, *it) {
			return true
		}
		if it.Type == "feedback" {
			// Feedback already accepted counts as kept.
			if a, err := store.ReadSmallFile(filepath.Join(e.LearnedDir(), "feedback", filepath.Base(chosen.Target)), 1<<20); err == nil && sameEntry(a, *it) {
				return true
			}
		}
		return false
	}
	if stored != nil && !bytes.Equal(stored, final) {
		if front, body, err := frontmatter.Split(stored); err == nil {
			reason := "replaced by a newer version from " + chosen.Path
			if err := archiveText(e, chosen.Type, chosen.Target, front, body, reason); err != nil {
				return err
			}
		}
	}
	for _, m := range members {
		if kept(m) {
			continue
		}
		reason := "older copy of the same memory; the store keeps " + filepath.Base(chosen.Target)
		if m == chosen {
			reason = "older than the version the store keeps"
		}
		c := canonical(*m, nil, now, nil)
		front, body, err := frontmatter.Split(c)
		if err != nil {
			continue
		}
		if err := archiveText(e, m.Type, chosen.Target, front, body, reason); err != nil {
			return err
		}
	}
	return nil
}

// archiveText writes one archived version of the entry whose store file is
// target: its frontmatter with an archived_reason, and its body.
func archiveText(e store.Env, typ, target string, front, body []byte, reason string) error {
	base := strings.TrimSuffix(filepath.Base(target), ".md")
	dest := filepath.Join(e.ArchiveDir(), typ, base+"."+shortHash(string(stripProvenance(front))+"\x00"+string(body))+".md")
	if _, err := os.Lstat(dest); err == nil {
		return nil // this text is archived already
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(stripKey(front, "archived_reason"))
	q, _ := json.Marshal(reason)
	fmt.Fprintf(&b, "archived_reason: %s\n---\n", q)
	b.Write(body)
	return store.WriteFileAtomic(dest, b.Bytes())
}

// testOnlyApplyHook, when a test sets it, is called after each step of
// apply: "written", "deleted" or "index", with the file concerned.
var testOnlyApplyHook func(step, path string)

func stepDone(step, path string) {
	if testOnlyApplyHook != nil {
		testOnlyApplyHook(step, path)
	}
}

var indexLink = lazyregexp.New(`\]\((?:\./)?([^()/]+\.md)\)`)

// danglingIndexLines finds, per silo, files its MEMORY.md links to that no
// longer exist and that the store records as ingested from there.
func danglingIndexLines(e store.Env) (map[string][]string, error) {
	out := map[string][]string{}
	var ingested map[string]bool
	slugs, err := os.ReadDir(e.SilosDir())
	if err != nil {
		return out, err
	}
	for _, s := range slugs {
		dir := filepath.Join(e.SilosDir(), s.Name(), "memory")
		data, err := store.ReadFileIn(dir, filepath.Join(dir, "MEMORY.md"), 4<<20)
		if err != nil {
			continue
		}
		for _, m := range indexLink.FindAllStringSubmatch(string(data), -1) {
			path := filepath.Join(dir, m[1])
			if _, err := os.Lstat(path); err == nil {
				continue
			}
			if ingested == nil {
				ingested = ingestedSources(e)
			}
			if ingested[path] {
				out[dir] = append(out[dir], m[1])
			}
		}
	}
	return out, nil
}

// ingestedSources is every silo path the store's entries name as their
// origin (original_path and sources).
func ingestedSources(e store.Env) map[string]bool {
	set := map[string]bool{}
	dirs := []string{e.ReviewDir()}
	for _, t := range Types {
		dirs = append(dirs, filepath.Join(e.LearnedDir(), t))
	}
	for _, d := range dirs {
		ents, _ := os.ReadDir(d)
		for _, de := range ents {
			data, err := store.ReadSmallFile(filepath.Join(d, de.Name()), 1<<20)
			if err != nil {
				continue
			}
			m, _, err := frontmatter.Read(data)
			if err != nil {
				continue
			}
			if p, ok := m.Fields["original_path"].(string); ok {
				set[p] = true
			}
			if list, ok := m.Fields["sources"].([]any); ok {
				for _, x := range list {
					if p, ok := x.(string); ok {
						set[p] = true
					}
				}
			}
		}
	}
	return set
}

// dropIndexLines rewrites a silo's MEMORY.md without the lines that link to
// the given files; every other byte stays as it was.
func dropIndexLines(path string, files []string) (bool, error) {
	return rewriteIndex(path, func(content string) string {
		var out strings.Builder
		for _, l := range strings.SplitAfter(content, "\n") {
			drop := false
			for _, f := range files {
				if strings.Contains(l, "]("+f+")") || strings.Contains(l, "](./"+f+")") {
					drop = true
					break
				}
			}
			if !drop {
				out.WriteString(l)
			}
		}
		return out.String()
	})
}

func redactBytes(b []byte) []byte {
	out, n := redact.String(string(b))
	if n == 0 {
		return b
	}
	return []byte(out)
}

// redactedValue is a YAML line whose value now starts with a redaction
// mark, which YAML would read as a list unless quoted.
var redactedValue = lazyregexp.New(`^(\s*(?:- )?(?:[\w.-]+:\s+)?)(\[REDACTED:[^\n]*?)(\r?\n?)$`)

// redactFront redacts a frontmatter block line by line, keeping it valid
// YAML: a plain value that now begins with "[REDACTED:…" is quoted.
func redactFront(front []byte) []byte {
	lines := strings.SplitAfter(string(front), "\n")
	changed := false
	for i, l := range lines {
		red, n := redact.String(l)
		if n == 0 {
			continue
		}
		changed = true
		if m := redactedValue.FindStringSubmatch(red); m != nil {
			red = m[1] + strconv.Quote(m[2]) + m[3]
		}
		lines[i] = red
	}
	if !changed {
		return front
	}
	return []byte(strings.Join(lines, ""))
}
