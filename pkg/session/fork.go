package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
)

// Forks. A session forked with --fork-session (or /branch) starts its
// transcript with a copy of its parent's lines: Claude Code 2.1.x keeps
// each copied line's uuid and timestamp but writes the fork's own
// sessionId into it, and names the parent nowhere. So a fork is told by
// its first message: the same uuid as another transcript's first message
// in the same folder. Of such a family, the transcript whose first
// timestamped line is the earliest is the original; each other one is a
// fork of the member that started last before it (a fork of a fork names
// the fork it came from). Its own part begins with its first message whose
// uuid its parent does not hold.

// forkHeadLines and forkHeadBytes bound how far into a transcript its
// first message is looked for.
const (
	forkHeadLines = 400
	forkHeadBytes = 256 << 10
)

// maxForkFamily bounds the transcripts of a folder the fork scan reads the
// start of: the newest.
const maxForkFamily = 2000

// maxForkLine is the longest line the fork scan reads whole; a longer one
// (a pasted log, a big tool result) is passed over.
const maxForkLine = 4 << 20

// forkLine is what the fork scan reads of a transcript line.
type forkLine struct {
	Type        string `json:"type"`
	UUID        string `json:"uuid"`
	Timestamp   string `json:"timestamp"`
	IsSidechain bool   `json:"isSidechain"`
}

func (l forkLine) message() bool {
	return (l.Type == "user" || l.Type == "assistant") && !l.IsSidechain && l.UUID != ""
}

// forkLines calls fn with each line of the transcript at path, up to max
// lines and maxBytes bytes (0: all); fn returns false to stop.
func forkLines(path string, max int, maxBytes int64, fn func(forkLine) bool) error {
	f, _, err := store.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if maxBytes > 0 {
		r = io.LimitReader(f, maxBytes)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 0; max == 0 || n < max; n++ {
		line, err := readForkLine(br)
		if len(line) > 0 {
			var l forkLine
			if json.Unmarshal(line, &l) == nil && !fn(l) {
				return nil
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readForkLine reads one line; a line longer than maxForkLine is read
// past and returned empty.
func readForkLine(br *bufio.Reader) ([]byte, error) {
	var long []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(long)+len(chunk) > maxForkLine {
				tooLong, long = true, nil
			} else if errors.Is(err, bufio.ErrBufferFull) || long != nil {
				long = append(long, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		switch {
		case tooLong:
			return nil, err
		case long != nil:
			return long, err
		}
		return chunk, err
	}
}

// forkHead is the start of a transcript: the uuid of its first message
// and its first timestamp (of any line).
type forkHead struct {
	sid, path   string
	uuid, first string
}

func readForkHead(path, sid string) forkHead {
	h := forkHead{sid: sid, path: path}
	_ = forkLines(path, forkHeadLines, forkHeadBytes, func(l forkLine) bool {
		if h.first == "" && l.Timestamp != "" {
			h.first = l.Timestamp
		}
		if l.message() {
			h.uuid = l.UUID
			return false
		}
		return true
	})
	return h
}

// forkFamilies are the transcripts of silo folders by the uuid of their
// first message, read once per folder (the newest maxForkFamily of a
// folder, until the deadline when one is set).
type forkFamilies struct {
	until time.Time
	dirs  map[string]map[string][]forkHead // folder → uuid → members
}

// parentOf tells whether the transcript at path (of session sid) is a
// fork, and of which session (its id and transcript). known says
// the session is a fork (its start said so): then a family member that
// started at the same moment is its parent, not its fork.
func (ff *forkFamilies) parentOf(path, sid string, known bool) (parent, parentPath string) {
	dir := filepath.Dir(path)
	fam, ok := ff.dirs[dir]
	if !ok {
		fam = map[string][]forkHead{}
		files, _ := store.ListFiles(filepath.Dir(dir), dir)
		if len(files) > maxForkFamily {
			sort.Slice(files, func(i, j int) bool { return files[i].MTime > files[j].MTime })
			files = files[:maxForkFamily]
		}
		for _, f := range files {
			if !ff.until.IsZero() && time.Now().After(ff.until) {
				break // out of time: the parent goes unnamed
			}
			s, ok := strings.CutSuffix(f.Name, ".jsonl")
			if !ok || !store.ValidID(s, 128, false) {
				continue
			}
			if h := readForkHead(filepath.Join(dir, f.Name), s); h.uuid != "" && h.first != "" {
				fam[h.uuid] = append(fam[h.uuid], h)
			}
		}
		for _, ms := range fam {
			sort.Slice(ms, func(i, j int) bool {
				if ms[i].first != ms[j].first {
					return ms[i].first < ms[j].first
				}
				return ms[i].sid < ms[j].sid
			})
		}
		if ff.dirs == nil {
			ff.dirs = map[string]map[string][]forkHead{}
		}
		ff.dirs[dir] = fam
	}
	self := readForkHead(path, sid)
	ms := fam[self.uuid]
	var from *forkHead
	for i := range ms {
		switch {
		case ms[i].sid == sid:
		case ms[i].first < self.first || known && (ms[i].first == self.first || from == nil):
			from = &ms[i]
		}
	}
	if from == nil {
		return "", ""
	}
	return from.sid, from.path
}

// ownFrom is when a fork's own part begins: the timestamp of its first
// message that its parent's transcript does not hold.
func ownFrom(parentPath, path string) string {
	held := map[string]bool{}
	_ = forkLines(parentPath, 0, 0, func(l forkLine) bool {
		if l.message() {
			held[l.UUID] = true
		}
		return true
	})
	at := "9999-12-31T23:59:59Z" // all of it is the parent's
	_ = forkLines(path, 0, 0, func(l forkLine) bool {
		if l.message() && !held[l.UUID] && l.Timestamp != "" {
			at = l.Timestamp
			return false
		}
		return true
	})
	return at
}
