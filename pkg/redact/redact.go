// Package redact removes secrets from text before ccmem writes it to disk:
// private keys, cloud and API tokens, JWTs, auth headers, password-style
// assignments and URLs with embedded passwords. Each secret becomes
// "[REDACTED:kind]" and is counted, so a record says how much was removed.
package redact

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/lazyregexp"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

type rule struct {
	kind string
	re   *lazyregexp.Regexp
	// keep is the number of leading submatches kept verbatim (a key name or
	// a URL's user); the rest of the match is replaced.
	keep int
	// hint is a cheap substring test: when it is set and absent from the
	// text, the regexp is neither compiled nor run. fold matches the hints
	// against the lower-cased text.
	hint []string
	fold bool
	// random, when set, keeps a match whose secret part (after the kept
	// submatches) does not look random: a generic rule's guard against
	// redacting ordinary words.
	random bool
	// assigns, when set, runs the rule only where a hint is followed
	// within a few bytes by "=" or ":" (an assignment needs one): prose
	// that says "token" or "key" costs a scan, not the regexp.
	assigns bool
	// header, when set, runs the rule only where a hint is followed by
	// white space and a run of at least twelve non-space characters (an
	// auth header's credential).
	header bool
}

// A token with a distinctive prefix is found wherever it starts, even
// glued to the letters before it ("xAKIA…", "zzzghp_…": a paste, a
// variable name); only the prefixes common in words keep a word boundary.
var rules = []rule{
	{kind: "private-key", re: lazyregexp.New(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)`), hint: []string{"PRIVATE KEY"}},
	{kind: "anthropic-key", re: lazyregexp.New(`sk-ant-[A-Za-z0-9_\-]{20,}`), hint: []string{"sk-ant-"}},
	{kind: "openai-key", re: lazyregexp.New(`(?:sk-(?:proj|svcacct|admin)-|\bsk-)[A-Za-z0-9_\-]{20,}`), hint: []string{"sk-"}},
	{kind: "github-token", re: lazyregexp.New(`(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`), hint: []string{"gh", "github_pat_"}},
	{kind: "gitlab-token", re: lazyregexp.New(`gl(?:pat|dt|ptt|rt)-[A-Za-z0-9_\-]{20,}`), hint: []string{"gl"}},
	{kind: "slack-token", re: lazyregexp.New(`xox[abposre]-[A-Za-z0-9\-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+`), hint: []string{"xox", "hooks.slack.com"}},
	{kind: "stripe-key", re: lazyregexp.New(`(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`), hint: []string{"_live_", "_test_"}},
	{kind: "aws-access-key", re: lazyregexp.New(`(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}`), hint: []string{"AKIA", "ASIA", "ABIA", "ACCA"}},
	{kind: "gcp-api-key", re: lazyregexp.New(`AIza[0-9A-Za-z_\-]{35}`), hint: []string{"AIza"}},
	{kind: "npm-token", re: lazyregexp.New(`npm_[A-Za-z0-9]{36}`), hint: []string{"npm_"}},
	{kind: "huggingface-token", re: lazyregexp.New(`hf_[A-Za-z0-9]{30,}`), hint: []string{"hf_"}},
	{kind: "pypi-token", re: lazyregexp.New(`pypi-AgE[A-Za-z0-9_\-]{40,}`), hint: []string{"pypi-"}},
	{kind: "dockerhub-token", re: lazyregexp.New(`dckr_pat_[A-Za-z0-9_\-]{20,}`), hint: []string{"dckr_pat_"}},
	{kind: "twilio-key", re: lazyregexp.New(`\bSK[0-9a-fA-F]{32}\b`), hint: []string{"SK"}},
	{kind: "sendgrid-key", re: lazyregexp.New(`SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}`), hint: []string{"SG."}},
	{kind: "databricks-token", re: lazyregexp.New(`\bdapi[0-9a-f]{32}(?:-\d+)?\b`), hint: []string{"dapi"}},
	{kind: "shopify-token", re: lazyregexp.New(`shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}`), hint: []string{"shp"}},
	{kind: "azure-key", re: lazyregexp.New(`(?i)(AccountKey=|SharedAccessKey=|[?&]sig=)[A-Za-z0-9+/%=]{16,}`), keep: 1, hint: []string{"accountkey", "accesskey", "sig="}, fold: true},
	{kind: "jwt", re: lazyregexp.New(`eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`), hint: []string{"eyJ"}},
	{kind: "auth-header", re: lazyregexp.New(`(?i)(\b(?:bearer|basic|token)\s+)[A-Za-z0-9\-._~+/]{12,}=*`), keep: 1, hint: []string{"bearer", "basic", "token"}, fold: true, header: true},
	{kind: "url-password", re: lazyregexp.New(`(\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@"']+:)[^/\s@"']+@`), keep: 1, hint: []string{"://"}},
	{kind: "assignment", re: lazyregexp.New(`\b([A-Z][A-Z0-9_]*_(?:TOKEN|KEY|SECRET|PAT)["']?\s*[:=]\s*["']?)([^\s"',;]{12,})`), keep: 1,
		hint: []string{"_TOKEN", "_KEY", "_SECRET", "_PAT"}, random: true, assigns: true},
	{kind: "assignment", re: lazyregexp.New(`(?i)(\b[A-Za-z0-9_.\-]*(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?)[A-Za-z0-9_.\-]*["']?\s*(?::|=|:=|=>)\s*)("[^"\n]{3,}"|'[^'\n]{3,}'|[^\s"',;&)]{3,})`), keep: 1,
		hint: []string{"pass", "pwd", "secret", "token", "key", "credential"}, fold: true, assigns: true},
}

// String returns s with every secret replaced, and how many were. An
// invisible character inside a run of a token's characters (a zero-width
// space in "ghp_ab\u200bcd…") is taken out first: it would split the
// secret for the rules and not for a reader.
func String(s string) (string, int) {
	s = joinInvisible(s)
	n := 0
	lower := ""
	for i := range rules {
		r := &rules[i]
		if len(r.hint) > 0 {
			text := s
			if r.fold {
				if lower == "" {
					lower = strings.ToLower(s)
				}
				text = lower
			}
			if !containsAny(text, r.hint) || r.assigns && !assignedNear(text, r.hint) || r.header && !credentialAfter(text, r.hint) {
				continue
			}
		}
		re := r.re.R()
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			if strings.Contains(m, "[REDACTED:") {
				return m // already redacted, by a sharper rule or an earlier pass
			}
			if r.keep == 0 {
				n++
				return "[REDACTED:" + r.kind + "]"
			}
			sub := re.FindStringSubmatch(m)
			kept := strings.Join(sub[1:r.keep+1], "")
			if r.random && !looksRandom(m[len(kept):]) {
				return m
			}
			n++
			return kept + "[REDACTED:" + r.kind + "]" + tail(*r, m)
		})
		lower = "" // s may have changed
	}
	return s, n
}

// invisibles are the characters that show nothing: zero-width space,
// non-joiner and joiner, left-to-right and right-to-left marks, word
// joiner, invisible operators, the byte-order mark, the soft hyphen and
// the Mongolian vowel separator.
const invisibles = "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e"

// joinInvisible is s without its invisible characters, but for those
// between two characters outside ASCII (an emoji sequence's joiner, a
// mark inside Arabic or Hebrew text): no secret a rule knows is written
// there.
func joinInvisible(s string) string {
	if !strings.ContainsAny(s, invisibles) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := rune(0) // the last rune kept
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !strings.ContainsRune(invisibles, r) {
			b.WriteString(s[i : i+size])
			prev = r
			i += size
			continue
		}
		// A run of invisible characters, and what follows it.
		j := i
		for j < len(s) {
			r2, sz := utf8.DecodeRuneInString(s[j:])
			if !strings.ContainsRune(invisibles, r2) {
				break
			}
			j += sz
		}
		next, _ := utf8.DecodeRuneInString(s[j:])
		if prev >= utf8.RuneSelf && j < len(s) && next >= utf8.RuneSelf {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// tail keeps the "@" that closes a URL's credentials.
func tail(r rule, m string) string {
	if r.kind == "url-password" {
		return "@"
	}
	return ""
}

// assignNear is how far after a hint an assignment's "=" or ":" may be:
// the rest of the name ("password_hash_v2") and a quote.
const assignNear = 40

// assignedNear tells whether some hint in s is followed within assignNear
// bytes by "=" or ":".
func assignedNear(s string, hints []string) bool {
	for _, h := range hints {
		for rest := s; ; {
			i := strings.Index(rest, h)
			if i < 0 {
				break
			}
			after := rest[i+len(h):]
			if strings.ContainsAny(after[:min(len(after), assignNear)], "=:") {
				return true
			}
			rest = after
		}
	}
	return false
}

// credentialAfter tells whether some hint in s is followed by white space
// and then at least twelve characters without a space.
func credentialAfter(s string, hints []string) bool {
	for _, h := range hints {
		for rest := s; ; {
			i := strings.Index(rest, h)
			if i < 0 {
				break
			}
			rest = rest[i+len(h):]
			j := 0
			for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t' || rest[j] == '\n' || rest[j] == '\r') {
				j++
			}
			k := j
			for k < len(rest) && rest[k] > ' ' {
				k++
			}
			if j > 0 && k-j >= 12 {
				return true
			}
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Shorten redacts s, then shortens it to at most n runes (textfmt.Shorten):
// the one order that cannot leave part of a secret that the cut split in
// two. It returns how many secrets were redacted in what it keeps.
//
// Only a window of s is redacted: its first n runes' worth of bytes and a
// margin past them longer than any secret a rule matches (tokens, JWTs,
// URLs); a private key block that runs past the window is redacted to the
// window's end (the rule accepts a block without its END line). So a
// 400 KB pasted log costs what its kept head does, and a secret the cut
// splits is still redacted whole in what is kept.
func Shorten(s string, n int) (string, int) {
	red, k := String(Window(s, n))
	return textfmt.Shorten(red, n), k
}

// Window is the part of s that redacting suffices for keeping its first
// n runes: n runes' worth of bytes (4 each, at most) and a margin.
func Window(s string, n int) string {
	limit := 4*n + windowMargin
	if n < 0 || len(s) <= limit {
		return s
	}
	for limit > 0 && !utf8RuneStart(s[limit]) {
		limit--
	}
	return s[:limit]
}

// windowMargin is longer than any secret a rule matches but a private key
// block (which the rule redacts to the end of what it is given).
const windowMargin = 8 << 10

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Counter redacts strings and keeps the running count.
type Counter struct{ N int }

// String redacts s and adds to the count.
func (c *Counter) String(s string) string {
	out, n := String(s)
	c.N += n
	return out
}

// looksRandom tells a generated secret from a word or a setting: at
// least 12 characters, digits among the letters (three, or one beside both
// cases), and at least 3 bits of entropy per character.
func looksRandom(v string) bool {
	if len(v) < 12 {
		return false
	}
	var counts [256]int
	digits, upper, lower := 0, 0, 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		counts[c]++
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
			lower++
		}
	}
	if upper+lower == 0 || digits == 0 || digits < 3 && (upper == 0 || lower == 0) {
		return false
	}
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(v))
			h -= p * math.Log2(p)
		}
	}
	return h >= 3
}
