package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/transcript/transcriptgen"
)

// storeSpec is the size of a generated store.
type storeSpec struct {
	name               string
	globalLines        int   // lines of the global MEMORY.md (0: use bytes)
	indexBytes         int   // bytes of each big index file (global, repo, briefing)
	episodes, archived int   // per project
	learned            int   // canonical entries
	silos, siloFiles   int   // Claude Code memory folders
	transcriptBytes    int64 // the session's transcript
}

var (
	typical = storeSpec{name: "typical", globalLines: 150, episodes: 50, learned: 20, silos: 5, siloFiles: 4,
		transcriptBytes: 160 << 10}
	large = storeSpec{name: "large", indexBytes: 5 << 20, episodes: 200, archived: 10000, learned: 2000, silos: 500, siloFiles: 20,
		transcriptBytes: 100 << 20}
	// The stores that grow one thing far past the typical: cost must follow
	// what is shown, not what is stored.
	manyLearned  = storeSpec{name: "20k learned", globalLines: 150, episodes: 50, learned: 20000, silos: 5, siloFiles: 4, transcriptBytes: 160 << 10}
	manySilos    = storeSpec{name: "5k silos", globalLines: 150, episodes: 50, learned: 20, silos: 5000, siloFiles: 4, transcriptBytes: 160 << 10}
	manyEpisodes = storeSpec{name: "100k episodes", globalLines: 150, episodes: 100000, learned: 20, silos: 5, siloFiles: 4, transcriptBytes: 160 << 10}
	specs        = []storeSpec{typical, large, manyLearned, manySilos, manyEpisodes}
)

// world is a generated HOME with a store, a repository and a transcript.
type world struct {
	dir, home, repo, transcript string
	env                         store.Env
	key                         string
}

var words = strings.Fields("retry payment client checkout latency postgres migration flag release review cache token budget index episode silo memory hook session branch build test deploy config schema queue worker timeout backoff circuit")

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.Intn(len(words))]
	}
	return strings.Join(w, " ")
}

// digestJSON is a session's digest as the Stop hook writes it: a few turns
// of prompts and conclusions (about 3 KB, this corpus's average), a failed
// command and its fix now and then.
func digestJSON(r *rand.Rand, t time.Time) string {
	type note struct {
		Turn int    `json:"turn"`
		At   string `json:"at"`
		Kind string `json:"kind"`
		Cmd  string `json:"cmd,omitempty"`
		Text string `json:"text"`
	}
	var notes []note
	turns := 3 + r.Intn(6)
	for turn := 1; turn <= turns; turn++ {
		at := t.Add(time.Duration(turn) * time.Minute).Format(time.RFC3339)
		notes = append(notes, note{turn, at, "prompt", "", sentence(r, 10+r.Intn(30))})
		if r.Intn(6) == 0 {
			notes = append(notes, note{turn, at, "failure", "go test ./internal/" + words[r.Intn(len(words))], "FAIL: " + sentence(r, 8)})
			notes = append(notes, note{turn, at, "fix", "go test ./internal/" + words[r.Intn(len(words))], "failed at turn 1; succeeded after changes to internal/a.go"})
		}
		notes = append(notes, note{turn, at, "answer", "", sentence(r, 20+r.Intn(40))})
	}
	data, err := json.Marshal(map[string]any{"notes": notes, "commands": []string{"go test ./...", "make lint"}, "files_read": []string{"internal/a.go", "README.md"}})
	must(err)
	return string(data)
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func write(path, content string) {
	must(os.MkdirAll(filepath.Dir(path), 0o700))
	must(os.WriteFile(path, []byte(content), 0o600))
}

// bigMarkdown is a MEMORY.md-like file of about n bytes, or of lines lines.
func bigMarkdown(r *rand.Rand, n, lines int) string {
	var b strings.Builder
	for i := 0; (lines > 0 && i < lines) || (lines == 0 && b.Len() < n); i++ {
		if i%12 == 0 {
			fmt.Fprintf(&b, "## %s\n", sentence(r, 2))
			continue
		}
		fmt.Fprintf(&b, "- %s\n", sentence(r, 6+r.Intn(10)))
	}
	return b.String()
}

// locate finds a generated store's paths without generating it.
func locate(dir string) world {
	w := world{dir: dir, home: filepath.Join(dir, "home"), repo: filepath.Join(dir, "src", "shop")}
	env, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return w.home
		}
		return ""
	})
	must(err)
	w.env = env
	p, err := store.ResolveProject(env, w.repo)
	must(err)
	w.key = p.Key
	w.transcript = filepath.Join(env.SilosDir(), p.Key, "bench-session.jsonl")
	return w
}

// generate lays out a store of the given size under dir, deterministically.
func generate(dir string, s storeSpec) world {
	r := rand.New(rand.NewSource(42))
	w := world{dir: dir, home: filepath.Join(dir, "home"), repo: filepath.Join(dir, "src", "shop")}
	env, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return w.home
		}
		return ""
	})
	must(err)
	w.env = env
	write(filepath.Join(w.repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	p, err := store.ResolveProject(env, w.repo)
	must(err)
	p, err = store.ClaimProject(env, p)
	must(err)
	w.key = p.Key
	pdir := env.ProjectDir(p.Key)

	if s.indexBytes > 0 {
		write(env.GlobalMemory(), bigMarkdown(r, s.indexBytes, 0))
		write(filepath.Join(store.RepoMemoryDir(w.repo), "MEMORY.md"), bigMarkdown(r, s.indexBytes, 0))
		write(filepath.Join(pdir, "briefing.md"), bigMarkdown(r, s.indexBytes, 0))
	} else {
		write(env.GlobalMemory(), bigMarkdown(r, 0, s.globalLines))
		write(filepath.Join(store.RepoMemoryDir(w.repo), "MEMORY.md"), bigMarkdown(r, 0, 40))
		write(filepath.Join(pdir, "briefing.md"), bigMarkdown(r, 0, 60))
	}
	start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	var index []string
	must(os.MkdirAll(filepath.Join(pdir, "episodes"), 0o700))
	must(os.MkdirAll(filepath.Join(pdir, "archive"), 0o700))
	for i := 0; i < s.episodes+s.archived; i++ {
		t := start.Add(-time.Duration(i) * 37 * time.Second)
		name := fmt.Sprintf("%s-%08x-%04x.json", t.Format("20060102T150405Z"), r.Uint32(), i)
		body := fmt.Sprintf(`{"session_id":"%s","goal":%q,"turns":%d,"tools":{"Edit":3},"files_changed":["internal/a.go"],"started_at":%q,"friction":{"score":1,"class":"OK","signals":{}},"digest":%s}`+"\n",
			name, sentence(r, 6), 1+r.Intn(40), t.Format(time.RFC3339), digestJSON(r, t))
		if i < s.episodes {
			must(os.WriteFile(filepath.Join(pdir, "episodes", name), []byte(body), 0o600))
			index = append(index, fmt.Sprintf("- %s · %d turns · OK · %q · internal/a.go — episodes/%s", t.Format("2006-01-02 15:04"), 1+r.Intn(40), sentence(r, 6), name))
		} else {
			must(os.WriteFile(filepath.Join(pdir, "archive", name), []byte(body), 0o600))
		}
	}
	idx := strings.Join(index, "\n") + "\n"
	if s.indexBytes > 0 {
		for len(idx) < s.indexBytes { // a 5 MB INDEX.md, as an old store may have
			idx += idx
		}
	}
	write(filepath.Join(pdir, "INDEX.md"), idx)
	write(filepath.Join(dir, "INDEX.md.orig"), idx)
	for i := 0; i < s.learned; i++ {
		typ := learn.Types[i%4]
		name := fmt.Sprintf("entry-%04d", i)
		cwd := w.repo
		if i%3 == 0 {
			cwd = "/home/dev/src/other"
		}
		write(filepath.Join(env.LearnedDir(), typ, name+".md"), fmt.Sprintf("---\nname: %s\ndescription: %s\nmetadata:\n  type: %s\nsource_cwd: %q\ningested_at: \"2026-11-01T00:00:00Z\"\n---\n\n%s.\n", name, sentence(r, 8), typ, cwd, sentence(r, 30)))
	}
	for i := 0; i < s.silos; i++ {
		dir := siloDir(env, i)
		var lines []string
		for j := 0; j < s.siloFiles; j++ {
			f := fmt.Sprintf("note-%02d.md", j)
			write(filepath.Join(dir, f), fmt.Sprintf("---\nname: note-%02d\ndescription: %s\nmetadata:\n  type: reference\n---\n%s\n", j, sentence(r, 5), sentence(r, 20)))
			lines = append(lines, fmt.Sprintf("- [Note %d](%s) — %s", j, f, sentence(r, 3)))
		}
		write(filepath.Join(dir, "MEMORY.md"), strings.Join(lines, "\n")+"\n")
	}
	w.transcript = filepath.Join(env.SilosDir(), p.Key, "bench-session.jsonl")
	writeTranscript(w.transcript, s.transcriptBytes, r)
	// A store in use has been there a while: its folders were not all
	// written in the last second (which ccmem's caches treat as racy).
	settled := time.Now().Add(-time.Hour)
	for _, typ := range learn.Types {
		_ = os.Chtimes(filepath.Join(env.LearnedDir(), typ), settled, settled)
	}
	for i := 0; i < s.silos; i++ {
		_ = os.Chtimes(siloDir(env, i), settled, settled)
	}
	_ = os.Chtimes(env.SilosDir(), settled, settled) // no silo added in the last seconds
	return w
}

// siloDir is the memory folder of the generated store's i-th silo.
func siloDir(env store.Env, i int) string {
	return filepath.Join(env.SilosDir(), fmt.Sprintf("-home-dev-src-p%04d", i), "memory")
}

// writeTranscript writes about size bytes of transcript with a real one's
// mix of lines (see transcriptgen).
func writeTranscript(path string, size int64, r *rand.Rand) {
	must(os.MkdirAll(filepath.Dir(path), 0o700))
	f, err := os.Create(path)
	must(err)
	defer f.Close()
	must(transcriptgen.Write(f, size, r))
}
