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
	fd := int(d.Fd())
	stats := make([]FileStat, len(names))
	ok := make([]bool, len(names))
	stat := func(from, to int) {
		var st unix.Stat_t
		for i := from; i < to; i++ {
			if err := unix.Fstatat(fd, names[i], &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
				continue
			}
			stats[i], ok[i] = FileStat{names[i], st.Size, st.Mtim.Sec*1e9 + int64(st.Mtim.Nsec)}, true
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(names)/512+1)
	if workers <= 1 {
		stat(0, len(names))
	} else {
		var wg sync.WaitGroup
		per := (len(names) + workers - 1) / workers
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				stat(w*per, min((w+1)*per, len(names)))
			}()
		}
		wg.Wait()
	}
	out := stats[:0]
	for i, s := range stats {
		if ok[i] {
			out = append(out, s)
		}
	}
	return out
}

// statSubdirs is statNames for the folder sub inside each named folder
// (following symlinks, as the client does): the folders that have one, with
// its modification time.
func statSubdirs(d *os.File, dir string, names []string, sub string) []FileStat {
	fd := int(d.Fd())
	out := make([]FileStat, 0, len(names))
	var st unix.Stat_t
	for _, n := range names {
		if err := unix.Fstatat(fd, n+"/"+sub, &st, 0); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue
		}
		out = append(out, FileStat{n, st.Size, st.Mtim.Sec*1e9 + int64(st.Mtim.Nsec)})
	}
	return out
}
