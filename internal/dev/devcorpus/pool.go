package devcorpus

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ccmem/ccmem/internal/dev/baseline"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// PrintSample lists the prompts chosen for labelling: id, hash, time,
// language (never their text: that is read with pool, on this machine).
func PrintSample(w io.Writer, dir string, sources []Source) error {
	for _, s := range sources {
		l, err := Load(dir, s)
		if err != nil {
			return err
		}
		for _, p := range Sample(l) {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d earlier sessions\n", p.ID, p.Hash, p.Time.Format("2006-01-02 15:04"), p.Lang, l.earlier(p))
		}
	}
	return nil
}

// PrintPool prints, for a labeller on this machine, each sampled prompt
// of the sources named (by id; all when none) and the earlier sessions it
// may bear on: the union of what ccmem search, BM25 and grep rank first
// and the two newest sessions of its folder, in no telling order, each
// with the prompts a person typed in it. Judging a pool, not every
// session, is how such labels are made (TREC's pooling); the pool is
// made before any tuning.
func PrintPool(ctx context.Context, w io.Writer, dir string, ids []string) error {
	sources := Sources
	if len(ids) > 0 {
		sources = nil
		for _, id := range ids {
			s, ok := SourceByID(id)
			if !ok {
				return fmt.Errorf("no source %q", id)
			}
			sources = append(sources, s)
		}
	}
	for _, s := range sources {
		l, err := Load(dir, s)
		if err != nil {
			return err
		}
		r, err := newReplayer(l, "pool")
		if err != nil {
			return err
		}
		// The catalogue: every session once, with what its person typed.
		fmt.Fprintf(w, "######## source %s: sessions (id, folder, end, prompts)\n", s.ID)
		for _, ss := range l.Sessions {
			ps := typedPrompts(l.TranscriptPath(ss))
			fmt.Fprintf(w, "  -- %s  %s  %s  %d prompts\n", ss.ID[:8], folderName(l, ss.Cwd), ss.End.Format("2006-01-02"), len(ps))
			for _, t := range ps[:min(8, len(ps))] {
				fmt.Fprintf(w, "     > %s\n", textfmt.Shorten(strings.Join(strings.Fields(t), " "), 220))
			}
		}
		for _, p := range Sample(l) {
			if err := r.advance(ctx, p.Time); err != nil {
				return err
			}
			docs := r.docs(p.Project)
			cands := map[string]bool{}
			add := func(ids []string, n int) {
				for _, id := range ids[:min(n, len(ids))] {
					cands[id] = true
				}
			}
			add(r.search(ctx, p, 5), 5)
			add(baseline.NewIndex(docs).BM25(p.Text), 5)
			add(baseline.Grep(docs, p.Text), 3)
			sort.Slice(docs, func(i, j int) bool { return docs[i].Time.After(docs[j].Time) })
			for _, d := range docs[:min(2, len(docs))] {
				cands[d.ID] = true
			}
			var list []string
			for id := range cands {
				list = append(list, id[:min(8, len(id))])
			}
			sort.Strings(list)
			fmt.Fprintf(w, "\n======== %s\t%s\t%s\t%s\t%s\t%d earlier sessions in its folder\n", p.ID, p.Hash, p.Time.Format("2006-01-02 15:04"), p.Lang, folderName(l, p.Project), len(docs))
			fmt.Fprintf(w, "PROMPT: %s\n", textfmt.Shorten(strings.Join(strings.Fields(p.Text), " "), 1200))
			fmt.Fprintf(w, "POOL: %s\n", strings.Join(list, " "))
		}
	}
	return nil
}

// folderName is a folder's path as the person had it.
func folderName(l *Laid, local string) string {
	rel, err := filepath.Rel(filepath.Join(l.Dir, "roots"), local)
	if err != nil {
		return local
	}
	return "/" + filepath.ToSlash(rel)
}

// typedPrompts are the prompts a transcript's person typed: user lines
// whose content is text, not a command's echo or the client's own note.
func typedPrompts(path string) []string {
	var out []string
	_ = eachLine(path, func(_ int, line string) {
		var o struct {
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			IsMeta      bool   `json:"isMeta"`
			Message     struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &o) != nil || o.Type != "user" || o.IsSidechain || o.IsMeta {
			return
		}
		var s string
		if json.Unmarshal(o.Message.Content, &s) != nil {
			return
		}
		t := strings.TrimSpace(s)
		if t == "" || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "Caveat:") || strings.HasPrefix(t, "This session is being continued") {
			return
		}
		out = append(out, t)
	})
	return out
}
