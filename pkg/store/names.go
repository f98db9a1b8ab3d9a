package store

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// The names family: every rule by which ccmem turns something into a name
// on disk, in one place.
//
//   - Slug: a project path as Claude Code names its folder (lossy).
//   - SafeFileName: a memory's name (from a silo file's frontmatter, so
//     untrusted) as a file name in the store.
//   - ValidID: whether a session or record id may be used as a file name
//     as it is.
//   - Slugify: a record title as a record id.

// Slug is Claude Code's name for a project path: every UTF-16 code unit
// outside [A-Za-z0-9] becomes "-", and a result over 200 characters is cut
// and given a hash of the path.
func Slug(path string) string {
	units := utf16.Encode([]rune(path))
	var b strings.Builder
	for _, u := range units {
		if u < 128 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			b.WriteByte(byte(u))
		} else {
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) <= 200 {
		return s
	}
	var h int32
	for _, u := range units {
		h = (h << 5) - h + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return s[:200] + "-" + strconv.FormatInt(abs, 36)
}

// SafeFileName turns a memory name into a file name: no "/", no "..", no
// control characters, nothing but letters, digits, ".", "_" and "-", at most
// 100 bytes; a name with nothing usable gets "unnamed-" and a hash.
func SafeFileName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)), r == '_', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := b.String()
	for strings.Contains(s, "..") {
		s = strings.ReplaceAll(s, "..", ".")
	}
	s = strings.Trim(s, ".-")
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	if len(s) > 100 {
		s = s[:100]
	}
	if s == "" {
		sum := sha256.Sum256([]byte(name))
		s = "unnamed-" + hex.EncodeToString(sum[:4])
	}
	return s
}

// ValidID tells whether s is 1 to max characters of [A-Za-z0-9._-] (or
// [a-z0-9-] when lower) starting with a letter or digit and holding no
// "..": safe as a file name as it is. (A regular expression with a bounded
// repeat compiles to a large program, which a short-lived hook would pay
// for on every run.)
func ValidID(s string, max int, lower bool) bool {
	if len(s) == 0 || len(s) > max || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case !lower && c >= 'A' && c <= 'Z':
		case i > 0 && c == '-':
		case i > 0 && !lower && (c == '.' || c == '_'):
		default:
			return false
		}
	}
	return true
}

// ValidKey tells whether s can be a project's key, the name of its folder in
// the store: what Slug and a hash suffix make, 1 to 255 of [A-Za-z0-9-]
// (a key starts with "-" as a path's slug does), never "." or "..".
func ValidKey(s string) bool {
	if len(s) == 0 || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Slugify makes a record id from a title: lowercase ASCII letters and
// digits, other runs as one "-", at most 80 characters.
func Slugify(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 80 {
		s = strings.TrimRight(s[:80], "-")
	}
	return s
}

// Here is the project a session runs in, as the rule for memory that
// names the folder it came from sees it (see Holds).
type Here struct {
	root, slug string
	git        bool
}

// HereOf is the project rooted at root (git: a git working tree, as
// Project.Git says).
func HereOf(root string, git bool) Here {
	if root == "" {
		return Here{}
	}
	return Here{root: filepath.Clean(root), slug: Slug(root), git: git}
}

// Holds tells whether memory that came from folder src applies in this
// project — the one rule for "applies to this project". It applies when
// src is the project's root, or (for a git repository, whose
// subfolders are the project too) a folder inside it, or has the root's
// slug, since a folder read back from a silo's slug is only approximate
// (slugs are lossy). A folder that is not a git repository is a project of
// its own, not a container: a session in $HOME or ~/src is never given the
// memory of the projects below it. srcSlug is Slug(src), or "" to compute
// it; callers that test many sources pass it precomputed.
func (h Here) Holds(src, srcSlug string) bool {
	if h.root == "" || src == "" {
		return false
	}
	src = filepath.Clean(src)
	if src == h.root || h.git && strings.HasPrefix(src, h.root+string(filepath.Separator)) {
		return true
	}
	if srcSlug == "" {
		srcSlug = Slug(src)
	}
	return srcSlug == h.slug
}

// PathOfSlug finds the project path a Claude Code folder name (Slug) was
// made from. Slugs are lossy ("/src/my-app" and "/src/my/app" are both
// "-src-my-app"), so the store's projects are asked first (a project.json
// whose root has this slug), then the file system: the path is walked
// from its root, each folder's entries matched by their own slugs,
// preferring the longest name ("my-app" before "my", "app"). ok is false
// when neither knows it; path is then the slug read back with "/" for
// every "-".
func PathOfSlug(e Env, slug string) (path string, ok bool) {
	// Two folders whose names differ only in punctuation (acme-api,
	// acme_api) have one slug: which one a silo is cannot be told from
	// its name, so it is neither ("", false), never a guess.
	var known []string
	if ents, err := os.ReadDir(e.ProjectsDir()); err == nil {
		for _, de := range ents {
			if root := e.ProjectRoot(de.Name()); root != "" && Slug(root) == slug && !slices.Contains(known, root) {
				known = append(known, root)
			}
		}
	}
	switch len(known) {
	case 1:
		return known[0], true
	case 0:
	default:
		return "", false
	}
	root, rest := "", ""
	switch {
	case strings.HasPrefix(slug, "-"):
		root, rest = string(filepath.Separator), slug[1:]
		if filepath.Separator == '\\' {
			root = `\`
		}
	case len(slug) >= 3 && slug[1:3] == "--" && (slug[0] >= 'A' && slug[0] <= 'Z' || slug[0] >= 'a' && slug[0] <= 'z'):
		root, rest = slug[:1]+`:\`, slug[3:] // C:\Users\…
	}
	if root != "" && rest != "" {
		budget := maxSlugReads
		var found []string
		walkSlug(root, rest, &budget, &found)
		switch len(found) {
		case 1:
			return found[0], true
		case 0:
		default:
			return "", false
		}
	}
	return strings.ReplaceAll(slug, "-", "/"), false
}

// maxSlugReads bounds the folders PathOfSlug lists: a slug of many
// dashes must not walk the disk.
const maxSlugReads = 256

// walkSlug finds under dir the paths whose slug, after dir's, is rest,
// into found (two at most: one is the answer, two are no answer).
func walkSlug(dir, rest string, budget *int, found *[]string) {
	if *budget <= 0 || len(*found) > 1 {
		return
	}
	*budget--
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var names []string
	for _, de := range ents {
		s := Slug(de.Name())
		if s == rest || strings.HasPrefix(rest, s+"-") {
			names = append(names, de.Name())
		}
	}
	// The longest first: "my-app" is one folder before it is two.
	sort.SliceStable(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, n := range names {
		if len(*found) > 1 {
			return
		}
		p := filepath.Join(dir, n)
		fi, err := os.Stat(p)
		if err != nil || !fi.IsDir() {
			continue
		}
		if s := Slug(n); s == rest {
			*found = append(*found, p)
		} else {
			walkSlug(p, rest[len(s)+1:], budget, found)
		}
	}
}
