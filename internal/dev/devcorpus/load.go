package devcorpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Laid is one source as laid out on this machine.
type Laid struct {
	Source   Source
	Dir      string // dir/<id>
	Prompts  []Prompt
	Sessions []Session // by end time
	byID     map[string]int
}

// Load reads a laid-out source.
func Load(dir string, s Source) (*Laid, error) {
	base := filepath.Join(dir, s.ID)
	mark, err := os.ReadFile(filepath.Join(base, "LAID"))
	if err != nil {
		return nil, fmt.Errorf("%w: %s (hint: go run ./scripts/devcorpus lay)", errNotLaid, base)
	}
	if got, want := strings.TrimSpace(string(mark)), s.Repo+" "+s.Commit; got != want {
		return nil, fmt.Errorf("%s holds %s, not %s (hint: go run ./scripts/devcorpus lay)", base, got, want)
	}
	l := &Laid{Source: s, Dir: base, byID: map[string]int{}}
	texts := map[string]string{}
	// The history's lines were laid out one per prompt with their number
	// kept in prompts.tsv; read the texts back by that order.
	if err := eachLine(filepath.Join(base, "claude", "history.jsonl"), func(i int, line string) {
		var o struct {
			Display string `json:"display"`
		}
		if json.Unmarshal([]byte(line), &o) == nil {
			texts[strconv.Itoa(i)] = o.Display
		}
	}); err != nil {
		return nil, err
	}
	k := 0
	if err := eachLine(filepath.Join(base, "prompts.tsv"), func(_ int, line string) {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			return
		}
		ms, _ := strconv.ParseInt(f[2], 10, 64)
		k++
		p := Prompt{ID: s.ID + ":" + f[0], Hash: f[1], Time: time.UnixMilli(ms).UTC(), Slash: f[4] == "true", Project: f[5],
			Text: texts[strconv.Itoa(k)]}
		p.Lang = LangOf(p.Text) // the rule may have changed since the corpus was laid out
		l.byID[p.ID] = len(l.Prompts)
		l.Prompts = append(l.Prompts, p)
	}); err != nil {
		return nil, err
	}
	if err := eachLine(filepath.Join(base, "sessions.tsv"), func(_ int, line string) {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			return
		}
		a, _ := strconv.ParseInt(f[2], 10, 64)
		b, _ := strconv.ParseInt(f[3], 10, 64)
		n, _ := strconv.Atoi(f[4])
		l.Sessions = append(l.Sessions, Session{ID: f[0], Silo: f[1], Start: time.UnixMilli(a).UTC(), End: time.UnixMilli(b).UTC(), Prompts: n, Cwd: f[5]})
	}); err != nil {
		return nil, err
	}
	return l, nil
}

// Prompt is the prompt with that id.
func (l *Laid) Prompt(id string) (Prompt, bool) {
	i, ok := l.byID[id]
	if !ok {
		return Prompt{}, false
	}
	return l.Prompts[i], true
}

// TranscriptPath is where a session's transcript is laid out.
func (l *Laid) TranscriptPath(s Session) string {
	return filepath.Join(l.Dir, "claude", "projects", s.Silo, s.ID+".jsonl")
}

// eachLine calls fn with each non-empty line of a file and its number
// among the non-empty lines (from 1).
func eachLine(path string, fn func(int, string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	i := 0
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		i++
		fn(i, sc.Text())
	}
	return sc.Err()
}
