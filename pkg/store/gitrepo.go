package store

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// What a remote key's binding needs of a git repository, read from its
// files (a hook runs no git): the commit its remote's default branch had,
// and whether it holds a commit. Only the repository's own object store
// is read: a copied folder's objects/info/alternates could point at the
// person's real clone, so alternates are not followed.

// validObjectID tells a full object id: 40 (SHA-1) or 64 (SHA-256)
// lower-case hex digits.
func validObjectID(id string) bool {
	if len(id) != 40 && len(id) != 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// remoteHead is the commit remote's default branch had when the clone last
// fetched: what refs/remotes/<remote>/HEAD names, else its main or master;
// "" when none is known.
func remoteHead(gitDir, remote string) string {
	if gitDir == "" || remote == "" || strings.ContainsAny(remote, `/\`) || remote == ".." {
		return ""
	}
	prefix := "refs/remotes/" + remote + "/"
	if data, err := ReadSmallFile(filepath.Join(gitDir, filepath.FromSlash(prefix+"HEAD")), 4<<10); err == nil {
		if target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: "); ok && strings.HasPrefix(target, prefix) {
			if id := readRef(gitDir, target); id != "" {
				return id
			}
		}
	}
	for _, b := range []string{"main", "master"} {
		if id := readRef(gitDir, prefix+b); id != "" {
			return id
		}
	}
	return ""
}

// readRef is the object a ref names, loose or in packed-refs.
func readRef(gitDir, ref string) string {
	if data, err := ReadSmallFile(filepath.Join(gitDir, filepath.FromSlash(ref)), 4<<10); err == nil {
		if id := strings.TrimSpace(string(data)); validObjectID(id) {
			return id
		}
	}
	f, err := os.Open(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64<<20))
	for sc.Scan() {
		id, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref && validObjectID(id) {
			return id
		}
	}
	return ""
}

// hasObject tells whether the repository's own object store holds id: a
// loose object, or an entry of a pack's index (version 2).
func hasObject(gitDir, id string) bool {
	if !validObjectID(id) {
		return false
	}
	objects := filepath.Join(gitDir, "objects")
	if fi, err := os.Lstat(filepath.Join(objects, id[:2], id[2:])); err == nil && fi.Mode().IsRegular() {
		return true
	}
	want, _ := hex.DecodeString(id)
	idx, _ := filepath.Glob(filepath.Join(objects, "pack", "pack-*.idx"))
	for _, p := range idx {
		if inPackIndex(p, want) {
			return true
		}
	}
	return false
}

// inPackIndex looks want up in a version 2 pack index: a header, a fanout
// table of 256 counts, then the sorted object ids.
func inPackIndex(path string, want []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [8 + 256*4]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || !bytes.Equal(head[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(head[4:8]) != 2 {
		return false
	}
	fan := func(i int) uint32 { return binary.BigEndian.Uint32(head[8+4*i:]) }
	lo := uint32(0)
	if want[0] > 0 {
		lo = fan(int(want[0]) - 1)
	}
	hi := fan(int(want[0]))
	if hi < lo || hi > fan(255) {
		return false
	}
	size := int64(len(want))
	buf := make([]byte, size)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if _, err := f.ReadAt(buf, int64(len(head))+int64(mid)*size); err != nil {
			return false
		}
		switch c := bytes.Compare(buf, want); {
		case c == 0:
			return true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return false
}
