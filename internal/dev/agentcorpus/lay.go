package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ccmem/ccmem/internal/dev/devcorpus"
	"github.com/ccmem/ccmem/pkg/redact"
)

// Laid is one source laid out under the corpus folder: Home is the home
// folder its agent's folder is in (what the import reads), Store a fresh
// store for the import.
type Laid struct {
	Source      Source
	Home, Store string
	// Files are the session files copied, Missing those the snapshot lacks
	// (4 MiB and more), Redacted the secrets the redactor replaced.
	Files, Missing, Redacted int
	// Sessions are what the raw files hold, by session id.
	Sessions map[string]*Expected
	// Logged says the client's own prompt log was there (Codex's
	// history.jsonl, Gemini CLI's logs.json): the typed counts come from it.
	Logged bool
	roots  map[string]string // Gemini CLI: slug -> its .project_root
	calls  map[string]string // Codex: a call's id -> the session whose rollout holds it first
}

// Expected is what one session's raw files hold, by this command's own
// reading (not ccmem's): its folder, the prompts the client's log says the
// person typed in it, the files its edits name.
type Expected struct {
	ID  string
	Cwd string
	// Typed are the prompts the client's log lists for the session, Slash
	// those of them that are the client's own commands (Gemini CLI's
	// /quit), which are no turn. Messages are the user messages the session file holds.
	Typed, Slash, Messages int
	Edited                 map[string]bool
	slug                   string // Gemini CLI: the folder its chats are in
	// Files are the names ccmem may know the session by besides its id:
	// Gemini CLI's recordings are named by their file.
	Files []string
}

func (l *Laid) session(id string) *Expected {
	if l.Sessions == nil {
		l.Sessions = map[string]*Expected{}
	}
	s := l.Sessions[id]
	if s == nil {
		s = &Expected{ID: id, Edited: map[string]bool{}}
		l.Sessions[id] = s
	}
	return s
}

// snapshot finds a source's repository on this machine (as devcorpus
// finds its own).
func snapshot(mirror string, s Source) (string, error) {
	return devcorpus.Snapshot(mirror, devcorpus.Source{Repo: s.Repo, Commit: s.Commit})
}

// lay copies a source's session files out of its snapshot (git directory
// gitDir) into dir/<id>/home/<prefix>, every JSON string redacted, and
// reads what they hold. Nothing else of the folder is read: credentials,
// settings and the client's state stay in the snapshot.
func lay(gitDir, dir string, s Source) (*Laid, error) {
	base := filepath.Join(dir, s.ID)
	if err := os.RemoveAll(base); err != nil {
		return nil, err
	}
	l := &Laid{Source: s, Home: filepath.Join(base, "home"), Store: filepath.Join(base, "store")}
	out, err := exec.Command("git", "-C", gitDir, "ls-tree", "-r", "-l", "-z", s.Commit, "--", strings.TrimSuffix(s.Prefix, "/")).Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree %s: %v", s.Repo, err)
	}
	type blob struct{ sha, rel string }
	var blobs []blob
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		rel, in := strings.CutPrefix(p, s.Prefix)
		if !ok || len(f) != 4 || f[1] != "blob" || !in || !wanted(s.Agent, rel) {
			continue
		}
		if f[3] == "-" || f[3] == "BAD" {
			l.Missing++
			continue
		}
		blobs = append(blobs, blob{f[2], rel})
	}
	cat := exec.Command("git", "-C", gitDir, "cat-file", "--batch")
	stdin, err := cat.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cat.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cat.Start(); err != nil {
		return nil, err
	}
	defer cat.Wait()
	defer stdin.Close()
	rd := bufio.NewReaderSize(stdout, 1<<20)
	var logs [][]byte // read once every session is known
	for _, b := range blobs {
		if _, err := fmt.Fprintln(stdin, b.sha); err != nil {
			return nil, err
		}
		head, err := rd.ReadString('\n')
		if err != nil {
			return nil, err
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			l.Missing++
			continue
		}
		size, _ := strconv.Atoi(f[2])
		data := make([]byte, size+1)
		if _, err := io.ReadFull(rd, data); err != nil {
			return nil, err
		}
		data = data[:size]
		if strings.HasSuffix(b.rel, ".json") || strings.HasSuffix(b.rel, ".jsonl") {
			data = l.redactJSON(data)
		}
		if isLog(s.Agent, b.rel) {
			logs = append(logs, data)
		} else {
			l.read(b.rel, data)
			l.Files++
		}
		if err := l.write(filepath.Join(s.Prefix, b.rel), data); err != nil {
			return nil, err
		}
	}
	for _, data := range logs {
		l.readLog(data)
	}
	return l, nil
}

// wanted tells the files lay copies: an agent's sessions, its prompt log,
// and what names a session's folder.
func wanted(agent, rel string) bool {
	parts := strings.Split(rel, "/")
	switch agent {
	case "codex":
		return rel == "history.jsonl" || parts[0] == "sessions" && strings.HasPrefix(path.Base(rel), "rollout-") && strings.HasSuffix(rel, ".jsonl")
	case "gemini":
		switch {
		case rel == "projects.json":
			return true
		case len(parts) == 3 && (parts[0] == "tmp" || parts[0] == "history"):
			return parts[2] == ".project_root" || parts[0] == "tmp" && parts[2] == "logs.json"
		case len(parts) == 4 && parts[0] == "tmp" && parts[2] == "chats":
			return strings.HasPrefix(parts[3], "session-") && (strings.HasSuffix(rel, ".json") || strings.HasSuffix(rel, ".jsonl"))
		}
	case "opencode":
		return parts[0] == "storage" && strings.HasSuffix(rel, ".json")
	}
	return false
}

func isLog(agent, rel string) bool {
	return agent == "codex" && rel == "history.jsonl" || agent == "gemini" && path.Base(rel) == "logs.json"
}

// redactJSON passes every string literal of a JSON or JSONL file through
// ccmem's redactor, in place: everything else (keys' order, numbers,
// spacing) stays byte for byte as the client wrote it.
func (l *Laid) redactJSON(data []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(data); {
		if data[i] != '"' {
			out.WriteByte(data[i])
			i++
			continue
		}
		j := i + 1
		for j < len(data) && data[j] != '"' {
			if data[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(data) {
			out.Write(data[i:])
			break
		}
		lit := data[i : j+1]
		var str string
		if json.Unmarshal(lit, &str) == nil {
			if red, n := redact.String(str); n > 0 {
				l.Redacted += n
				var b bytes.Buffer
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false)
				if enc.Encode(red) == nil {
					lit = bytes.TrimRight(b.Bytes(), "\n")
				}
			}
		}
		out.Write(lit)
		i = j + 1
	}
	return out.Bytes()
}

func (l *Laid) write(rel string, data []byte) error {
	p := filepath.Join(l.Home, filepath.FromSlash(rel))
	if !strings.HasPrefix(p, l.Home+string(filepath.Separator)) {
		return fmt.Errorf("%s: outside the corpus folder", rel)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o600)
}
