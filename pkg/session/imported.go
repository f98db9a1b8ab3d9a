package session

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/redact"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// What pkg/importer needs of the record to file a session no hook
// recorded (Claude Code's from before install, other agents'): the
// capture the hooks run, over the session's whole file (ReadWhole,
// Refresh), and the episode and its INDEX.md line written (WriteEpisode,
// AddToIndex, RewriteEpisode). A transcript shows no process tree, so an
// import tells automated runs from what the records carry (Headless,
// PromptKey, FromEditor, and the `claude -p` calls noteSpawn keeps).

// Source is a session's file as an importer found it.
type Source struct {
	Path, SessionID string
	// Agent is "" for Claude Code's transcripts, else AgentCodex,
	// AgentGemini or AgentOpencode.
	Agent string
}

// Forks are the fork families of Claude Code's transcripts one import
// has met, so that each file's head is read once.
type Forks struct{ families forkFamilies }

// ReadWhole reads a session no hook recorded from the start of its file,
// as the hooks would have: a fork's copy of its parent's turns is left to
// the parent. When ctx ends first, or the file cannot be read (err), the
// record is partial; when nothing was said in it, its Turns is 0;
// otherwise it is finished and stamped archived at now, its automation
// not yet judged.
func ReadWhole(ctx context.Context, src Source, p store.Project, cfg *config.Capture, forks *Forks, now time.Time) (*Checkpoint, error) {
	c := newCheckpoint(src.SessionID, p)
	c.configure(cfg)
	c.Transcript.Path = src.Path
	c.Agent = src.Agent
	c.importing = true
	if parent, from := forks.families.parentOf(src.Path, src.SessionID, false); src.Agent == "" && parent != "" {
		// Its copy of the parent's turns is the parent's.
		c.Parent, c.State.ForkedAt = parent, ownFrom(from, src.Path)
	}
	err := c.catchUp(ctx, src.Path)
	if err != nil || ctx.Err() != nil || c.Turns == 0 {
		return c, err
	}
	c.finish(true)
	c.ArchivedAt = now.UTC().Format(time.RFC3339)
	c.State.Checked = false // the importer judges it
	return c, nil
}

// AddToIndex adds the INDEX.md lines of a project's episodes (replacing
// any of the same sessions), under the project's lock.
func AddToIndex(e store.Env, key string, eps []SessionFile) error {
	if len(eps) == 0 {
		return nil
	}
	edits := make([]indexEdit, len(eps))
	for i, ep := range eps {
		edits[i] = indexEdit{sid: ep.Record.SessionID, line: IndexLine(ep.Record, filepath.Base(ep.Path))}
	}
	unlock, err := store.Lock(e.ProjectDir(key))
	if err != nil {
		return err
	}
	defer unlock()
	return editIndex(e, key, edits, nil)
}

// Refresh brings an imported episode, at path, up to date with its
// session's file when the file grew since (its session went on after the
// import, with no hook recording it): the same capture code reads what it
// gained, from where the import stopped. An episode the hooks recorded is
// left alone. It tells whether the episode changed.
func Refresh(ctx context.Context, e store.Env, p store.Project, path string, src Source, cfg *config.Capture, now time.Time) (bool, error) {
	c, err := readCheckpoint(e.ProjectDir(p.Key), path)
	if err != nil {
		return false, err
	}
	file := src.Path
	// A session opencode moved from its JSON storage to its store is read
	// there from then on.
	_, _, inStore := opencodeDBSession(src.Path)
	moved := inStore && c.Agent == AgentOpencode && c.Transcript.Path != src.Path
	if inStore {
		file, _, _ = opencodeDBSession(src.Path)
	}
	fi, err := os.Stat(file)
	// A session kept as a state, not a log (Gemini CLI's, opencode's), is
	// read whole when it changed: its file's size says nothing of that.
	whole := c.Agent == AgentGemini || c.Agent == AgentOpencode
	if err != nil || c.Process.PID != 0 || c.Transcript.Path != src.Path && !moved || !whole && fi.Size() <= c.Transcript.Size {
		return false, nil
	}
	c.configure(cfg)
	c.importing = true
	before := c.Transcript
	if err := c.catchUp(ctx, src.Path); err != nil {
		return false, err
	}
	if whole && c.Transcript == before {
		return false, nil
	}
	c.finish(true)
	c.ArchivedAt = now.UTC().Format(time.RFC3339)
	return true, RewriteEpisode(e, p, path, c)
}

// WriteEpisode writes an imported session's episode, under the project's
// lock; it returns the episode's path. (Its INDEX.md line is the caller's:
// see AddToIndex.)
func WriteEpisode(e store.Env, p store.Project, c *Checkpoint, now time.Time) (string, error) {
	p, err := store.ClaimProject(e, p)
	if err != nil {
		return "", err
	}
	unlock, err := store.Lock(e.ProjectDir(p.Key))
	if err != nil {
		return "", err
	}
	defer unlock()
	name := EpisodeName(c, now)
	path := filepath.Join(e.EpisodesDir(p.Key), name)
	if err := writeCheckpoint(e.ProjectDir(p.Key), path, c, true); err != nil {
		return "", err
	}
	return path, nil
}

// noteSpawn records, in an import, a shell command that starts a headless
// client, for the automation rule: its time and its command line, which
// often holds the started run's prompt.
func (c *Checkpoint) noteSpawn(cmd, ts string) {
	if !c.importing || !startsHeadlessClaude(cmd) || len(c.State.Spawned) >= maxSpawned {
		return
	}
	if _, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		line, _ := redact.Shorten(textfmt.Line(cmd), 300)
		c.State.Spawned = append(c.State.Spawned, ts+"\t"+line)
	}
}

// maxSpawned bounds the headless starts one session's record keeps.
const maxSpawned = 100

// startsHeadlessClaude tells a command line that runs claude -p.
func startsHeadlessClaude(cmd string) bool {
	words := strings.FieldsFunc(cmd, func(r rune) bool { return unicode.IsSpace(r) || r == ';' || r == '|' || r == '&' || r == '(' })
	for i, w := range words {
		if filepath.Base(w) != "claude" {
			continue
		}
		for _, a := range words[i+1:] {
			if a == "-p" || a == "--print" || strings.HasPrefix(a, "--print=") {
				return true
			}
		}
	}
	return false
}

// Headless tells a run whose prompt came with the command, not typed by a
// person at the client: an sdk entrypoint (claude -p, the SDKs), or, from
// a client that records none (before about 2.1.30), a transcript that
// opens with the prompt dequeued.
func Headless(c *Checkpoint) bool {
	return strings.HasPrefix(c.Entrypoint, "sdk") || c.Entrypoint == "" && c.PromptQueued
}

// RewriteEpisode writes an episode's INDEX.md line, then the episode
// again: killed between the two, the episode is still unjudged, and the
// next import judges it and writes both.
func RewriteEpisode(e store.Env, p store.Project, path string, c *Checkpoint) error {
	unlock, err := store.Lock(e.ProjectDir(p.Key))
	if err != nil {
		return err
	}
	defer unlock()
	if filepath.Dir(path) == e.EpisodesDir(p.Key) { // an archived one has no menu line
		if err := editIndex(e, p.Key, []indexEdit{{sid: c.SessionID, line: IndexLine(c, filepath.Base(path))}}, nil); err != nil {
			return err
		}
	}
	return writeCheckpoint(e.ProjectDir(p.Key), path, c, true)
}

// PromptKey is what makes two sessions open with "the same prompt": the
// first 120 characters of the first prompt, digits and case aside.
func PromptKey(c *Checkpoint) string {
	text := c.Goal
	for _, n := range c.Digest.Notes {
		if n.Kind == NotePrompt {
			text = n.Text
			break
		}
	}
	r := []rune(strings.ToLower(strings.Join(strings.Fields(text), " ")))
	r = r[:min(len(r), 120)]
	return strings.Map(func(x rune) rune {
		if unicode.IsDigit(x) {
			return '0'
		}
		return x
	}, string(r))
}

// FromEditor tells a session run from an editor (Zed's agent panel
// drives Claude Code through the SDK and its tools are mcp__acp__*): a
// person's, though headless.
func FromEditor(c *Checkpoint) bool {
	return slices.ContainsFunc(mapKeys(c.Tools), func(n string) bool { return strings.HasPrefix(n, "mcp__acp__") })
}

func mapKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
