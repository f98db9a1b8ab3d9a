package syncstate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
)

// Unsettled is one fact both machines changed differently since they last
// agreed: two lines of a line file where there was one (the union merge
// keeps both), or two versions of a file (the newer in its place, the
// older in the archive). Both stay until the person chooses one; the
// start-up block says the lines disagree meanwhile.
type Unsettled struct {
	// ID names it for a decision: "versions-" and a hash of what differs;
	// ID-1 and ID-2 name its versions.
	ID string `json:"id"`
	// Path is the file, relative to the store, with slashes.
	Path string `json:"path"`
	// Line tells two lines of one file from two versions of a file.
	Line     bool       `json:"line,omitempty"`
	Versions [2]Version `json:"versions"`
	When     time.Time  `json:"when"`
}

// Version is one side of an Unsettled fact.
type Version struct {
	// From says which machine wrote it.
	From string `json:"from"`
	// Text is the line, or the start of the file (for the person to read).
	Text string `json:"text"`
	// At is, for a file, where this version is now, relative to the store:
	// Path itself, or the archive.
	At string `json:"at,omitempty"`
}

const unsettledName = "versions.json"

// UnsettledID names the pair of versions a and b of path.
func UnsettledID(path, a, b string) string {
	sum := sha256.Sum256([]byte(path + "\x00" + a + "\x00" + b))
	return "versions-" + hex.EncodeToString(sum[:4])
}

// ReadUnsettled is what waits for the person to choose (this machine's own
// record, in the sync folder).
func ReadUnsettled(e store.Env) []Unsettled {
	var out []Unsettled
	if data, err := store.ReadSmallFile(filepath.Join(Dir(e), unsettledName), 16<<20); err == nil {
		_ = json.Unmarshal(data, &out)
	}
	return out
}

// WriteUnsettled records what waits (nothing: the file goes).
func WriteUnsettled(e store.Env, us []Unsettled) error {
	p := filepath.Join(Dir(e), unsettledName)
	if len(us) == 0 {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(Dir(e), 0o700); err != nil {
		return err
	}
	return store.WriteJSON(p, us)
}

// UnsettledLines is the lines of the file at path (absolute) that are one
// of two versions of a fact, by their trimmed text: the start-up block
// marks them.
func UnsettledLines(e store.Env, path string) map[string]bool {
	rel, err := filepath.Rel(e.Store, path)
	if err != nil {
		return nil
	}
	rel = filepath.ToSlash(rel)
	var set map[string]bool
	for _, u := range ReadUnsettled(e) {
		if !u.Line || u.Path != rel {
			continue
		}
		if set == nil {
			set = map[string]bool{}
		}
		for _, v := range u.Versions {
			set[strings.TrimSpace(v.Text)] = true
		}
	}
	return set
}
