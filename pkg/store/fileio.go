package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/robustio"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Sentinel errors of file access; the errors returned wrap them.
var (
	// ErrNotRegular is a FIFO, device or socket where a file was expected:
	// ccmem never blocks on or reads those.
	ErrNotRegular = errors.New("not a regular file")
	// ErrIsDir is a directory where a file was expected.
	ErrIsDir = errors.New("is a directory, not a file")
	// ErrTooLarge is a file over the limit of ReadSmallFile.
	ErrTooLarge = errors.New("file too large")
)

// OpenRegular opens path for reading without blocking on a FIFO and
// refuses anything but a regular file.
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := openRead(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		if fi.IsDir() {
			return nil, nil, &os.PathError{Op: "read", Path: path, Err: ErrIsDir}
		}
		return nil, nil, &os.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	return f, fi, nil
}

// ReadSmallFile reads a whole regular file of at most max bytes.
func ReadSmallFile(path string, max int64) ([]byte, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, fi, path, max)
}

func readLimited(f *os.File, fi os.FileInfo, path string, max int64) ([]byte, error) {
	if fi.Size() > max {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%d bytes, limit %d)", ErrTooLarge, fi.Size(), max)}
	}
	// Sized by the file, so a file read whole takes two reads (the data,
	// then the end), not a dozen growing ones; one that grew since the
	// stat is read to the limit still.
	var b bytes.Buffer
	b.Grow(int(min(fi.Size(), max)) + bytes.MinRead)
	_, err := b.ReadFrom(io.LimitReader(f, max+1))
	return b.Bytes(), err
}

// Head is the start of a text file read line by line.
type Head struct {
	// Lines are the first lines, without line ends, as valid UTF-8.
	Lines []string
	// Total is the number of lines in the whole file.
	Total int
	// Approx is set when Total is an estimate: past the first megabyte
	// after the taken lines, the rest of a big file is sized, not read.
	Approx bool
	// Shortened is how many lines were shortened to Limits.LineChars.
	Shortened int
	// LineNos are the line numbers in the file (1-based) of Lines.
	LineNos []int
}

// exactCount is how much of a file past its taken lines is read to count
// them exactly; beyond it the count is estimated from the file's size.
const exactCount = 1 << 20

// Limits bound what ReadHead takes of a file.
type Limits struct {
	// Lines and Chars: at most this many lines, adding up to at most this
	// many characters (a line that would cross Chars is not taken, nor any
	// after it).
	Lines, Chars int
	// LineChars, when positive, shortens a longer line in place to that
	// many characters, ending with "…" and Cut's text, so that one pasted
	// paragraph does not hide every line after it.
	LineChars int
	// Cut is the text after a shortened line's "…", given the line's
	// number in the file (1-based).
	Cut func(line int) string
}

// ReadHead reads the head of a text file within lim; it still counts every
// line of the file, so the caller can say how many were left out. Blank
// lines at the start and end of the file are dropped and not counted.
func ReadHead(path string, lim Limits) (Head, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return Head{}, err
	}
	defer f.Close()
	return readHeadSized(f, lim, fi.Size())
}

// ReadHeadFrom is ReadHead for text from a reader.
func ReadHeadFrom(r io.Reader, lim Limits) (Head, error) {
	return readHeadSized(r, lim, -1)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readHeadSized is readHead for a reader of size bytes (-1: unknown, read
// it all).
func readHeadSized(r io.Reader, lim Limits, size int64) (Head, error) {
	maxLines, maxChars := lim.Lines, lim.Chars
	keep := maxChars * 4 // bytes of an overlong line kept: enough to cut it
	if lim.LineChars > 0 {
		keep = min(keep, (lim.LineChars+1)*4)
	}
	cr := &countingReader{r: r}
	bufSize := 64 << 10
	if size >= 0 && size < int64(bufSize) {
		bufSize = max(16, int(size)+1) // a small file needs no big buffer
	}
	br := bufio.NewReaderSize(cr, bufSize)
	var h Head
	chars := 0
	taking := maxLines > 0
	blankRun := 0 // blank lines seen since the last non-blank line
	var long []byte
	partial := false // the current line came in several pieces
	lineNo := 0      // of the file, 1-based
	for taking {
		chunk, isPrefix, err := br.ReadLine()
		if errors.Is(err, io.EOF) {
			return h, nil
		}
		if err != nil {
			return h, err
		}
		if isPrefix {
			partial = true
			// An overlong line: keep at most enough of it to know it
			// cannot fit; count it once.
			if len(long) <= keep {
				long = append(long, chunk...)
			}
			continue
		}
		lineNo++
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		line = bytes.TrimRight(line, "\r")
		wasPartial := partial
		partial = false
		if !wasPartial && len(bytes.Trim(line, " \t\r\v\f")) == 0 {
			if h.Total > 0 {
				blankRun++ // leading blank lines are not counted at all
			}
			continue
		}
		// A non-blank line: the blank lines before it are real lines.
		for ; blankRun > 0; blankRun-- {
			h.Total++
			if taking && len(h.Lines) < maxLines && chars+1 <= maxChars {
				h.Lines = append(h.Lines, "")
				h.LineNos = append(h.LineNos, lineNo-blankRun)
				chars++
			} else {
				taking = false
			}
		}
		h.Total++
		if taking {
			s := textfmt.ValidUTF8(line)
			if lim.LineChars > 0 && (wasPartial && len(line) > keep || textfmt.Chars(s) > lim.LineChars) {
				s = textfmt.Prefix(s, lim.LineChars) + "…"
				if lim.Cut != nil {
					s += lim.Cut(lineNo)
				}
				h.Shortened++
			}
			n := textfmt.Chars(s) + 1
			if len(h.Lines) < maxLines && chars+n <= maxChars {
				h.Lines = append(h.Lines, s)
				h.LineNos = append(h.LineNos, lineNo)
				chars += n
			} else {
				taking = false
			}
		}
	}
	// Nothing more is taken: only count the remaining lines, in bulk, up
	// to the last non-blank one.
	var src io.Reader = br
	limited := size >= 0 && size-(cr.n-int64(br.Buffered())) > exactCount
	if limited {
		src = io.LimitReader(br, exactCount)
	}
	restSize := 256 << 10
	if size >= 0 {
		restSize = int(min(int64(restSize), max(4096, size-(cr.n-int64(br.Buffered())))))
	}
	rest, err := countRest(src, h.Total == 0, restSize)
	if limited {
		// Scale the lines counted in the first megabyte to the rest.
		left := size - (cr.n - int64(br.Buffered()))
		if left > 0 && rest > 0 {
			rest += int(float64(rest) * float64(left) / float64(exactCount))
			h.Approx = true
		}
	}
	if rest > 0 {
		h.Total += blankRun + rest
	}
	return h, err
}

// countRest counts the lines of r up to and including its last non-blank
// line, starting at a line boundary (or inside an overlong line, whose rest
// then counts as content).
func countRest(r io.Reader, skipLeading bool, bufSize int) (int, error) {
	buf := make([]byte, bufSize)
	newlines := 0 // in all the bytes read so far
	lines := 0    // lines up to the last non-blank byte so far
	for {
		n, err := r.Read(buf)
		c := buf[:n]
		if skipLeading {
			// Leading blank lines are not counted: start at the line of
			// the first non-blank byte.
			first := bytes.IndexFunc(c, func(r rune) bool { return !strings.ContainsRune(" \t\r\n\v\f", r) })
			if first < 0 {
				c = nil
			} else {
				c = c[bytes.LastIndexByte(c[:first], '\n')+1:]
				skipLeading = false
			}
		}
		if last := lastNonSpace(c); last >= 0 {
			lines = newlines + bytes.Count(c[:last], []byte{'\n'}) + 1
		}
		newlines += bytes.Count(c, []byte{'\n'})
		if errors.Is(err, io.EOF) {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
	}
}

func lastNonSpace(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		switch b[i] {
		case ' ', '\t', '\r', '\n', '\v', '\f':
		default:
			return i
		}
	}
	return -1
}

// WriteFileAtomic replaces path with data through a synced temporary file in
// the same folder, so a crash leaves the old file or the new one, never a mix.
// Missing parent folders are created private (0700); new files are 0600 and
// an existing file keeps its mode. The temporary file is named
// ".<name>.tmp-<random>", which CleanLeftovers recognises.
func WriteFileAtomic(path string, data []byte) error {
	return writeAtomic(path, data, 0o600, 0o700)
}

// WriteFileShared is WriteFileAtomic for a file committed with a repository
// and read by the team like its code: new files are 0644 and new folders
// 0755.
func WriteFileShared(path string, data []byte) error {
	return writeAtomic(path, data, 0o644, 0o755)
}

// WriteCacheFile is WriteFileAtomic for derived data that can be rebuilt
// (a search index): still never half-written, but not forced to disk.
func WriteCacheFile(path string, data []byte) error {
	return writeFile(path, data, 0o600, 0o700, false, nil)
}

func writeAtomic(path string, data []byte, newMode, dirMode os.FileMode) error {
	return writeFile(path, data, newMode, dirMode, true, nil)
}

// WriteFileAtomicIf is WriteFileAtomic for a file other programs write
// too: still runs after the new bytes are on disk beside it, just before
// they replace it, and an error from it (the file changed meanwhile)
// writes nothing. The window in which another program's write is lost is
// then the rename's, not the write's and the sync's.
func WriteFileAtomicIf(path string, data []byte, still func() error) error {
	return writeFile(path, data, 0o600, 0o700, true, still)
}

func writeFile(path string, data []byte, newMode, dirMode os.FileMode, durable bool, still func() error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	mode := newMode
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+tmpMark+"*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := writeData(tmp, path, data); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if still != nil {
		if err := still(); err != nil {
			return err
		}
	}
	if err := replace(name, path); err != nil {
		return err
	}
	ok = true
	if !durable {
		return nil
	}
	return SyncDir(dir)
}

// WriteJSON replaces path with v as indented JSON, atomically and durably.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'))
}

// TestOnlyWriteFault, when a test sets it, may fail the write of path's
// data after part of it is written, as a full disk does.
var TestOnlyWriteFault func(path string) error

func writeData(f *os.File, path string, data []byte) (int, error) {
	if TestOnlyWriteFault != nil {
		if err := TestOnlyWriteFault(path); err != nil {
			n, _ := f.Write(data[:len(data)/2])
			return n, &os.PathError{Op: "write", Path: path, Err: err}
		}
	}
	return f.Write(data)
}

// tmpMark marks ccmem's temporary files.
const tmpMark = ".tmp-"

// LeftoverAge is how old a temporary file must be before a later run takes
// it for the leftover of an interrupted write (a younger one may belong to a
// write in progress).
const LeftoverAge = 10 * time.Minute

// CleanLeftovers removes the temporary files of ccmem's interrupted writes
// in dir (".<name>.tmp-<digits>", as WriteFileAtomic names them) that are
// older than age, and returns the paths removed. With names, only the
// temporary files of those names go: in a folder ccmem shares with others
// (a repository's root), nothing else is touched.
func CleanLeftovers(dir string, age time.Duration, now time.Time, names ...string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var temps []string
	for _, de := range ents {
		base, ok := tempOf(de.Name())
		if ok && de.Type().IsRegular() && (len(names) == 0 || slices.Contains(names, base)) {
			temps = append(temps, de.Name())
		}
	}
	return removeLeftovers(dir, temps, age, now)
}

// IsTemp tells whether a file name is one of ccmem's temporary files.
func IsTemp(name string) bool {
	_, ok := tempOf(name)
	return ok
}

// TidyListed is Tidy for the temporary files a listing of dir already found
// (see IsTemp), so that a big folder is not listed twice.
func TidyListed(dir string, temps []string) []string {
	return removeLeftovers(dir, temps, LeftoverAge, time.Now())
}

func removeLeftovers(dir string, temps []string, age time.Duration, now time.Time) []string {
	var out []string
	for _, n := range temps {
		p := filepath.Join(dir, n)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < age {
			continue
		}
		if os.Remove(p) == nil {
			out = append(out, p)
		}
	}
	return out
}

// Tidy removes the leftovers of interrupted writes in dir (see
// CleanLeftovers), judging their age by the file system's clock, which
// stamped them. Each writer tidies the folders it writes.
func Tidy(dir string, names ...string) []string {
	return CleanLeftovers(dir, LeftoverAge, time.Now(), names...)
}

// tempOf tells whether a file name is one of ccmem's temporary files, and
// whose.
func tempOf(name string) (string, bool) {
	i := strings.LastIndex(name, tmpMark)
	if !strings.HasPrefix(name, ".") || i < 2 {
		return "", false
	}
	digits := name[i+len(tmpMark):]
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	return name[1:i], true
}

// Lock takes the cross-process lock guarding the shared files of folder dir
// (creating it) and returns its release.
func Lock(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, ".lock")
	// One open: created private, locked for writing; an older lock file
	// made by another tool (0666) is made private.
	f, err := lockedfile.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm() != 0o600 && modesMatter {
		_ = f.Chmod(0o600)
	}
	return func() { f.Close() }, nil
}

// replace renames the finished temporary file over path: atomic on every
// system ccmem runs on, and retried where another process holding path
// open makes the rename fail for a moment (Windows).
func replace(tmp, path string) error { return robustio.Rename(tmp, path) }
