package devcorpus

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ccmem/ccmem/pkg/redact"
)

// Snapshot finds a source's repository on this machine: a git directory
// (a mirror the search tool's fetch brought, `<mirror>/<owner>+<name>/repo`,
// or a clone, `<mirror>/<owner>/<name>`), under mirror.
func Snapshot(mirror string, s Source) (string, error) {
	owner, name, _ := strings.Cut(s.Repo, "/")
	for _, dir := range []string{
		filepath.Join(mirror, owner+"+"+name, "repo"),
		filepath.Join(mirror, owner, name),
		filepath.Join(mirror, owner+"+"+name),
	} {
		if err := exec.Command("git", "-C", dir, "cat-file", "-e", s.Commit+"^{commit}").Run(); err == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no snapshot of %s with commit %s under %s (hint: git clone https://github.com/%s %s)",
		s.Repo, s.Commit, mirror, s.Repo, filepath.Join(mirror, owner, name))
}

// LayReport says what Lay copied.
type LayReport struct {
	Source             Source
	History, Sessions  int
	Subagents, Missing int // Missing: files the snapshot lacks (4 MiB and more)
	Redacted           int
}

// Lay copies a source's history.jsonl and transcripts out of its snapshot
// (git directory gitDir) into dir/<id>/: every string redacted, each
// working directory moved under dir/<id>/roots/ (so a session's project
// is a folder on this machine), and the index files the replay reads
// (prompts.tsv, sessions.tsv). Nothing else of the folder is read:
// credentials, settings and the client's state stay in the snapshot.
func Lay(gitDir, dir string, s Source) (LayReport, error) {
	rep := LayReport{Source: s}
	base := filepath.Join(dir, s.ID)
	if err := os.RemoveAll(base); err != nil {
		return rep, err
	}
	out, err := exec.Command("git", "-C", gitDir, "ls-tree", "-r", "-l", "-z", s.Commit, "--", strings.TrimSuffix(s.Prefix, "/")+ifRoot(s.Prefix)).Output()
	if err != nil {
		return rep, fmt.Errorf("git ls-tree %s: %v", s.Repo, err)
	}
	type blob struct{ sha, rel string }
	var blobs []blob
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 4 || f[1] != "blob" {
			continue
		}
		rel, ok := strings.CutPrefix(path, s.Prefix)
		if !ok || !wanted(rel) {
			continue
		}
		if f[3] == "-" || f[3] == "BAD" {
			rep.Missing++
			continue
		}
		blobs = append(blobs, blob{f[2], rel})
	}
	cat := exec.Command("git", "-C", gitDir, "cat-file", "--batch")
	in, err := cat.StdinPipe()
	if err != nil {
		return rep, err
	}
	stdout, err := cat.StdoutPipe()
	if err != nil {
		return rep, err
	}
	if err := cat.Start(); err != nil {
		return rep, err
	}
	defer cat.Wait()
	defer in.Close()
	rd := bufio.NewReaderSize(stdout, 1<<20)
	l := &layer{base: base, roots: filepath.Join(base, "roots")}
	for _, b := range blobs {
		if _, err := fmt.Fprintln(in, b.sha); err != nil {
			return rep, err
		}
		head, err := rd.ReadString('\n')
		if err != nil {
			return rep, err
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			if len(f) == 2 && f[1] == "missing" {
				rep.Missing++
				continue
			}
			return rep, fmt.Errorf("git cat-file: %q", head)
		}
		size, _ := strconv.Atoi(f[2])
		data := make([]byte, size+1)
		if _, err := io.ReadFull(rd, data); err != nil {
			return rep, err
		}
		data = data[:size]
		switch {
		case b.rel == "history.jsonl":
			n, err := l.history(data)
			if err != nil {
				return rep, err
			}
			rep.History = n
		default:
			if err := l.transcript(b.rel, data); err != nil {
				return rep, err
			}
			if strings.Contains(b.rel, "/subagents/") {
				rep.Subagents++
			} else {
				rep.Sessions++
			}
		}
	}
	rep.Redacted = l.redacted
	if err := l.writeIndexes(s); err != nil {
		return rep, err
	}
	return rep, nil
}

func ifRoot(prefix string) string {
	if prefix == "" {
		return "."
	}
	return ""
}

// wanted tells the files Lay copies: history.jsonl and the transcripts
// (JSONL) under projects/, a session's subagents' included.
func wanted(rel string) bool {
	if rel == "history.jsonl" {
		return true
	}
	parts := strings.Split(rel, "/")
	if parts[0] != "projects" || !strings.HasSuffix(rel, ".jsonl") {
		return false
	}
	switch len(parts) {
	case 3: // projects/<silo>/<session>.jsonl
		return true
	case 5: // projects/<silo>/<session>/subagents/agent-….jsonl
		return parts[3] == "subagents"
	}
	return false
}

// layer writes one source's laid-out copy.
type layer struct {
	base, roots string
	redacted    int
	prompts     []Prompt
	sessions    map[string]*Session // by silo/session id
}

// Prompt is one prompt of a person's history.jsonl.
type Prompt struct {
	// ID is "<source>:<line>" (the line of history.jsonl, from 1); Hash
	// the first 10 hex digits of the SHA-256 of the text as the person
	// typed it (before redaction), which labels carry so that a rebuilt
	// copy can be checked.
	ID, Hash string
	Time     time.Time
	// Project is the folder the prompt was typed in, on this machine
	// (under roots/); Lang the language its text is written in.
	Project, Lang string
	// Text is the prompt as history.jsonl keeps it (redacted), a pasted
	// text's placeholder included.
	Text string
	// Slash: a slash command (the hook does not search for those).
	Slash bool
}

// Session is one main transcript.
type Session struct {
	ID, Silo   string
	Start, End time.Time
	// Cwd is the working directory its first lines record, on this
	// machine; Prompts how many lines a person's prompt could be.
	Cwd     string
	Prompts int
}

func (l *layer) history(data []byte) (int, error) {
	var out bytes.Buffer
	n := 0
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var o map[string]any
		if json.Unmarshal(line, &o) != nil {
			continue
		}
		display, _ := o["display"].(string)
		project, _ := o["project"].(string)
		ms, _ := o["timestamp"].(float64)
		sum := sha256.Sum256([]byte(display))
		p := Prompt{ID: strconv.Itoa(i + 1), Hash: hex.EncodeToString(sum[:5]), Time: time.UnixMilli(int64(ms)).UTC(),
			Lang: LangOf(display), Slash: strings.HasPrefix(strings.TrimSpace(display), "/")}
		if project != "" {
			p.Project = l.local(project)
			o["project"] = p.Project
		}
		o = l.redactAll(o).(map[string]any)
		p.Text, _ = o["display"].(string)
		l.prompts = append(l.prompts, p)
		b, err := json.Marshal(o)
		if err != nil {
			return 0, err
		}
		out.Write(b)
		out.WriteByte('\n')
		n++
	}
	return n, l.write("claude/history.jsonl", out.Bytes())
}

func (l *layer) transcript(rel string, data []byte) error {
	var out bytes.Buffer
	parts := strings.Split(rel, "/")
	var s *Session
	if len(parts) == 3 {
		if l.sessions == nil {
			l.sessions = map[string]*Session{}
		}
		s = &Session{ID: strings.TrimSuffix(parts[2], ".jsonl"), Silo: parts[1]}
		l.sessions[parts[1]+"/"+s.ID] = s
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var o map[string]any
		if json.Unmarshal(line, &o) != nil {
			// A torn line is kept torn: the reader must survive it.
			out.Write(redactBytes(line, &l.redacted))
			out.WriteByte('\n')
			continue
		}
		if cwd, ok := o["cwd"].(string); ok && cwd != "" {
			o["cwd"] = l.local(cwd)
			if s != nil && s.Cwd == "" && o["isSidechain"] != true {
				s.Cwd = o["cwd"].(string)
			}
		}
		if s != nil {
			if ts, ok := o["timestamp"].(string); ok {
				if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
					if s.Start.IsZero() || t.Before(s.Start) {
						s.Start = t
					}
					if t.After(s.End) {
						s.End = t
					}
				}
			}
			if o["type"] == "user" {
				if m, ok := o["message"].(map[string]any); ok {
					if _, ok := m["content"].(string); ok {
						s.Prompts++
					}
				}
			}
		}
		b, err := json.Marshal(l.redactAll(o))
		if err != nil {
			return err
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	path := "claude/" + rel
	if err := l.write(path, out.Bytes()); err != nil {
		return err
	}
	if s != nil && !s.End.IsZero() {
		// The file's time is the session's end, as it was on its machine.
		os.Chtimes(filepath.Join(l.base, filepath.FromSlash(path)), s.End, s.End)
	}
	return nil
}

// local is where a folder of the person's machine is on this one: under
// roots/, made, every part a plain name.
func (l *layer) local(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	var parts []string
	for _, part := range strings.Split(p, "/") {
		part = strings.Map(func(r rune) rune {
			if r == ':' || r < ' ' {
				return '_'
			}
			return r
		}, part)
		if part == "" || part == "." || part == ".." {
			continue
		}
		parts = append(parts, part)
	}
	out := filepath.Join(append([]string{l.roots}, parts...)...)
	os.MkdirAll(out, 0o755)
	return out
}

func (l *layer) redactAll(v any) any {
	switch x := v.(type) {
	case string:
		s, n := redact.String(x)
		l.redacted += n
		return s
	case []any:
		for i := range x {
			x[i] = l.redactAll(x[i])
		}
	case map[string]any:
		for k, e := range x {
			x[k] = l.redactAll(e)
		}
	}
	return v
}

func redactBytes(b []byte, n *int) []byte {
	s, k := redact.String(string(b))
	*n += k
	return []byte(s)
}

func (l *layer) write(rel string, data []byte) error {
	path := filepath.Join(l.base, filepath.FromSlash(rel))
	if !strings.HasPrefix(path, l.base+string(filepath.Separator)) {
		return fmt.Errorf("%s: outside the corpus folder", rel)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// writeIndexes writes prompts.tsv and sessions.tsv.
func (l *layer) writeIndexes(s Source) error {
	var b strings.Builder
	for _, p := range l.prompts {
		fmt.Fprintf(&b, "%s\t%s\t%d\t%s\t%t\t%s\n", p.ID, p.Hash, p.Time.UnixMilli(), p.Lang, p.Slash, p.Project)
	}
	if err := l.write("prompts.tsv", []byte(b.String())); err != nil {
		return err
	}
	b.Reset()
	var ss []*Session
	for _, x := range l.sessions {
		ss = append(ss, x)
	}
	sort.Slice(ss, func(i, j int) bool { return ss[i].End.Before(ss[j].End) })
	for _, x := range ss {
		fmt.Fprintf(&b, "%s\t%s\t%d\t%d\t%d\t%s\n", x.ID, x.Silo, x.Start.UnixMilli(), x.End.UnixMilli(), x.Prompts, x.Cwd)
	}
	if err := l.write("sessions.tsv", []byte(b.String())); err != nil {
		return err
	}
	return l.write("LAID", []byte(s.Repo+" "+s.Commit+"\n"))
}

// LangOf is the language a prompt is written in, for the report: "zh"
// when Han characters are a quarter or more of its letters, "ja" when
// kana are a fifth or more, else "en" (the corpus has no other). Paths and
// addresses are not counted: a Chinese prompt that names a file is still
// Chinese.
func LangOf(s string) string {
	s = pathLike.ReplaceAllString(s, " ")
	han, kana, letters := 0, 0, 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			kana++
			letters++
		case unicode.Is(unicode.Han, r):
			han++
			letters++
		case unicode.IsLetter(r):
			letters++
		}
	}
	switch {
	case letters == 0:
		return "en"
	case 5*kana >= letters && kana > 0:
		return "ja"
	case 4*han >= letters && han > 0:
		return "zh"
	}
	return "en"
}

// pathLike matches paths, addresses and file names.
var pathLike = regexp.MustCompile(`(?:[A-Za-z]+://|[~.]?/|[A-Za-z]:\\)[^\s()（）,，]*|[A-Za-z0-9_.\-]+\.[A-Za-z0-9]{1,5}\b|[A-Za-z0-9_\-]*[/\\][A-Za-z0-9_./\\\-]+`)

// errNotLaid says the corpus is not laid out.
var errNotLaid = errors.New("the development corpus is not laid out")
