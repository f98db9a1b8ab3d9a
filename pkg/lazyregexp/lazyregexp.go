// Package lazyregexp is a regular expression compiled on its first use, so
// a hook process that lives for milliseconds never pays to compile the
// expressions its run does not need (as cmd/go's pkg/lazyregexp).
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a *regexp.Regexp compiled on first use.
type Regexp struct {
	expr string
	once sync.Once
	rx   *regexp.Regexp
}

// New returns a Regexp for expr, which must compile.
func New(expr string) *Regexp { return &Regexp{expr: expr} }

// R returns the compiled expression.
func (r *Regexp) R() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.expr) })
	return r.rx
}

// The methods ccmem uses, forwarded.

func (r *Regexp) MatchString(s string) bool                  { return r.R().MatchString(s) }
func (r *Regexp) FindSubmatch(b []byte) [][]byte             { return r.R().FindSubmatch(b) }
func (r *Regexp) FindStringSubmatch(s string) []string       { return r.R().FindStringSubmatch(s) }
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int { return r.R().FindAllStringIndex(s, n) }
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.R().FindAllStringSubmatch(s, n)
}
func (r *Regexp) ReplaceAllString(s, repl string) string { return r.R().ReplaceAllString(s, repl) }
func (r *Regexp) ReplaceAllStringFunc(s string, f func(string) string) string {
	return r.R().ReplaceAllStringFunc(s, f)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.R().FindAllStringSubmatchIndex(s, n)
}
