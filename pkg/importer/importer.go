// Package importer files sessions ccmem did not record as they happened
// — Claude Code's transcripts from before ccmem was installed, Codex's
// rollouts, Gemini CLI's recordings, opencode's sessions (its JSON storage
// and, in a binary that links pkg/opencodestore, its database) — as
// episodes, through the same capture code the hooks run (pkg/session's
// ReadWhole), so the first session after install already has a menu and
// recall. Only ccmem links it: no hook reads another agent's store.
package importer

import (
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
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/config"
	_ "github.com/ccmem/ccmem/pkg/opencodestore" // opencode's database, read where sessions are imported only
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// Claude Code keeps weeks of transcripts in ~/.claude/projects/ before
// anyone installs ccmem. Import turns them into episodes, digests included,
// through the same capture code the hooks run, so the first session after
// install already has a menu and recall. It is idempotent (a session that
// has an episode, or a checkpoint the hooks keep, is left alone: a second
// run adds nothing) and resumable (each session's episode is written whole
// or not at all; a run killed midway goes on where it stopped).
//
// A transcript shows no process tree, so automated runs are told from what
// it carries (see classifyImported): a headless run (entrypoint sdk-cli,
// sdk-ts, sdk-py) that a Bash call of another imported session started
// (`claude -p` in its command, within minutes before), or one of three or
// more headless runs of a project that open with the same prompt (a
// plugin's observer, a script, a bot).

// ImportOptions shape an import.
type ImportOptions struct {
	// Limit is the most sessions imported (0: every one).
	Limit int
	// DryRun reports what would be imported, writing nothing.
	DryRun bool
	// Only, when set, imports only the sessions of the projects it accepts
	// (by root).
	Only func(root string) bool
	// Config is a project's configuration (nil: the defaults).
	Config func(root, key string) config.Config
	// Progress, when set, is told how far the import got.
	Progress func(done, total int)
	// Follow imports only the transcripts an earlier import follows (see
	// session.Followed), and stops following those that went quiet.
	Follow bool
}

// ImportReport says what an import did (or, dry, would do).
type ImportReport struct {
	Found     int      `json:"found"`     // transcripts found
	Imported  int      `json:"imported"`  // sessions that became episodes
	Known     int      `json:"known"`     // already recorded (an episode or a live record)
	Recent    int      `json:"recent"`    // written to in the last orphan_after: imported now, brought up to date by a later import if they go on
	Refreshed int      `json:"refreshed"` // imported before, grown since (a session that went on without hooks): brought up to date
	Settled   int      `json:"settled"`   // live records of ended sessions archived first (in every project)
	Empty     int      `json:"empty"`     // not imported: no turn, or no folder it can be filed under (see Dropped)
	Automated int      `json:"automated"` // of the imported, marked automated runs
	Projects  []string `json:"projects"`  // project roots that gained episodes
	Failed    []string `json:"failed,omitempty"`
	Left      int      `json:"left,omitempty"` // not imported for the limit or the context's end
	// Notes are sessions found in a form ccmem does not read.
	Notes []string `json:"notes,omitempty"`
	// Dropped counts the sessions not imported, by agent and cause.
	Dropped []Dropped `json:"dropped,omitempty"`
}

// Dropped is how many sessions of an agent an import left out, and why.
type Dropped struct {
	Agent string `json:"agent"` // as session.AgentName says it
	Cause string `json:"cause"`
	N     int    `json:"n"`
}

// Why sessions are left out.
const (
	DropNoFolder    = "no folder is recorded for them"
	DropOtherSystem = "their folder is another system's (a path this OS cannot have)"
	DropNoTurn      = "nothing was said in them"
	DropSidechain   = "subagents' transcripts an older client kept beside its sessions, not sessions of their own"
)

// drop counts a session left out.
func (r *ImportReport) drop(agent, cause string) {
	r.Empty++
	name := session.AgentName(agent)
	for i := range r.Dropped {
		if r.Dropped[i].Agent == name && r.Dropped[i].Cause == cause {
			r.Dropped[i].N++
			return
		}
	}
	r.Dropped = append(r.Dropped, Dropped{Agent: name, Cause: cause, N: 1})
}

// transcriptFile is one session transcript in a silo.
type transcriptFile struct {
	path, sid string
	mtime     time.Time
	// agent is "" for Claude Code's transcripts, session.AgentCodex for Codex's
	// rollouts.
	agent string
	// cwd is the session's folder when the listing read it already.
	cwd string
}

// listTranscripts lists the session transcripts of every silo, oldest
// first. Symlinks are not followed.
func listTranscripts(ctx context.Context, e store.Env) ([]transcriptFile, error) {
	silos, err := os.ReadDir(e.SilosDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var out []transcriptFile
	for _, s := range silos {
		if !s.IsDir() {
			continue
		}
		dir := filepath.Join(e.SilosDir(), s.Name())
		files, err := store.ListFiles(e.SilosDir(), dir)
		if err != nil {
			continue
		}
		for _, f := range files {
			sid, ok := strings.CutSuffix(f.Name, ".jsonl")
			if !ok || !store.ValidID(sid, 128, false) {
				continue
			}
			out = append(out, transcriptFile{path: filepath.Join(dir, f.Name), sid: sid, mtime: time.Unix(0, f.MTime)})
		}
	}
	out = append(out, listRollouts(e)...)
	out = append(out, listGemini(e)...)
	oc, _ := listOpencode(ctx, e)
	out = append(out, oc...)
	sort.Slice(out, func(i, j int) bool {
		if !out[i].mtime.Equal(out[j].mtime) {
			return out[i].mtime.Before(out[j].mtime)
		}
		return out[i].path < out[j].path
	})
	return out, nil
}

// listRollouts lists Codex CLI's session files,
// CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl: each a session
// whose id ends its name. Symlinks are not followed; a folder in another
// shape is passed over.
func listRollouts(e store.Env) []transcriptFile {
	if e.CodexDir == "" {
		return nil
	}
	root := filepath.Join(e.CodexDir, "sessions")
	var out []transcriptFile
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth == 3 {
			files, err := store.ListFiles(root, dir)
			if err != nil {
				return
			}
			for _, f := range files {
				name, ok := strings.CutSuffix(f.Name, ".jsonl")
				if !ok || !strings.HasPrefix(name, "rollout-") || len(name) < 36 {
					continue
				}
				sid := name[len(name)-36:]
				if !store.ValidID(sid, 128, false) {
					continue
				}
				out = append(out, transcriptFile{path: filepath.Join(dir, f.Name), sid: sid, mtime: time.Unix(0, f.MTime), agent: session.AgentCodex})
			}
			return
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, de := range ents {
			if de.IsDir() && len(de.Name()) <= 4 && strings.Trim(de.Name(), "0123456789") == "" {
				walk(filepath.Join(dir, de.Name()), depth+1)
			}
		}
	}
	walk(root, 0)
	return out
}

// listGemini lists Gemini CLI's recordings,
// ~/.gemini/tmp/<project>/chats/session-*.json and .jsonl: each a session
// named by its file. Symlinks are not followed.
func listGemini(e store.Env) []transcriptFile {
	if e.GeminiDir == "" {
		return nil
	}
	root := filepath.Join(e.GeminiDir, "tmp")
	projects, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []transcriptFile
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		dir := filepath.Join(root, p.Name(), "chats")
		files, err := store.ListFiles(root, dir)
		if err != nil {
			continue
		}
		for _, f := range files {
			stem, ok := transcript.GeminiRecording(filepath.Join(dir, f.Name))
			if !ok || !store.ValidID(stem, 128, false) {
				continue
			}
			out = append(out, transcriptFile{path: filepath.Join(dir, f.Name), sid: stem, mtime: time.Unix(0, f.MTime), agent: session.AgentGemini})
		}
	}
	return out
}

// geminiCwd is the folder a Gemini CLI recording's session ran in: the
// first of the directories it names; else the folder its project folder's
// .project_root holds; else the folder ~/.gemini/projects.json
// maps its project folder's name to; else the project ccmem knows whose
// root hashes (sha256) to the recording's project hash.
func geminiCwd(e store.Env, path string) string {
	f, _, err := store.OpenRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, session.MaxWhole))
	if err != nil {
		return ""
	}
	s := transcript.ReadGemini(data, strings.HasSuffix(path, ".jsonl"))
	if len(s.Directories) > 0 && s.Directories[0] != "" {
		return s.Directories[0] // another system's folder is said so by the caller
	}
	slug := filepath.Base(filepath.Dir(filepath.Dir(path)))
	// The current client writes the folder beside the recordings, and may
	// leave projects.json empty.
	if data, err := store.ReadSmallFile(filepath.Join(filepath.Dir(filepath.Dir(path)), ".project_root"), 64<<10); err == nil {
		if root := strings.TrimSpace(string(data)); filepath.IsAbs(root) && !strings.ContainsAny(root, "\n\x00") {
			return root
		}
	}
	if data, err := store.ReadSmallFile(filepath.Join(e.GeminiDir, "projects.json"), 4<<20); err == nil {
		if root := geminiProjectRoot(data, slug); root != "" {
			return root
		}
	}
	hash := s.ProjectHash
	if hash == "" {
		hash = slug
	}
	keys, _ := os.ReadDir(e.ProjectsDir())
	for _, k := range keys {
		if root := e.ProjectRoot(k.Name()); root != "" {
			if sum := sha256.Sum256([]byte(root)); hex.EncodeToString(sum[:]) == hash {
				return root
			}
		}
	}
	return ""
}

// geminiProjectRoot reads projects.json, a map between project folders
// and their names under tmp/ (either way round, at the top or under
// "projects"), for the folder named slug.
func geminiProjectRoot(data []byte, slug string) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return ""
	}
	if inner, ok := top["projects"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(inner, &m) == nil {
			top = m
		}
	}
	for k, raw := range top {
		var v string
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		switch {
		case v == slug && filepath.IsAbs(k):
			return k
		case k == slug && filepath.IsAbs(v):
			return v
		}
	}
	return ""
}

// listOpencode lists opencode's sessions in its JSON storage,
// storage/session/<project>/ses_<id>.json. A subagent's session (one with
// a parent) is left out, as Claude Code's subagents are.
func listOpencode(ctx context.Context, e store.Env) (out []transcriptFile, notes []string) {
	if e.OpencodeDir == "" {
		return nil, nil
	}
	// Its store first: a session opencode moved there from its JSON
	// storage is read there.
	out, notes = listOpencodeStore(ctx, e)
	inStore := map[string]bool{}
	for _, tf := range out {
		inStore[tf.sid] = true
	}
	root := filepath.Join(e.OpencodeDir, "storage")
	projects, err := os.ReadDir(filepath.Join(root, "session"))
	if err != nil {
		return out, notes
	}
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		dir := filepath.Join(root, "session", p.Name())
		files, err := store.ListFiles(root, dir)
		if err != nil {
			continue
		}
		for _, f := range files {
			sid, ok := strings.CutSuffix(f.Name, ".json")
			if !ok || !strings.HasPrefix(sid, "ses_") || !store.ValidID(sid, 128, false) || inStore[sid] {
				continue
			}
			if s := opencodeSession(filepath.Join(dir, f.Name)); s.ParentID != "" {
				continue
			}
			out = append(out, transcriptFile{path: filepath.Join(dir, f.Name), sid: sid, mtime: time.Unix(0, f.MTime), agent: session.AgentOpencode})
			inStore[sid] = true
		}
	}
	return append(out, listOpencodeLegacy(e, inStore)...), notes
}

// listOpencodeLegacy lists the sessions of opencode's first layout (before
// 1.0), one storage per project: project/<project>/storage/session/info/
// ses_<id>.json, its messages in .../session/message/<session>/ and their
// parts in .../session/part/<session>/<message>/. A session opencode
// copied into its later storage (seen) is read there.
func listOpencodeLegacy(e store.Env, seen map[string]bool) (out []transcriptFile) {
	root := filepath.Join(e.OpencodeDir, "project")
	projects, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		dir := filepath.Join(root, p.Name(), "storage", "session", "info")
		files, err := store.ListFiles(root, dir)
		if err != nil {
			continue
		}
		for _, f := range files {
			sid, ok := strings.CutSuffix(f.Name, ".json")
			if !ok || !strings.HasPrefix(sid, "ses_") || !store.ValidID(sid, 128, false) || seen[sid] {
				continue
			}
			if s := opencodeSession(filepath.Join(dir, f.Name)); s.ParentID != "" {
				continue
			}
			seen[sid] = true
			out = append(out, transcriptFile{path: filepath.Join(dir, f.Name), sid: sid, mtime: time.Unix(0, f.MTime), agent: session.AgentOpencode})
		}
	}
	return out
}

// opencodeSession reads an opencode session file.
func opencodeSession(path string) transcript.OpencodeSession {
	var s transcript.OpencodeSession
	if data, err := store.ReadSmallFile(path, 1<<20); err == nil {
		_ = json.Unmarshal(data, &s)
	}
	return s
}

// transcriptCwd is the working directory a transcript's first lines record.
func transcriptCwd(e store.Env, path, agent string) string {
	if agent == session.AgentGemini {
		return geminiCwd(e, path)
	}
	if agent == session.AgentOpencode {
		return transcript.OpencodeCwd(path)
	}
	f, _, err := store.OpenRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	parse := transcript.Parse
	if agent == session.AgentCodex {
		parse = transcript.CodexParser()
	}
	cwd, side := "", false
	_, _, _ = transcript.ScanFromWith(parse, io.LimitReader(f, 4<<20), -1, 0, func(e transcript.Entry) {
		if cwd == "" && e.Cwd != "" {
			if e.Sidechain {
				side = true
			} else {
				cwd = e.Cwd
			}
		}
	}, func() bool { return cwd != "" })
	if cwd == "" && side {
		return sidechainOnly
	}
	return cwd
}

// sidechainOnly is what transcriptCwd says of a file that holds only a
// subagent's side of a session: older clients (2.0 and 2.1.1 here) kept
// each subagent's transcript, their start-up "Warmup" runs too, beside
// the sessions as agent-ID.jsonl. It is no session of its own.
const sidechainOnly = "\x00sidechain"

// Import imports the transcripts of every silo (see above).
func Import(ctx context.Context, e store.Env, opt ImportOptions) (ImportReport, error) {
	rep := ImportReport{Projects: []string{}}
	defer session.BeginStoreRun()()
	files, err := listTranscripts(ctx, e)
	if err != nil {
		return rep, err
	}
	follow := session.Followed(e)
	if opt.Follow {
		files = slices.DeleteFunc(files, func(tf transcriptFile) bool { return !slices.Contains(follow, tf.path) })
	}
	rep.Found = len(files)
	if e.OpencodeDir != "" {
		_, notes := listOpencodeStore(ctx, e)
		rep.Notes = append(rep.Notes, notes...)
	}
	cfgOf := func(p store.Project) config.Config {
		if opt.Config != nil {
			return opt.Config(p.Root, p.Key)
		}
		return config.Default()
	}
	now := e.Time()
	// Sessions the hooks recorded that are over become episodes first, in
	// every project: what they hold is not imported twice.
	if !opt.DryRun {
		settled, _ := session.SettleAll(ctx, e, cfgOf)
		rep.Settled = len(settled.Archived)
	}
	// touched: the projects this run imported into; judge: those and the
	// projects of sessions imported before, whose automated runs an
	// earlier run may not have judged.
	touched, judge := map[string]store.Project{}, map[string]store.Project{}
	done := map[string]*imported{}
	// Each project's episodes and archive are listed once, and the
	// INDEX.md lines of the sessions imported are written in batches: a
	// year of sessions costs no listing, and no rewrite of the menu, per
	// session. (Killed before a batch is written, the menu lacks lines
	// that the next import, or session start, restores: see session.HealIndex.)
	listings := importListings{}
	menus := &pendingMenus{}
	defer menus.flush(e)
	forks := &session.Forks{}
	for i, tf := range files {
		if opt.Progress != nil {
			opt.Progress(i, len(files))
		}
		if ctx.Err() != nil || opt.Limit > 0 && rep.Imported >= opt.Limit {
			rep.Left = len(files) - i
			break
		}
		cwd := tf.cwd
		if cwd == "" {
			cwd = transcriptCwd(e, tf.path, tf.agent)
		}
		switch {
		case cwd == sidechainOnly:
			rep.drop(tf.agent, DropSidechain)
			continue
		case cwd == "":
			rep.drop(tf.agent, DropNoFolder)
			continue
		case !filepath.IsAbs(cwd):
			rep.drop(tf.agent, DropOtherSystem)
			continue
		}
		p := store.ProjectAt(e, cwd)
		if opt.Only != nil && !opt.Only(p.Root) {
			rep.Found--
			continue
		}
		cfg := cfgOf(p)
		// A session written to a moment ago that no hook records (it
		// began before ccmem was installed) is imported as it is now: if
		// it goes on, a later import brings its episode up to date.
		recent := now.Sub(tf.mtime) < cfg.OrphanAfter
		known := listings.of(e, p.Key)
		if fileExists(e.CheckpointPath(p.Key, tf.sid)) || known.archived[tf.sid] {
			rep.Known++
			judge[p.Key] = p // a run killed before it judged this one's project
			continue
		}
		if recent && !opt.DryRun {
			follow = append(follow, tf.path)
		}
		if ep := known.episodes[tf.sid]; ep != "" {
			if grew, err := session.Refresh(ctx, e, p, ep, session.Source{Path: tf.path, SessionID: tf.sid, Agent: tf.agent}, &cfg.Capture, now); err != nil {
				rep.Failed = append(rep.Failed, fmt.Sprintf("%s: %v", e.Tilde(tf.path), err))
			} else if grew {
				rep.Refreshed++
				touched[p.Key] = p
			} else {
				rep.Known++
			}
			judge[p.Key] = p
			continue
		}
		if recent {
			rep.Recent++
		}
		c, err := session.ReadWhole(ctx, session.Source{Path: tf.path, SessionID: tf.sid, Agent: tf.agent}, p, &cfg.Capture, forks, now)
		if err != nil && ctx.Err() == nil {
			rep.Failed = append(rep.Failed, fmt.Sprintf("%s: %v", e.Tilde(tf.path), err))
			continue
		}
		if ctx.Err() != nil {
			rep.Left = len(files) - i
			break
		}
		if c.Turns == 0 {
			rep.drop(tf.agent, DropNoTurn)
			continue
		}
		rep.Imported++
		if _, ok := touched[p.Key]; !ok {
			rep.Projects = append(rep.Projects, p.Root)
		}
		touched[p.Key], judge[p.Key] = p, p
		if opt.DryRun {
			done[tf.sid] = &imported{c: c, p: p}
			continue
		}
		path, err := session.WriteEpisode(e, p, c, now)
		if err != nil {
			rep.Failed = append(rep.Failed, fmt.Sprintf("%s: %v", e.Tilde(tf.path), err))
			rep.Imported--
			continue
		}
		known.episodes[tf.sid] = path
		if err := menus.add(e, p.Key, session.SessionFile{Path: path, Record: c}); err != nil {
			rep.Failed = append(rep.Failed, err.Error())
		}
		done[tf.sid] = &imported{c: c, p: p, path: path}
	}
	if opt.Progress != nil {
		opt.Progress(len(files), len(files))
	}
	if !opt.DryRun {
		// Follow what may still be going; stop following what went quiet.
		var keep []string
		for _, path := range follow {
			if fi, err := os.Stat(path); err == nil && now.Sub(fi.ModTime()) < config.Default().OrphanAfter {
				keep = append(keep, path)
			}
		}
		if err := session.WriteFollowed(e, keep); err != nil {
			rep.Failed = append(rep.Failed, err.Error())
		}
	}
	if err := menus.flush(e); err != nil {
		rep.Failed = append(rep.Failed, err.Error())
	}
	if !opt.DryRun {
		// An import killed before it wrote its last batch left episodes
		// without a line: this one (or the next session start) adds them.
		for _, key := range slices.Sorted(maps.Keys(judge)) {
			_, _ = session.HealIndex(ctx, e, key)
		}
	}
	rep.Automated = classifyImported(e, judge, done, opt.DryRun, func(p store.Project) bool { return cfgOf(p).Capture.Automation != "off" })
	return rep, nil
}

// importListings are the projects' episodes and archived sessions as an
// import found them, by project key, each listed once.
type importListings map[string]*projectListing

type projectListing struct {
	episodes map[string]string // session → its (newest) episode
	archived map[string]bool
}

func (l importListings) of(e store.Env, key string) *projectListing {
	if pl := l[key]; pl != nil {
		return pl
	}
	pl := &projectListing{episodes: map[string]string{}, archived: map[string]bool{}}
	_ = store.ScanDirIn(e.ProjectDir(key), e.EpisodesDir(key), func(de fs.DirEntry) {
		n := de.Name()
		if sid := session.EpisodeSession(n); sid != "" {
			path := filepath.Join(e.EpisodesDir(key), n)
			if path > pl.episodes[sid] {
				pl.episodes[sid] = path
			}
		}
	})
	_ = store.ScanDirIn(e.ProjectDir(key), e.EpisodeArchiveDir(key), func(de fs.DirEntry) {
		if sid := session.EpisodeSession(de.Name()); sid != "" {
			pl.archived[sid] = true
		}
	})
	l[key] = pl
	return pl
}

// menuBatch is how many INDEX.md lines an import writes at once.
const menuBatch = 256

// pendingMenus are INDEX.md lines an import has yet to write, by project.
type pendingMenus struct {
	edits map[string][]session.SessionFile
}

// add queues a line, writing the project's batch when it is full.
func (m *pendingMenus) add(e store.Env, key string, ed session.SessionFile) error {
	if m.edits == nil {
		m.edits = map[string][]session.SessionFile{}
	}
	m.edits[key] = append(m.edits[key], ed)
	if len(m.edits[key]) < menuBatch {
		return nil
	}
	return m.write(e, key)
}

// flush writes every batch.
func (m *pendingMenus) flush(e store.Env) error {
	var first error
	for _, key := range slices.Sorted(maps.Keys(m.edits)) {
		if err := m.write(e, key); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (m *pendingMenus) write(e store.Env, key string) error {
	edits := m.edits[key]
	delete(m.edits, key)
	return session.AddToIndex(e, key, edits)
}

// imported is a session an import recorded (path "" in a dry run).
type imported struct {
	c    *session.Checkpoint
	p    store.Project
	path string
}

// spawn is a shell call that started a headless client (`claude -p`):
// the session that made it, when, and its command line (shortened).
type spawn struct {
	sid, root, cmd string
	at             time.Time
}

// spawnsOf are the headless starts the sessions' records hold, in time
// order.
func spawnsOf(all []*imported) []spawn {
	var out []spawn
	for _, f := range all {
		for _, s := range f.c.State.Spawned {
			ts, cmd, _ := strings.Cut(s, "\t")
			if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
				out = append(out, spawn{sid: f.c.SessionID, root: f.c.ProjectRoot, cmd: cmd, at: t})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// matchSpawns pairs each `claude -p` call with the headless session it
// started, one with one: first the session whose opening prompt the
// command line holds, then, for the calls left, the session that started
// soonest after the call (within spawnWindow). A person's own `claude -p`
// a moment later is then not taken for the one a session started.
func matchSpawns(spawns []spawn, all []*imported) map[string]spawn {
	started := map[string]spawn{}
	used := make([]bool, len(spawns))
	type cand struct {
		f     *imported
		start time.Time
	}
	var cands []cand
	for _, f := range all {
		if !session.Headless(f.c) || session.FromEditor(f.c) {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, f.c.StartedAt); err == nil {
			cands = append(cands, cand{f, t})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].start.Before(cands[j].start) })
	fits := func(s spawn, c cand) bool {
		_, taken := started[c.f.c.SessionID]
		root := c.f.c.ProjectRoot
		return !taken && s.sid != c.f.c.SessionID && !c.start.Before(s.at) && c.start.Sub(s.at) < spawnWindow &&
			(s.root == root || strings.HasPrefix(root, s.root+string(filepath.Separator)))
	}
	for pass := range 2 {
		for i, s := range spawns {
			if used[i] {
				continue
			}
			cmd := squash(s.cmd)
			for _, c := range cands {
				if !fits(s, c) {
					continue
				}
				if pass == 0 {
					head := squash(c.f.c.Goal)
					if len(head) > 40 {
						head = head[:40]
					}
					if len(head) < 8 || !strings.Contains(cmd, head) {
						continue
					}
				}
				started[c.f.c.SessionID], used[i] = s, true
				break
			}
		}
	}
	return started
}

// squash is text lowercased with its runs of spaces made one, for
// finding a prompt in a command line.
func squash(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// spawnWindow is how long after a `claude -p` call a headless session
// counts as started by it.
const spawnWindow = 10 * time.Minute

// classifyImported marks the imported sessions that are automated runs
// (see the package comment above Import) and rewrites their episodes and
// INDEX.md lines; it returns how many it marked. It looks at every
// episode of the projects touched that was imported but not yet
// classified, so an import killed before this step is classified by the
// next.
func classifyImported(e store.Env, touched map[string]store.Project, fresh map[string]*imported, dryRun bool, detect func(store.Project) bool) int {
	marked := 0
	for _, p := range touched {
		on := detect(p)
		// The project's episodes: what repeats is judged over all of them.
		var all []*imported
		for _, f := range fresh {
			if f.p.Key == p.Key {
				all = append(all, f)
			}
		}
		if !dryRun {
			eps, _, _ := session.ListSessions(e, p.Key, config.Default())
			for _, ep := range eps {
				if _, ok := fresh[ep.Record.SessionID]; !ok {
					all = append(all, &imported{c: ep.Record, p: p, path: ep.Path})
				}
			}
		}
		started := matchSpawns(spawnsOf(all), all)
		// Headless runs grouped by their opening prompt.
		groups := map[string][]*imported{}
		for _, f := range all {
			if session.Headless(f.c) {
				k := session.PromptKey(f.c)
				groups[k] = append(groups[k], f)
			}
		}
		for _, f := range all {
			c := f.c
			// Sessions the hooks saw live were judged by their process; an
			// imported one is judged here, and judged again while a group
			// it belongs to grows (an import stopped midway, resumed).
			if c.ArchivedAt == "" || c.Automated || c.State.Checked && c.Process.PID != 0 {
				continue
			}
			c.State.Checked = true
			if on && session.Headless(c) && !session.FromEditor(c) {
				if s, ok := started[c.SessionID]; ok {
					c.Automated, c.AutomatedBy = true, "started by `claude -p` in a Bash call of session "+s.sid
				}
				if g := groups[session.PromptKey(c)]; !c.Automated && len(g) >= 3 && session.PromptKey(c) != "" {
					c.Automated, c.AutomatedBy = true, fmt.Sprintf("a headless run with the same opening prompt as %d others", len(g)-1)
				}
			}
			if c.Automated {
				marked++
			}
			if dryRun || f.path == "" || !c.Automated {
				// Nothing a reader sees changed: the episode is not
				// written again to say it was judged (an imported
				// session is judged at every import).
				continue
			}
			if err := session.RewriteEpisode(e, p, f.path, c); err != nil {
				continue
			}
		}
	}
	return marked
}

// CountTranscripts counts the session transcripts of every silo.
func CountTranscripts(e store.Env) (int, error) {
	files, err := listTranscripts(context.Background(), e)
	return len(files), err
}

// CountUnrecorded counts the sessions of the other stores (Claude Code's
// transcripts, other agents') that no episode or checkpoint of any project
// records yet: what an import would add. Directory listings only.
func CountUnrecorded(e store.Env) (int, error) {
	files, err := listTranscripts(context.Background(), e)
	if err != nil || len(files) == 0 {
		return 0, err
	}
	have := map[string]bool{}
	projects, _ := os.ReadDir(e.ProjectsDir())
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		for _, dir := range []string{e.EpisodesDir(p.Name()), e.EpisodeArchiveDir(p.Name()), e.CheckpointsDir(p.Name())} {
			ents, _ := os.ReadDir(dir)
			for _, de := range ents {
				name := strings.TrimSuffix(de.Name(), ".json")
				if _, sid, ok := strings.Cut(name, "Z-"); ok {
					name = sid
				}
				have[name] = true
			}
		}
	}
	n := 0
	for _, f := range files {
		if !have[f.sid] {
			n++
		}
	}
	return n, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// listOpencodeStore lists the sessions of opencode's stores, when this
// binary reads them (pkg/opencodestore registered with pkg/session).
func listOpencodeStore(ctx context.Context, e store.Env) (out []transcriptFile, notes []string) {
	list, notes := session.ListStored(ctx, e)
	for _, s := range list {
		out = append(out, transcriptFile{path: s.Path, sid: s.ID, mtime: s.Updated, agent: session.AgentOpencode, cwd: s.Cwd})
	}
	return out, notes
}

// TurnReport says what EndOpencodeTurn did.
type TurnReport struct {
	Session string `json:"session"`
	Project string `json:"project"` // the project's root
	Turns   int    `json:"turns"`   // the session's turns recorded so far
}

// EndOpencodeTurn brings the record of one session of opencode's
// database up to date, as the Stop hook does for the other agents after
// every turn: ccmem's opencode plugin runs it when a turn ends (the hook
// binaries do not read the database). process is opencode's: the record
// is settled into an episode once it has exited.
func EndOpencodeTurn(ctx context.Context, e store.Env, sid string, process proc.Info) (TurnReport, error) {
	rep := TurnReport{Session: sid}
	if !opencodeSessionID(sid) {
		return rep, fmt.Errorf("%q is not an opencode session id (ses_ and letters or digits)", sid)
	}
	defer session.BeginStoreRun()()
	list, _ := session.ListStored(ctx, e)
	i := slices.IndexFunc(list, func(s session.StoreSession) bool { return s.ID == sid })
	if i < 0 {
		return rep, fmt.Errorf("no opencode session %s in %s", sid, e.Tilde(e.OpencodeDir))
	}
	s := list[i]
	if s.Cwd == "" || !filepath.IsAbs(s.Cwd) {
		return rep, fmt.Errorf("opencode session %s: %s", sid, DropNoFolder)
	}
	rep.Project = store.ProjectAt(e, s.Cwd).Root
	res, err := session.EndTurn(ctx, e, session.Turn{SessionID: sid, TranscriptPath: s.Path, Cwd: s.Cwd, Process: process}, time.Time{})
	if res.Checkpoint != nil {
		rep.Turns = res.Checkpoint.Turns
	}
	return rep, err
}

// opencodeSessionID tells an id opencode gives a session: "ses_" and up
// to 64 letters or digits (it names a file of the store).
func opencodeSessionID(s string) bool {
	rest, ok := strings.CutPrefix(s, "ses_")
	if !ok || rest == "" || len(rest) > 64 {
		return false
	}
	for _, r := range rest {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}
