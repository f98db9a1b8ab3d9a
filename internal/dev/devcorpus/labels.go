package devcorpus

import (
	_ "embed"
	"fmt"
	"strings"
)

// labelsTSV holds the labels, one prompt a line:
//
//	<source>:<line>	<hash>	talk|task	<related sessions>
//
// written by reading each prompt and the earlier sessions of its folder
// before any tuning: "talk" is small talk (no memory can help: thanks,
// go on, a greeting, a yes), "task" anything else; a task's related
// sessions are the earlier sessions that bear on it (reading one would
// help with it), comma-separated, a "~" before one that bears on it only
// in part, "-" for none.
//
//go:embed labels.tsv
var labelsTSV string

// Kinds of prompt.
const (
	KindTalk = "talk"
	KindTask = "task"
)

// Label is one labelled prompt.
type Label struct {
	ID, Hash, Kind string
	Related        []string
	Partly         []string
}

// Answerable tells whether an earlier session bears on the prompt.
func (l Label) Answerable() bool { return len(l.Related) > 0 }

type relation int

const (
	unrelated relation = iota
	partly
	related
)

// relation is how a session bears on the prompt: sessions are named by
// their id or a prefix of it of 8 characters or more.
func (l Label) relation(sid string) relation {
	match := func(ids []string) bool {
		for _, id := range ids {
			if id == sid || len(id) >= 8 && strings.HasPrefix(sid, id) {
				return true
			}
		}
		return false
	}
	switch {
	case match(l.Related):
		return related
	case match(l.Partly):
		return partly
	}
	return unrelated
}

// ReadLabels parses labels.tsv.
func ReadLabels() ([]Label, error) { return parseLabels(labelsTSV) }

func parseLabels(text string) ([]Label, error) {
	var out []Label
	seen := map[string]bool{}
	for i, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("labels.tsv:%d: want 4 tab-separated fields, have %d", i+1, len(f))
		}
		l := Label{ID: f[0], Hash: f[1], Kind: f[2]}
		if l.Kind != KindTalk && l.Kind != KindTask {
			return nil, fmt.Errorf("labels.tsv:%d: kind %q is neither talk nor task", i+1, l.Kind)
		}
		if seen[l.ID] {
			return nil, fmt.Errorf("labels.tsv:%d: %s labelled twice", i+1, l.ID)
		}
		seen[l.ID] = true
		if f[3] != "-" {
			if l.Kind == KindTalk {
				return nil, fmt.Errorf("labels.tsv:%d: small talk with related sessions", i+1)
			}
			for _, id := range strings.Split(f[3], ",") {
				if p, ok := strings.CutPrefix(id, "~"); ok {
					l.Partly = append(l.Partly, p)
				} else {
					l.Related = append(l.Related, id)
				}
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// CheckLabels checks labels.tsv against the laid-out corpus: every label
// names a prompt whose text has the label's hash, every related session
// ended before the prompt in its folder.
func CheckLabels(dir string, sources []Source) (int, error) {
	labels, err := ReadLabels()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range sources {
		l, err := Load(dir, s)
		if err != nil {
			return n, err
		}
		for _, lb := range labels {
			if !strings.HasPrefix(lb.ID, s.ID+":") {
				continue
			}
			p, ok := l.Prompt(lb.ID)
			if !ok {
				return n, fmt.Errorf("%s: no such prompt", lb.ID)
			}
			if p.Hash != lb.Hash {
				return n, fmt.Errorf("%s: hash %s, label says %s", lb.ID, p.Hash, lb.Hash)
			}
			for _, id := range append(append([]string{}, lb.Related...), lb.Partly...) {
				found := false
				for _, ss := range l.Sessions {
					if (ss.ID == id || len(id) >= 8 && strings.HasPrefix(ss.ID, id)) && ss.Cwd == p.Project && ss.End.Before(p.Time) {
						found = true
					}
				}
				if !found {
					return n, fmt.Errorf("%s: related session %s did not end before it in its folder", lb.ID, id)
				}
			}
			n++
		}
	}
	return n, nil
}
