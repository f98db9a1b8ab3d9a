package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/importer"
	"github.com/ccmem/ccmem/pkg/store"
)

// Figures are one source's measure: what the raw files hold beside what
// ccmem's import made of them.
type Figures struct {
	ID, Agent, Repo, Commit string
	// Files are the session files laid out, Missing those the snapshot
	// lacks.
	Files, Missing int
	// Expected are the sessions the raw files hold that a person typed in
	// (a user message, or a prompt the log names); Found those that became
	// an episode.
	Expected, Found int
	// Typed are the prompts the client's log lists for the found sessions
	// (Slash of them the client's own commands, no turn), Messages the
	// user messages their files hold, Kept the turns their episodes
	// record. Logged says the log was there.
	Typed, Slash, Messages, Kept int
	Logged                       bool
	// Edited are the files the sessions' edits name, Changed those their
	// episodes list as changed.
	Edited, Changed int
	// Projects are the found sessions with a folder, Right those filed
	// under the project that folder is.
	Projects, Right int
	// Dropped is what the import said it left out, and why; Redacted the
	// secrets replaced when the folder was laid out.
	Dropped  []importer.Dropped
	Redacted int
	// Diffs say, for -v, where a session's figures differ (their text
	// stays on this machine: never committed).
	Diffs []string `json:"-"`
}

// measure imports a laid-out source into its fresh store and compares.
func measure(ctx context.Context, l *Laid) (Figures, error) {
	s := l.Source
	f := Figures{ID: s.ID, Agent: s.Agent, Repo: s.Repo, Commit: s.Commit, Files: l.Files, Missing: l.Missing, Logged: l.Logged, Redacted: l.Redacted}
	if err := os.RemoveAll(l.Store); err != nil {
		return f, err
	}
	e, err := store.EnvFrom(func(k string) string {
		switch k {
		case "HOME":
			return l.Home
		case "CCMEM_HOME":
			return l.Store
		}
		return ""
	})
	if err != nil {
		return f, err
	}
	rep, err := importer.Import(ctx, e, importer.ImportOptions{})
	if err != nil {
		return f, err
	}
	f.Dropped = rep.Dropped
	episodes := episodesOf(e)
	for id, x := range l.Sessions {
		if x.Messages == 0 && x.Typed == 0 {
			continue // nothing typed: no session to expect
		}
		f.add(e, id, x, episodes, l.Logged)
	}
	return f, nil
}

// imported is an episode and the project key it is filed under.
type imported struct {
	rec episode.Record
	key string
}

// episodesOf reads every episode of the store, by session id.
func episodesOf(e store.Env) map[string]imported {
	out := map[string]imported{}
	keys, _ := os.ReadDir(e.ProjectsDir())
	for _, k := range keys {
		for _, dir := range []string{e.EpisodesDir(k.Name()), e.EpisodeArchiveDir(k.Name())} {
			files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			for _, p := range files {
				data, err := os.ReadFile(p)
				if err != nil {
					continue
				}
				if rec, err := episode.Decode(data); err == nil && rec.SessionID != "" {
					out[rec.SessionID] = imported{rec, k.Name()}
				}
			}
		}
	}
	return out
}

// add counts one expected session against the episodes the import made
// (each taken once: a file named like its session counts once).
func (f *Figures) add(e store.Env, id string, x *Expected, episodes map[string]imported, logged bool) {
	f.Expected++
	edited := map[string]bool{} // one name per file: "a.go", "./a.go" and its full path are one
	for p := range x.Edited {
		if !filepath.IsAbs(p) {
			p = filepath.Join(x.Cwd, p)
		}
		edited[filepath.Clean(p)] = true
	}
	f.Edited += len(edited)
	found, right, kept := false, true, 0
	changed := map[string]bool{}
	for _, name := range append([]string{id}, x.Files...) {
		ep, ok := episodes[name]
		if !ok {
			continue
		}
		delete(episodes, name)
		found = true
		kept += ep.rec.Turns
		for _, c := range ep.rec.FilesChanged {
			changed[c] = true
		}
		right = right && x.Cwd != "" && store.ProjectAt(e, x.Cwd).Key == ep.key
	}
	if !found {
		return
	}
	f.Found++
	f.Kept += kept
	if logged && kept != x.Typed-x.Slash {
		f.Diffs = append(f.Diffs, fmt.Sprintf("%s: %d turns recorded, %d prompts typed (%d slash), %d user messages in its file", id, kept, x.Typed, x.Slash, x.Messages))
	}
	for p := range x.Edited {
		rel, err := filepath.Rel(x.Cwd, p)
		if !changed[p] && !changed[filepath.Clean(filepath.Join(x.Cwd, p))] && (err != nil || !changed[rel]) {
			f.Diffs = append(f.Diffs, fmt.Sprintf("%s: edited, not recorded: %s", id, p))
		}
	}
	f.Typed += x.Typed
	f.Slash += x.Slash
	f.Messages += x.Messages
	f.Changed += len(changed)
	if x.Cwd != "" {
		f.Projects++
		if right {
			f.Right++
		}
	}
}

// agentName is how the report names an agent.
func agentName(a string) string {
	return map[string]string{"codex": "Codex CLI", "gemini": "Gemini CLI", "opencode": "opencode"}[a]
}

// held tells whether a repository is of an owner held out.
func held(repo string) bool {
	owner, _, _ := strings.Cut(repo, "/")
	for _, o := range heldOut {
		if strings.EqualFold(o, owner) {
			return true
		}
	}
	return false
}

// String is the figures in one line, for a test's comparison.
func (f Figures) String() string {
	return fmt.Sprintf("%s %s files %d/%d sessions %d/%d typed %d-%d msgs %d kept %d edited %d changed %d projects %d/%d logged %v",
		f.ID, f.Agent, f.Files, f.Missing, f.Found, f.Expected, f.Typed, f.Slash, f.Messages, f.Kept, f.Edited, f.Changed, f.Right, f.Projects, f.Logged)
}
