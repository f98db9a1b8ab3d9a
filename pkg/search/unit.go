package search

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
)

// A unit is a set of source files indexed together into one index file:
// a single markdown file, or one bucket of a folder's files (a folder of
// thousands of episodes is split so that a new one rebuilds a bucket, not
// the folder). A unit's index records the state of its sources (the stamp)
// and is rebuilt whenever they differ: the files are the truth, the index
// only a copy that saves reading them.
type unit struct {
	key  string // the index file's name, without .idx
	kind string
	// Exactly one of file and dir is set.
	file string
	dir  string
	// match picks the folder's files (by name).
	match func(name string) bool
	// bucket of buckets: the folder's files whose name hashes to it.
	bucket, buckets int
	// root, when set, is the folder the unit's files are read under
	// without following a symlink (a repository's root, a project's folder
	// in the store). Else: the user's own files (the global MEMORY.md, the
	// learned entries), which may be symlinks into their dotfiles.
	root string
	// typ is the learned entries' type, for their titles.
	typ string
}

// group is the key of a folder's buckets: its stamp file's name.
func (u unit) group() string {
	if i := strings.LastIndexByte(u.key, '.'); i > 0 {
		return u.key[:i]
	}
	return u.key
}

// read reads one of the unit's files.
func (u unit) read(path string, max int64) ([]byte, error) {
	if TestOnlyReadDelay > 0 {
		time.Sleep(TestOnlyReadDelay)
	}
	if u.root != "" {
		return store.ReadFileIn(u.root, path, max)
	}
	return store.ReadSmallFile(path, max)
}

// TestOnlyReadDelay, when a test sets it, makes reading each file for the
// index take that much longer, as a slow disk or a huge store would.
var TestOnlyReadDelay time.Duration

func bucketOf(name string, buckets int) int {
	if buckets <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % uint32(buckets))
}

// entry is one source file of a folder unit.
type entry struct {
	name  string
	size  int64
	mtime int64
}

// list lists the unit's folder's matching regular files (symlinks are not
// listed), with their size and modification time.
func (u unit) list() ([]entry, error) {
	files, err := store.ListFiles(u.root, u.dir)
	if err != nil {
		return nil, err
	}
	out := make([]entry, 0, len(files))
	for _, f := range files {
		if u.match(f.Name) {
			out = append(out, entry{f.Name, f.Size, f.MTime})
		}
	}
	return out, nil
}

// byBucket groups a folder's files by bucket.
func byBucket(ents []entry, buckets int) map[int][]entry {
	out := map[int][]entry{}
	for _, e := range ents {
		b := bucketOf(e.name, buckets)
		out[b] = append(out[b], e)
	}
	return out
}

// bucketStamp is the state of a bucket's files: their names, sizes and
// modification times.
func bucketStamp(ents []entry) string {
	var b []byte
	for _, e := range ents {
		b = append(b, e.name...)
		b = append(b, 0)
		b = binary.LittleEndian.AppendUint64(b, uint64(e.size))
		b = binary.LittleEndian.AppendUint64(b, uint64(e.mtime))
	}
	sum := sha256.Sum256(b)
	return "dir:" + strconv.Itoa(len(ents)) + ":" + hex.EncodeToString(sum[:12])
}

// fileStamp is the state of the unit's single source file.
func (u unit) fileStamp() string {
	stat := os.Stat
	if u.root != "" {
		if store.CheckIn(u.root, u.file) != nil {
			return "absent"
		}
		stat = os.Lstat
	}
	fi, err := stat(u.file)
	if err != nil || !fi.Mode().IsRegular() {
		return "absent"
	}
	return fmt.Sprintf("file:%d:%d", fi.Size(), fi.ModTime().UnixNano())
}

// maxInlineFile is the largest memory file a bounded build (a hook's)
// indexes itself: indexing takes about a second a megabyte here, so a
// bigger one is left to the background refresh, and the hook searches
// without it meanwhile.
const maxInlineFile = 256 << 10

// stampSize is the size a file unit's stamp records (0 when none).
func stampSize(stamp string) int64 {
	var size, mtime int64
	if _, err := fmt.Sscanf(stamp, "file:%d:%d", &size, &mtime); err != nil {
		return 0
	}
	return size
}

// docs reads a unit's sources (for a folder: the files of its bucket)
// into documents; ok is false when ctx ended before it read them all.
func (u unit) docs(ctx context.Context, ents []entry) (docs []Doc, ok bool) {
	if u.file != "" {
		data, err := u.read(u.file, maxMarkdown)
		if err != nil {
			return nil, true
		}
		return markdownDocs(u.kind, u.file, data), true
	}
	var out []Doc
	for _, e := range ents {
		if ctx.Err() != nil {
			return nil, false
		}
		path := filepath.Join(u.dir, e.name)
		if u.kind == KindRecord {
			if d, ok := recordDoc(u.root, path); ok {
				out = append(out, d)
			}
			continue
		}
		data, err := u.read(path, maxEntry)
		if err != nil {
			continue
		}
		switch u.kind {
		case KindTopic:
			out = append(out, topicDoc(path, data))
		case KindLearned:
			if d, ok := learnedDoc(u.typ, path, data); ok {
				out = append(out, d)
			}
		case KindEpisode:
			base := len(out)
			for _, d := range episodeDocs(path, data) {
				if d.Parent > 0 {
					d.Parent += base
				}
				out = append(out, d)
			}
		}
	}
	return out, true
}

// The index file of a unit, all integers little-endian:
//
//	header (80 bytes): magic, docs, terms, stamp length, dictionary
//	  length, offsets of postings, doc offsets, docs, ref keys, parents
//	  and the block checksums, the header's checksum, and the number of
//	  docs that are no passage (a session's own, in an episode folder's
//	  unit)
//	stamp
//	dictionary: per term (sorted): u16 length, bytes, u32 df, u32 offset
//	  of its postings, u32 the docs that hold it and are no passage (the
//	  sessions that hold it: recall's "common in this memory")
//	postings: per posting: u32 doc, u16 impact — the term's BM25F weight
//	  in the doc before idf (saturated term frequency over the fields,
//	  normalised by the fields' lengths against the unit's averages),
//	  scaled to 0..32767: a query multiplies and adds, nothing more; bit
//	  15 set when the doc holds the term outside what the model said
//	  (see Doc.Said)
//	doc offsets: per doc, u32 offset of its record in docs
//	docs: per doc: u8 kind (bit 7: hidden unless asked for), i64 unix
//	  seconds, u32 line, u32 turn, then path, title, snippet and scope,
//	  each u16 length + bytes
//	ref keys: per doc, the 8-byte RefKey of its ref (so "already shown"
//	  is told without reading the doc)
//	parents: per doc, u32 1 + the index of the doc a passage belongs to
//	  (0: none), for fusing a passage's score with its session's; empty
//	  in a unit without passages
//	block checksums: a CRC-32 of each 4 KB block of everything from the
//	  postings to the ref keys
//
// The header's checksum (CRC-32 of the header, with the checksum's own
// bytes zero, the stamp and the dictionary) is checked at every open; a
// block's when it is read (all of a small file's at open). A damaged file
// is never trusted: the unit is rebuilt from its sources.
const (
	magic      = "CCMIDX10"
	headerLen  = 80
	postingLen = 6
	blockLen   = 4096
	// impactMax is the largest impact, (k1+1) as a term's frequency grows.
	impactMax = k1 + 1
	// hiddenBit marks a doc left out unless asked for (a retired or
	// archived record: forgotten, never recalled).
	hiddenBit = 0x80
	// impactScale is the largest stored impact; ownBit marks a posting of
	// a term the doc holds outside what the model said.
	impactScale = 0x7fff
	ownBit      = 0x8000
)

// ieee is the checksum's polynomial: IEEE, whose table costs nothing to
// make at start (Castagnoli's, with the CPU's CRC32 instruction, costs
// 0.2 ms of every hook's start).
var ieee = crc32.IEEETable

// built is a unit's index in memory.
type built struct {
	stamp string
	docs  []Doc
	terms []string
	post  map[string][]posting
}

type posting struct {
	doc    uint32
	impact uint16
}

// BM25F parameters: term saturation; field weights and length
// normalisation.
const k1 = 1.2

var (
	fieldWeight = [nFields]float64{3, 2, 1}
	fieldB      = [nFields]float64{0.5, 0.75, 0.75}
)

// index indexes docs, each term's weight in each doc computed now: the
// field lengths are normalised against this unit's averages (a unit is
// one file or a bucket of like files, as a search engine's segment).
func index(stamp string, docs []Doc) *built {
	b := &built{stamp: stamp, docs: docs, post: map[string][]posting{}}
	// Each doc's terms, as ids of one dictionary with their frequency per
	// field: a unit of thousands of passages is held compactly until the
	// field lengths' averages are known.
	type termFreq struct {
		id  uint32
		tf  [nFields]uint16
		own bool // held outside what the model said (see Doc.Said)
	}
	ids := map[string]uint32{}
	var names []string
	all := make([][]termFreq, len(docs))
	lens := make([][nFields]int, len(docs))
	var totals [nFields]float64
	at := map[uint32]int{}
	for i := range docs {
		d := &docs[i]
		var tfs []termFreq
		clear(at)
		// What the person asked counts as theirs where the model said it
		// too: only a doc with a said field needs it.
		var asked map[string]bool
		if d.Said != [nFields]bool{} {
			asked = map[string]bool{}
			for _, t := range Terms(d.Asked) {
				asked[t] = true
			}
		}
		for f := range nFields {
			terms := Terms(d.Fields[f])
			said := len(terms)
			if f == fieldBody {
				terms = append(terms, d.Dates...) // the days: facts, whoever said them
			}
			lens[i][f] = len(terms)
			totals[f] += float64(len(terms))
			for k, t := range terms {
				id, ok := ids[t]
				if !ok {
					id = uint32(len(names))
					ids[t] = id
					names = append(names, t)
				}
				j, ok := at[id]
				if !ok {
					j = len(tfs)
					at[id] = j
					tfs = append(tfs, termFreq{id: id})
				}
				if tfs[j].tf[f] < math.MaxUint16 {
					tfs[j].tf[f]++
				}
				if !d.Said[f] || k >= said || asked[t] {
					tfs[j].own = true
				}
			}
			d.Fields[f] = "" // indexed: only the stored parts are written
		}
		d.Asked = ""
		all[i] = tfs
	}
	var avg [nFields]float64
	for f := range nFields {
		avg[f] = max(totals[f]/float64(max(len(docs), 1)), 1)
	}
	for i, tfs := range all {
		for _, x := range tfs {
			tf := 0.0
			for f := range nFields {
				if n := x.tf[f]; n > 0 {
					tf += fieldWeight[f] * float64(n) / (1 - fieldB[f] + fieldB[f]*float64(lens[i][f])/avg[f])
				}
			}
			impact := (k1 + 1) * tf / (k1 + tf)
			q := uint16(max(min(math.Round(impact/impactMax*impactScale), impactScale), 1))
			if x.own {
				q |= ownBit
			}
			t := names[x.id]
			b.post[t] = append(b.post[t], posting{uint32(i), q})
		}
		all[i] = nil
	}
	b.terms = names
	sort.Strings(b.terms)
	return b
}

var kindIndex = func() map[string]uint8 {
	m := map[string]uint8{}
	for i, k := range Kinds {
		m[k] = uint8(i)
	}
	return m
}()

func (b *built) encode() []byte {
	// The parts are appended to byte slices (binary.Write through an
	// interface was a tenth of building an index).
	var dict, post, offs, docs, keys, parents []byte
	withParents := false
	for _, d := range b.docs {
		withParents = withParents || d.Parent > 0
	}
	le := binary.LittleEndian
	tops := 0
	for _, d := range b.docs {
		if d.Parent == 0 {
			tops++
		}
	}
	for _, t := range b.terms {
		ps := b.post[t]
		dict = le.AppendUint16(dict, uint16(len(t)))
		dict = append(dict, t...)
		dict = le.AppendUint32(dict, uint32(len(ps)))
		dict = le.AppendUint32(dict, uint32(len(post)))
		top := 0
		for _, p := range ps {
			post = le.AppendUint32(post, p.doc)
			post = le.AppendUint16(post, p.impact)
			if b.docs[p.doc].Parent == 0 {
				top++
			}
		}
		dict = le.AppendUint32(dict, uint32(top))
	}
	putString := func(s string) {
		if len(s) > math.MaxUint16 {
			s = s[:math.MaxUint16]
		}
		docs = le.AppendUint16(docs, uint16(len(s)))
		docs = append(docs, s...)
	}
	for _, d := range b.docs {
		k := RefKey(d.Ref())
		keys = append(keys, k[:]...)
		offs = le.AppendUint32(offs, uint32(len(docs)))
		kind := kindIndex[d.Kind]
		if d.Hidden {
			kind |= hiddenBit
		}
		docs = append(docs, kind)
		var unix int64
		if !d.Time.IsZero() {
			unix = d.Time.Unix()
		}
		docs = le.AppendUint64(docs, uint64(unix))
		docs = le.AppendUint32(docs, uint32(d.Line))
		docs = le.AppendUint32(docs, uint32(d.Turn))
		if withParents {
			parents = le.AppendUint32(parents, uint32(d.Parent))
		}
		putString(d.Path)
		putString(d.Title)
		putString(d.Snippet)
		putString(d.Scope)
	}
	bodyStart := uint64(headerLen + len(b.stamp) + len(dict))
	postStart := bodyStart
	offsStart := postStart + uint64(len(post))
	docsStart := offsStart + uint64(len(offs))
	keysStart := docsStart + uint64(len(docs))
	parentsStart := keysStart + uint64(len(keys))
	crcStart := parentsStart + uint64(len(parents))
	out := bytes.NewBuffer(make([]byte, 0, crcStart+4*(crcStart-bodyStart)/blockLen+8))
	out.WriteString(magic)
	binary.Write(out, le, uint32(len(b.docs)))
	binary.Write(out, le, uint32(len(b.terms)))
	binary.Write(out, le, uint32(len(b.stamp)))
	binary.Write(out, le, uint32(len(dict)))
	binary.Write(out, le, []uint64{postStart, offsStart, docsStart, keysStart, parentsStart, crcStart})
	out.Write(make([]byte, headerLen-4-out.Len())) // the header's checksum (below)
	binary.Write(out, le, uint32(tops))
	out.WriteString(b.stamp)
	out.Write(dict)
	le.PutUint32(out.Bytes()[headCRCAt:], crc32.Checksum(out.Bytes(), ieee))
	out.Write(post)
	out.Write(offs)
	out.Write(docs)
	out.Write(keys)
	out.Write(parents)
	var crcs []byte
	for body := out.Bytes()[bodyStart:]; len(body) > 0; body = body[min(blockLen, len(body)):] {
		crcs = le.AppendUint32(crcs, crc32.Checksum(body[:min(blockLen, len(body))], ieee))
	}
	out.Write(crcs)
	return out.Bytes()
}

// headCRCAt is where the header's checksum is.
const headCRCAt = 72

// errBadIndex is an index file that cannot be used: it is rebuilt.
var errBadIndex = errors.New("damaged search index")

// reader is an open unit index: its header and dictionary read, the rest
// read on demand.
type reader struct {
	// data is the whole index file when it is small; a large one (tens of
	// MB in a large store, of which a query touches little) is read in
	// the parts needed, from f.
	data   []byte
	f      *os.File
	path   string
	size   int64
	stamp  string
	nDocs  int
	dict   map[string]dictEntry
	starts [6]uint64 // postings, doc offsets, docs, ref keys, parents, block checksums
	// parents are every doc's parent (see the format), read at the first
	// passage scored.
	parents []byte
	// crcs are the block checksums of a large file; verified marks the
	// blocks whose checksum was checked.
	crcs     []byte
	verified []uint64
	// damaged is set when a read found a block that fails its checksum:
	// the file is rebuilt.
	damaged bool
	// keys are every doc's ref key, read after keyReads single reads.
	keys     []byte
	keyReads int
	// tops counts the docs that are no passage.
	tops int
	// only, for an out-of-date index answering because its unit could
	// not be built in time, are the paths of the files unchanged since
	// (see listing.go); nil for a current index.
	only map[string]bool
}

type dictEntry struct {
	df  uint32
	off uint32
	top uint32 // of df, the docs that are no passage
}

// wholeRead is how much of a small index file is read at once.
var wholeRead int64 = 256 << 10

func openReader(path string) (*reader, error) {
	f, fi, err := store.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	r := &reader{size: fi.Size(), path: path}
	if r.size > wholeRead {
		r.f = f // index files are replaced by rename, never changed in place
	} else {
		defer f.Close()
		r.data = make([]byte, r.size)
		if _, err := io.ReadFull(f, r.data); err != nil {
			return nil, err
		}
	}
	if err := r.readHead(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *reader) Close() {
	if r != nil && r.f != nil {
		r.f.Close()
		r.f = nil
	}
}

// span bounds-checks n bytes at off, without overflow for any off.
func (r *reader) span(off uint64, n int) bool {
	return n >= 0 && off <= uint64(r.size) && uint64(n) <= uint64(r.size)-off
}

// at is n bytes of the index at off (read only: for a small index, not a
// copy). A large file's blocks are checked against their checksums as they
// are first read.
func (r *reader) at(off uint64, n int) ([]byte, error) {
	if !r.span(off, n) {
		return nil, errBadIndex
	}
	if r.f == nil {
		return r.data[off : off+uint64(n) : off+uint64(n)], nil
	}
	body, end := r.starts[0], r.starts[5]
	if r.crcs == nil || off+uint64(n) <= body || off >= end {
		buf := make([]byte, n)
		if _, err := r.f.ReadAt(buf, int64(off)); err != nil {
			return nil, errBadIndex
		}
		return buf, nil
	}
	// Read whole blocks, so each can be checked.
	first := (max(off, body) - body) / blockLen
	last := (min(off+uint64(n), end) - body + blockLen - 1) / blockLen
	from, to := body+first*blockLen, min(body+last*blockLen, end)
	lo, hi := min(off, from), max(off+uint64(n), to)
	buf := make([]byte, hi-lo)
	if _, err := r.f.ReadAt(buf, int64(lo)); err != nil {
		return nil, errBadIndex
	}
	for b := first; b < last; b++ {
		if r.verified[b/64]&(1<<(b%64)) != 0 {
			continue
		}
		bs, be := body+b*blockLen-lo, min(body+(b+1)*blockLen, end)-lo
		if crc32.Checksum(buf[bs:be], ieee) != binary.LittleEndian.Uint32(r.crcs[4*b:]) {
			r.damaged = true
			return nil, errBadIndex
		}
		r.verified[b/64] |= 1 << (b % 64)
	}
	return buf[off-lo : off-lo+uint64(n) : off-lo+uint64(n)], nil
}

func (r *reader) readHead() error {
	h, err := r.at(0, headerLen)
	if err != nil || string(h[:8]) != magic {
		return errBadIndex
	}
	le := binary.LittleEndian
	r.nDocs = int(le.Uint32(h[8:]))
	nTerms := int(le.Uint32(h[12:]))
	stampLen := uint64(le.Uint32(h[16:]))
	dictLen := uint64(le.Uint32(h[20:]))
	for i := range r.starts {
		r.starts[i] = le.Uint64(h[24+8*i:])
	}
	// The sections lie in order, inside the file, where their sizes say.
	body := headerLen + stampLen + dictLen
	nBlocks := (r.starts[5] - min(body, r.starts[5]) + blockLen - 1) / blockLen
	if r.starts[0] != body || r.starts[5] > uint64(r.size) || uint64(r.size)-r.starts[5] != 4*nBlocks {
		return errBadIndex
	}
	for i := 1; i < len(r.starts); i++ {
		if r.starts[i-1] > r.starts[i] {
			return errBadIndex
		}
	}
	if r.starts[2]-r.starts[1] != 4*uint64(r.nDocs) || r.starts[4]-r.starts[3] != refKeyLen*uint64(r.nDocs) || r.starts[5] != r.starts[4] && r.starts[5]-r.starts[4] != 4*uint64(r.nDocs) {
		return errBadIndex
	}
	rest, err := r.at(headerLen, int(stampLen+dictLen))
	if err != nil {
		return err
	}
	sum := crc32.Update(crc32.Update(crc32.Checksum(h[:headCRCAt], ieee), ieee, []byte{0, 0, 0, 0}), ieee, h[headCRCAt+4:])
	if crc32.Update(sum, ieee, rest) != le.Uint32(h[headCRCAt:]) {
		return errBadIndex
	}
	// The blocks: all of them now for a file read whole; a large file's
	// as they are read.
	crcs, err := r.at(r.starts[5], int(4*nBlocks))
	if err != nil {
		return err
	}
	if r.f == nil {
		for b := uint64(0); b < nBlocks; b++ {
			from, to := body+b*blockLen, min(body+(b+1)*blockLen, r.starts[5])
			if crc32.Checksum(r.data[from:to], ieee) != le.Uint32(crcs[4*b:]) {
				return errBadIndex
			}
		}
	} else {
		r.crcs, r.verified = crcs, make([]uint64, (nBlocks+63)/64)
	}
	r.stamp = string(rest[:stampLen])
	d := rest[stampLen:]
	r.dict = make(map[string]dictEntry, min(nTerms, len(d)/10))
	postings := r.starts[1] - r.starts[0]
	for range nTerms {
		if len(d) < 2 {
			return errBadIndex
		}
		n := int(le.Uint16(d))
		if len(d) < 2+n+12 {
			return errBadIndex
		}
		e := dictEntry{le.Uint32(d[2+n:]), le.Uint32(d[6+n:]), le.Uint32(d[10+n:])}
		if uint64(e.off)+uint64(e.df)*postingLen > postings || e.top > e.df {
			return errBadIndex
		}
		r.dict[string(d[2:2+n])] = e
		d = d[14+n:]
	}
	r.tops = int(le.Uint32(h[headCRCAt+4:]))
	if r.tops > r.nDocs {
		return errBadIndex
	}
	return nil
}

// rawPostings reads the postings of term as stored.
func (r *reader) rawPostings(term string) ([]byte, error) {
	e, ok := r.dict[term]
	if !ok {
		return nil, nil
	}
	return r.at(r.starts[0]+uint64(e.off), int(e.df)*postingLen)
}

// hasPassages tells whether the unit holds passages (an episode folder's).
func (r *reader) hasPassages() bool { return r.starts[5] > r.starts[4] }

// parent is 1 + the index of the doc that doc i is a passage of (0:
// none). The parents of a unit are read at once, the first time.
func (r *reader) parent(i uint32) uint32 {
	if r.parents == nil {
		b, err := r.at(r.starts[4], 4*r.nDocs)
		if err != nil {
			r.parents = []byte{}
			return 0
		}
		r.parents = b
	}
	if int(i) >= r.nDocs || len(r.parents) < 4*r.nDocs {
		return 0
	}
	p := binary.LittleEndian.Uint32(r.parents[4*i:])
	if int(p) > r.nDocs {
		return 0
	}
	return p
}

// key reads the ref key of doc i. After a few, it reads every doc's key
// at once: a session shown many memories skips many candidates.
func (r *reader) key(i uint32) ([refKeyLen]byte, error) {
	if r.keys == nil && r.keyReads >= 16 {
		r.keys, _ = r.at(r.starts[3], refKeyLen*r.nDocs)
	}
	if r.keys != nil {
		if int(i) >= r.nDocs {
			return [refKeyLen]byte{}, errBadIndex
		}
		return [refKeyLen]byte(r.keys[refKeyLen*int(i):]), nil
	}
	r.keyReads++
	b, err := r.at(r.starts[3]+refKeyLen*uint64(i), refKeyLen)
	if err != nil {
		return [refKeyLen]byte{}, err
	}
	return [refKeyLen]byte(b), nil
}

// doc reads the stored part of a document.
func (r *reader) doc(i uint32) (Doc, error) {
	ob, err := r.at(r.starts[1]+4*uint64(i), 4)
	if err != nil {
		return Doc{}, err
	}
	off := r.starts[2] + uint64(binary.LittleEndian.Uint32(ob))
	n := min(int64(4096), r.size-int64(off))
	buf, err := r.at(off, int(n))
	if err != nil || len(buf) < docFixed {
		return Doc{}, errBadIndex
	}
	d := docHead(buf)
	buf = buf[docFixed:]
	var strs [4]string
	for i := range strs {
		if len(buf) < 2 {
			return Doc{}, errBadIndex
		}
		n := int(binary.LittleEndian.Uint16(buf))
		if len(buf) < 2+n {
			// A very long path: read again, exactly.
			return r.docSlow(off)
		}
		strs[i] = string(buf[2 : 2+n])
		buf = buf[2+n:]
	}
	d.Path, d.Title, d.Snippet, d.Scope = strs[0], strs[1], strs[2], strs[3]
	return d, nil
}

// docFixed is the size of a doc record's fixed part.
const docFixed = 17

// docHead reads a doc record's fixed part: kind, hidden, time, line, turn.
func docHead(buf []byte) Doc {
	d := Doc{Hidden: buf[0]&hiddenBit != 0, Line: int(binary.LittleEndian.Uint32(buf[9:])), Turn: int(binary.LittleEndian.Uint32(buf[13:]))}
	if k := int(buf[0] &^ hiddenBit); k < len(Kinds) {
		d.Kind = Kinds[k]
	}
	// A time outside years 1–9999 cannot be written as JSON: damage.
	if unix := int64(binary.LittleEndian.Uint64(buf[1:])); unix != 0 && unix > minUnix && unix < maxUnix {
		d.Time = time.Unix(unix, 0).UTC()
	}
	return d
}

// The unix seconds of years 1 and 10000.
const (
	minUnix = -62135596800
	maxUnix = 253402300800
)

// docSlow reads a doc record whose strings do not fit the usual read.
func (r *reader) docSlow(off uint64) (Doc, error) {
	buf, err := r.at(off, int(min(int64(4*math.MaxUint16+docFixed), r.size-int64(off))))
	if err != nil || len(buf) < docFixed {
		return Doc{}, errBadIndex
	}
	d := docHead(buf)
	buf = buf[docFixed:]
	var strs [4]string
	for i := range strs {
		if len(buf) < 2 {
			return Doc{}, errBadIndex
		}
		n := int(binary.LittleEndian.Uint16(buf))
		if len(buf) < 2+n {
			return Doc{}, errBadIndex
		}
		strs[i] = string(buf[2 : 2+n])
		buf = buf[2+n:]
	}
	d.Path, d.Title, d.Snippet, d.Scope = strs[0], strs[1], strs[2], strs[3]
	return d, nil
}

// dirStamp is what a folder's stamp file records: the folder's
// modification time when its buckets were last checked.
func dirStamp(dir string) string {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return "absent"
	}
	return strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
