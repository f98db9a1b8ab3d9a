package memory

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use, so hook start-up does not pay for
// expressions the run never needs.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
