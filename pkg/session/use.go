package session

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/episode"
	"github.com/ccmem/ccmem/pkg/lazyregexp"
	"github.com/ccmem/ccmem/pkg/store"
)

// Whether what recall gave a session was used is told from the session's
// own record once it is over: the model read the session a line pointed
// at (the Read tool, ccmem's MCP get), or its later answers, commands or
// changed files carry what the recalled passage named (an identifier, a
// path, a command in backticks) that the person had not typed before. It
// is counted per kind of injection in this machine's use.json (the
// store's root, never synced), shown by `ccmem show`, and it tunes how
// readily recall names a weaker match (UseStats.PointerShift), within fixed
// bounds.

// The kinds of what recall gives.
const (
	GivenPassage = "passage" // a recalled passage (the bar cleared)
	GivenPointer = "pointer" // one line naming a session (a weaker match)
)

// maxGiven bounds what a session records of what it was given.
const maxGiven = 48

func givenOf(refs []string, kind string, turn int) []checkpoint.Given {
	if kind == "" {
		kind = GivenPassage
	}
	var out []checkpoint.Given
	for _, r := range refs {
		out = append(out, checkpoint.Given{Ref: r, Kind: kind, Turn: turn})
	}
	return out
}

func appendGiven(have, more []checkpoint.Given) []checkpoint.Given {
	have = append(have, more...)
	if len(have) > maxGiven {
		have = have[len(have)-maxGiven:]
	}
	return have
}

// givenEarlyPath keeps what a session was given before it has a
// checkpoint (its first prompt), beside the checkpoints.
func givenEarlyPath(e store.Env, key, sid string) string {
	return filepath.Join(e.CheckpointsDir(key), sid+".given")
}

func readGivenEarly(e store.Env, p store.Project, sid string) []checkpoint.Given {
	data, err := store.ReadFileIn(e.ProjectDir(p.Key), givenEarlyPath(e, p.Key, sid), 64<<10)
	if err != nil {
		return nil
	}
	var out []checkpoint.Given
	if json.Unmarshal(data, &out) != nil {
		return nil
	}
	return out
}

func addGivenEarly(e store.Env, p store.Project, sid string, more []checkpoint.Given) error {
	if len(more) == 0 {
		return nil
	}
	all := appendGiven(readGivenEarly(e, p, sid), more)
	if err := os.MkdirAll(e.CheckpointsDir(p.Key), 0o700); err != nil {
		return err
	}
	return store.WriteJSON(givenEarlyPath(e, p.Key, sid), all)
}

// handle is a word a passage names that says it was used when it turns
// up later: an identifier with a digit, an underscore, a dot or a slash in
// it (heron-7, audit_events, web/old.ts, 6432), or a span in backticks.
var (
	handleWord = lazyregexp.New(`[A-Za-z0-9][A-Za-z0-9_./:@-]*[0-9_./:@][A-Za-z0-9_./:@-]*[A-Za-z0-9]`)
	backticks  = lazyregexp.New("`([^`\n]{3,80})`")
)

func handles(text string) []string {
	var out []string
	for _, m := range backticks.FindAllStringSubmatch(text, 16) {
		out = append(out, strings.ToLower(strings.TrimSpace(m[1])))
	}
	for _, w := range handleWord.R().FindAllString(text, 32) {
		if len(w) >= 4 && !onlyDigitsAndDate(w) {
			out = append(out, strings.ToLower(w))
		}
	}
	return out
}

// onlyDigitsAndDate tells a word that is a year or a date (2026-11-20,
// 10:00): said everywhere, it shows no use. A plain number (a port, an
// id) is a handle.
func onlyDigitsAndDate(w string) bool {
	if strings.Trim(w, "0123456789") == "" {
		return len(w) == 4 && (strings.HasPrefix(w, "19") || strings.HasPrefix(w, "20"))
	}
	return strings.Trim(w, "0123456789-:./") == ""
}

// useOf tells what the session c did with what it was given: each given
// memory counts as used when the session read its file after it was given
// (the ref's path among the files read), or carried one of its handles
// into a later answer, command or changed file that the person's own
// prompts up to then did not hold. read gives a memory's text at a ref
// (the passage of a session's turn).
func useOf(c *Checkpoint, given []checkpoint.Given, read func(ref string) string) checkpoint.Use {
	u := checkpoint.Use{Given: map[string]int{}, Used: map[string]int{}}
	for _, g := range given {
		u.Given[g.Kind]++
		path, _ := store.ParseRef(g.Ref)
		used := false
		for _, r := range c.Digest.Read {
			if r == path || filepath.Base(r) == filepath.Base(path) && strings.HasSuffix(path, r) {
				used = true
			}
		}
		if !used {
			typed, later := "", ""
			for _, n := range c.Digest.Notes {
				switch {
				case n.Kind == NotePrompt && n.Turn <= g.Turn+1:
					typed += " " + strings.ToLower(n.Text)
				case n.Turn > g.Turn:
					later += " " + strings.ToLower(n.Text+" "+n.Cmd)
				}
			}
			later += " " + strings.ToLower(strings.Join(c.Digest.Commands, " ")+" "+strings.Join(c.FilesChanged, " "))
			for _, h := range handles(read(g.Ref)) {
				if !strings.Contains(typed, h) && strings.Contains(later, h) {
					used = true
					break
				}
			}
		}
		if used {
			u.Used[g.Kind]++
		}
	}
	return u
}

// UseIn is what the ended session c did with what it was given, each
// memory read from this store.
func UseIn(e store.Env, c *Checkpoint, given []checkpoint.Given) checkpoint.Use {
	return useOf(c, given, func(ref string) string { return passageAt(e, ref) })
}

// passageAt is the text of what the ref names: a session's notes at its
// turn (path#turn), or a file's line (path#line) or whole (bounded).
func passageAt(e store.Env, ref string) string {
	path, n := store.ParseRef(ref)
	if !store.Within(e.Store, path) {
		return ""
	}
	data, err := store.ReadSmallFile(path, 8<<20)
	if err != nil {
		return ""
	}
	if strings.HasSuffix(path, ".json") {
		ep, err := episode.Decode(data)
		if err != nil {
			return ""
		}
		var b strings.Builder
		for _, note := range ep.Digest.Notes {
			if n == 0 || note.Turn == n {
				b.WriteString(note.Text + " " + note.Cmd + "\n")
			}
		}
		return b.String()
	}
	lines := strings.Split(string(data), "\n")
	if n > 0 && n <= len(lines) {
		return lines[n-1]
	}
	return ""
}

// UseStats is what this machine's sessions did with what recall gave
// them, by kind, and the pointer part recall uses now.
type UseStats struct {
	Given map[string]int `json:"given"`
	Used  map[string]int `json:"used"`
	// Sessions counts the sessions that were given anything.
	Sessions int `json:"sessions"`
	// PointerShift moves the part of recall's bar a session must clear to
	// be named in one line (search.PointerPart) by what this person's
	// sessions did with those lines, within [MinPointerShift,
	// MaxPointerShift]; 0 until there is enough to tune by.
	PointerShift float64 `json:"pointer_shift,omitempty"`
}

// The bounds of the tuning, and what it needs first: recall may name
// fewer weak matches (up to +0.2 of the bar) or a few more (-0.1), never
// silence itself nor speak on anything.
const (
	MinPointerShift = -0.1
	MaxPointerShift = 0.2
	tuneAfter       = 20 // pointer lines given before tuning moves
)

const useName = "use.json"

// ReadUse is this machine's counts (empty when none).
func ReadUse(e store.Env) UseStats {
	s := UseStats{Given: map[string]int{}, Used: map[string]int{}}
	if data, err := store.ReadSmallFile(filepath.Join(e.Store, useName), 1<<20); err == nil {
		_ = json.Unmarshal(data, &s)
	}
	if s.Given == nil {
		s.Given = map[string]int{}
	}
	if s.Used == nil {
		s.Used = map[string]int{}
	}
	return s
}

// Rate is the share of kind's memories given that were used (-1: none
// given).
func (s UseStats) Rate(kind string) float64 {
	if s.Given[kind] == 0 {
		return -1
	}
	return float64(s.Used[kind]) / float64(s.Given[kind])
}

// tune moves the pointer shift by what pointer lines did: seldom used
// (under one in ten), recall names fewer weak matches; often used (over
// two in five), more; within the bounds.
func (s *UseStats) tune() {
	if s.Given[GivenPointer] < tuneAfter {
		return
	}
	switch r := s.Rate(GivenPointer); {
	case r < 0.1:
		s.PointerShift += 0.05
	case r > 0.4:
		s.PointerShift -= 0.05
	}
	s.PointerShift = min(MaxPointerShift, max(MinPointerShift, s.PointerShift))
}

// recordUse adds a session's use to this machine's counts.
func recordUse(e store.Env, u checkpoint.Use) error {
	n := 0
	for _, v := range u.Given {
		n += v
	}
	if n == 0 {
		return nil
	}
	unlock, err := store.Lock(filepath.Join(e.Store, ".use"))
	if err != nil {
		return err
	}
	defer unlock()
	s := ReadUse(e)
	for k, v := range u.Given {
		s.Given[k] += v
	}
	for k, v := range u.Used {
		s.Used[k] += v
	}
	s.Sessions++
	s.tune()
	err = store.WriteJSON(filepath.Join(e.Store, useName), s)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
