package search

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/pkg/store"
)

// A bucket's index is written with its listing beside it: the name, size
// and modification time of each file it was built from. A prompt that
// finds a bucket's index out of date and cannot rebuild it in its
// allowance (a refresh runs, or the time is spent) still answers from that
// index, but only with the files the listing shows unchanged: one session
// rewritten at a start no longer takes the three others of its bucket out
// of recall, and what changed or went away (forgotten, archived, edited)
// is never answered from its old text.

// listingSuffix names a bucket index's listing (beside "<key>.idx").
const listingSuffix = ".files"

// maxListing bounds the listing read: thousands of names fit many times.
const maxListing = 16 << 20

// listing is the file beside a bucket's index: the index's stamp, which
// ties the two (a listing left by an earlier build trusts nothing), and
// each file's size and modification time.
type listing struct {
	Stamp string              `json:"stamp"`
	Files map[string][2]int64 `json:"files"`
}

// listingPath is the listing beside the index file at path.
func listingPath(path string) string {
	return strings.TrimSuffix(path, ".idx") + listingSuffix
}

// writeListing writes the listing of the index just written at path.
func writeListing(path, stamp string, ents []entry) {
	l := listing{Stamp: stamp, Files: make(map[string][2]int64, len(ents))}
	for _, e := range ents {
		l.Files[e.name] = [2]int64{e.size, e.mtime}
	}
	data, err := json.Marshal(l)
	if err != nil {
		return
	}
	_ = store.WriteCacheFile(listingPath(path), data)
}

// unchanged is, for the out-of-date index r of the bucket whose files in
// dir are now ents, the paths of its documents still true: the files its
// listing holds with the size and time they have now. nil when the
// listing is missing, unreadable or another build's: nothing is trusted.
func unchanged(r *reader, dir string, ents []entry) map[string]bool {
	f, fi, err := store.OpenRegular(listingPath(r.path))
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi.Size() > maxListing {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxListing))
	if err != nil {
		return nil
	}
	var l listing
	if json.Unmarshal(data, &l) != nil || l.Stamp == "" || l.Stamp != r.stamp {
		return nil
	}
	only := map[string]bool{}
	for _, e := range ents {
		if was, ok := l.Files[e.name]; ok && was == [2]int64{e.size, e.mtime} {
			only[filepath.Join(dir, e.name)] = true
		}
	}
	if len(only) == 0 {
		return nil
	}
	return only
}

// withOutOfDate is out with the out-of-date index old of unit u (nil: none)
// when its listing shows files unchanged in folder f (nil for a unit of
// one file, which is never answered out of date); otherwise old is closed.
func withOutOfDate(out []*reader, old *reader, u unit, f *folder) []*reader {
	if old == nil {
		return out
	}
	if f != nil {
		if only := unchanged(old, u.dir, f.bucketed[u.bucket]); only != nil {
			old.only = only
			return append(out, old)
		}
	}
	old.Close()
	return out
}

// answers tells whether the doc of the file at path may answer: every one
// of a current index, only unchanged files of an out-of-date one.
func (r *reader) answers(path string) bool {
	return r.only == nil || r.only[path]
}
