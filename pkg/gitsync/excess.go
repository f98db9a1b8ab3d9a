package gitsync

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/syncstate"
)

// A remote cannot flood this machine's memory or its provenance ledger:
// every line a sync brings is recorded there as another machine's (see
// noteOrigins), and the ledger holds a bounded number of such records. So
// a line file the remote makes larger than a MEMORY.md may grow, or one
// that brings more new lines than a sync takes at once, or more than the
// ledger has room for, is refused whole before the merge: this machine's
// version stands (and goes back to the remote with the next push), and
// the sync says so. Nothing is dropped from the ledger to make room.

// Bounds of what one sync takes into a line file.
const (
	// MaxLineFileBytes is the most a line file from the remote may hold
	// (ccmem remember keeps a MEMORY.md within 2 MB).
	MaxLineFileBytes = 2 << 20
	// MaxNewLines is the most new lines one line file takes in one sync.
	MaxNewLines = 2000
)

// refuseExcess takes out of their the line files over the bounds above,
// reporting each, and returns their as sync will merge it.
func (s *Syncer) refuseExcess(ctx context.Context, rep *syncstate.Report, tip string, ours, their files) (files, error) {
	type gain struct {
		rel string
		n   int
	}
	var gains []gain
	refuse := func(rel, why string) {
		if o, ok := ours.m[rel]; ok {
			their.m[rel] = o
		} else {
			delete(their.m, rel)
		}
		their.dirty = true
		rep.Refused = append(rep.Refused, syncstate.Refused{Commit: short(tip), Path: rel, Why: why})
	}
	var want []string
	for rel, t := range their.m {
		if !isUnion(rel) || ownFiles[rel] {
			continue
		}
		o, here := ours.m[rel]
		if here && o.obj == t.obj {
			continue
		}
		if t.size > MaxLineFileBytes {
			refuse(rel, fmt.Sprintf("%d bytes, more than the %d MB a memory file may hold", t.size, MaxLineFileBytes>>20))
			continue
		}
		want = append(want, t.obj)
		if here {
			want = append(want, o.obj)
		}
	}
	blobs, err := s.blobs(ctx, want)
	if err != nil {
		return their, err
	}
	for rel, t := range their.m {
		data, ok := blobs[t.obj]
		if !isUnion(rel) || ownFiles[rel] || !ok {
			continue
		}
		if o, here := ours.m[rel]; here && o.obj == t.obj {
			continue
		}
		had := map[string]bool{}
		if o, here := ours.m[rel]; here {
			for _, l := range splitLines(blobs[o.obj]) {
				had[provenance.Canonical(l)] = true
			}
		}
		n := 0
		for _, l := range splitLines(data) {
			if c := provenance.Canonical(l); c != "" && !had[c] {
				had[c] = true
				n++
			}
		}
		if n > MaxNewLines {
			refuse(rel, fmt.Sprintf("%d new lines, more than the %d one sync takes into a memory file", n, MaxNewLines))
			continue
		}
		if n > 0 {
			gains = append(gains, gain{rel, n})
		}
	}
	// What the ledger has room for: the smallest first.
	room := provenance.Room(s.Env)
	slices.SortFunc(gains, func(a, b gain) int { return a.n - b.n })
	for _, g := range gains {
		if g.n > room {
			refuse(g.rel, fmt.Sprintf("%d new lines, and this machine's record of who wrote its memory has room for %d more", g.n, room))
			continue
		}
		room -= g.n
	}
	slices.SortFunc(rep.Refused, func(a, b syncstate.Refused) int { return strings.Compare(a.Path, b.Path) })
	return their, nil
}
