//go:build linux || darwin

package store

import (
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// statNames stats each name relative to the open folder (fstatat: no
// path to resolve again per file), not following symlinks, a large folder
// on every core; a name that is gone, or no longer a regular file, is left
// out.
func statNames(d *os.File, dir string, names []string) []FileStat {
	return statEach(d, names, "", unix.AT_SYMLINK_NOFOLLOW, unix.S_IFREG)
}

// statSubdirs is statNames for the folder sub inside each named folder
// (following symlinks, as the client does): the folders that have one, with
// its modification time.
func statSubdirs(d *os.File, dir string, names []string, sub string) []FileStat {
	return statEach(d, names, "/"+sub, 0, unix.S_IFDIR)
}

// statEach stats name+suffix for each name relative to the open folder d,
// on every core when there are many, keeping the names whose file is of
// type mode (unix.S_IFREG, unix.S_IFDIR).
func statEach(d *os.File, names []string, suffix string, flags int, mode uint32) []FileStat {
	fd := int(d.Fd())
	stats := make([]FileStat, len(names))
	ok := make([]bool, len(names))
	parallel(len(names), func(from, to int) {
		var st unix.Stat_t
		for i := from; i < to; i++ {
			if err := unix.Fstatat(fd, names[i]+suffix, &st, flags); err != nil || uint32(st.Mode)&unix.S_IFMT != mode {
				continue
			}
			stats[i], ok[i] = FileStat{names[i], st.Size, st.Mtim.Sec*1e9 + int64(st.Mtim.Nsec)}, true
		}
	})
	out := stats[:0]
	for i, s := range stats {
		if ok[i] {
			out = append(out, s)
		}
	}
	return out
}

// parallel runs do over [0, n) in slices, on every core when n is large.
func parallel(n int, do func(from, to int)) {
	workers := min(runtime.GOMAXPROCS(0), n/512+1)
	if workers <= 1 {
		do(0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(w*per, min((w+1)*per, n))
		}()
	}
	wg.Wait()
}
