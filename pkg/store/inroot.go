package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A repository's files are untrusted input: anyone can publish a repository
// whose .claude/memory/MEMORY.md is a symlink to ~/.aws/credentials. Files
// ccmem reads or writes under a root it does not own (a repository) or
// derives itself (INDEX.md, checkpoints, episodes) go through these
// functions, which never follow a symlink: not the file's, nor any folder's
// between the root and it.

// ErrSymlink is a symlink where ccmem expects its own file or folder.
var ErrSymlink = errors.New("a symlink, not followed")

// ErrOutside is a path that does not lie under the root it should.
var ErrOutside = errors.New("outside the folder it belongs in")

// CheckIn refuses path unless it lies under root and no component from
// root down to path is a symlink (root itself may be one: it is resolved
// by whoever chose it). Every component but the last must be a folder; a
// missing component ends the check, since nothing is there to follow.
func CheckIn(root, path string) error {
	if !Within(root, path) {
		return &fs.PathError{Op: "open", Path: path, Err: ErrOutside}
	}
	rel, _ := filepath.Rel(root, path)
	if rel == "." {
		return nil
	}
	cur := root
	parts := strings.Split(rel, string(filepath.Separator))
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: "open", Path: cur, Err: ErrSymlink}
		}
		if i < len(parts)-1 && !fi.IsDir() {
			return &fs.PathError{Op: "open", Path: cur, Err: fmt.Errorf("not a directory")}
		}
	}
	return nil
}

// Within tells whether path lies under dir, by their names alone (both
// clean and absolute).
func Within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// OpenMemory opens a memory file named by its path: one in the store, or in
// the memory folder (.claude/memory/) of one of the repositories roots. A
// repository's file is checked from the repository's root down, so a
// .claude or .claude/memory that a repository commits as a symlink (to /,
// to ~/.ssh) is refused like any symlink below it; the store's from the
// store down. It is the one containment rule for reading memory by path.
func OpenMemory(e Env, path string, roots []string) (*os.File, os.FileInfo, error) {
	path = filepath.Clean(path)
	if Within(e.Store, path) {
		return OpenIn(e.Store, path)
	}
	for _, r := range roots {
		if r != "" && Within(RepoMemoryDir(r), path) {
			return OpenIn(r, path)
		}
	}
	return nil, nil, &fs.PathError{Op: "open", Path: path, Err: ErrOutside}
}

// OpenIn is OpenRegular for a file under root, refusing symlinks (see
// CheckIn; the file itself is opened without following one where the
// system can say so, O_NOFOLLOW).
func OpenIn(root, path string) (*os.File, os.FileInfo, error) {
	if err := CheckIn(root, path); err != nil {
		return nil, nil, err
	}
	f, err := openNoFollow(path)
	if err != nil {
		return nil, nil, noFollowError(path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := regular(path, fi); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadFileIn is ReadSmallFile for a file under root (see OpenIn).
func ReadFileIn(root, path string, max int64) ([]byte, error) {
	f, fi, err := OpenIn(root, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, fi, path, max)
}

// ReadHeadIn is ReadHead for a file under root (see OpenIn).
func ReadHeadIn(root, path string, lim Limits) (Head, error) {
	f, fi, err := OpenIn(root, path)
	if err != nil {
		return Head{}, err
	}
	defer f.Close()
	return readHeadSized(f, lim, fi.Size())
}

// ReadDirIn lists a folder under root (see CheckIn).
func ReadDirIn(root, dir string) ([]fs.DirEntry, error) {
	if err := CheckIn(root, dir); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: ErrSymlink}
	}
	return os.ReadDir(dir)
}

// ScanDirIn calls fn for each entry of a folder under root (see CheckIn),
// in the order the system lists them: unsorted, in batches, so a folder of
// 100,000 files costs one pass and no more memory than fn keeps.
func ScanDirIn(root, dir string, fn func(fs.DirEntry)) error {
	if err := CheckIn(root, dir); err != nil {
		return err
	}
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &fs.PathError{Op: "open", Path: dir, Err: ErrSymlink}
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		ents, err := f.ReadDir(1024)
		for _, de := range ents {
			fn(de)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// WriteFileIn is WriteFileShared for a file under root (a repository's,
// read by the team): it refuses to write through a symlink, at the file or
// at any folder between root and it, and to replace anything but a
// regular file.
func WriteFileIn(root, path string, data []byte) error {
	if err := checkWritable(root, path); err != nil {
		return err
	}
	return WriteFileShared(path, data)
}

// WriteFileAtomicIn is WriteFileAtomic for a private file under root, with
// WriteFileIn's refusals.
func WriteFileAtomicIn(root, path string, data []byte) error {
	if err := checkWritable(root, path); err != nil {
		return err
	}
	return WriteFileAtomic(path, data)
}

// WriteCacheFileIn is WriteFileAtomicIn for data the next run can rebuild
// (a checkpoint, which its transcript restores): atomic, but not forced to
// disk.
func WriteCacheFileIn(root, path string, data []byte) error {
	if err := checkWritable(root, path); err != nil {
		return err
	}
	return WriteCacheFile(path, data)
}

func checkWritable(root, path string) error {
	if err := CheckIn(root, path); err != nil {
		return err
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return regular(path, fi)
}

// regular refuses a path that is not a regular file, saying what it is.
func regular(path string, fi os.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
	case fi.IsDir():
		return &fs.PathError{Op: "read", Path: path, Err: ErrIsDir}
	case !fi.Mode().IsRegular():
		return &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	return nil
}
