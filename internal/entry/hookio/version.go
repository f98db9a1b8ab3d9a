package hookio

// Which ccmem a process is: a release build sets it at link time (-ldflags
// "-X github.com/ccmem/ccmem/internal/entry/hookio.version=v1.2.3");
// otherwise it is the module version `go install` recorded, or "devel" with
// the commit a source build was made from.

import (
	"runtime/debug"
	"sync"
)

// version is set at link time by release builds.
var version string

// Version is ccmem's version.
var Version = sync.OnceValue(func() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return "devel"
	case dirty:
		return "devel-" + rev + "-dirty"
	}
	return "devel-" + rev
})
