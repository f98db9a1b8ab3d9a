// Command lexgen derives pkg/lexicon's tables from public lexical data:
// how common each English word is (SCOWL's size classes, Debian's scowl
// package), how common each two-character Chinese word is and which are
// grammar (jieba's dictionary and its idf table, the Go module
// github.com/yanyiwu/gojieba, MIT), which traditional characters fold to
// which simplified ones (Unicode's Unihan variants, Debian's unicode-data),
// and which English words are related (WordNet 3.0, Debian's wordnet-base).
// The tables are written once and committed; TestTablesAreCurrent holds
// them to what this command makes of the same data.
//
//	go run ./internal/dev/lexgen [-o pkg/lexicon]
package main

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/search"
)

// The data the tables come from, and where Debian puts it.
var (
	scowlDir   = "/usr/share/dict/scowl"
	unihanFile = "/usr/share/unicode/Unihan_Variants.txt.bz2"
	wordnetDir = "/usr/share/wordnet"
	// jiebaModule is the Go module whose dictionary is read (fetched with
	// go mod download, checked against the Go checksum database).
	jiebaModule = "github.com/yanyiwu/gojieba@v1.4.6"
)

func main() {
	out := flag.String("o", "pkg/lexicon", "the folder the tables are written to")
	flag.Parse()
	tables, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lexgen:", err)
		os.Exit(1)
	}
	for name, data := range tables {
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "lexgen:", err)
			os.Exit(1)
		}
	}
}

// errMissing says a source of the tables is not on this machine.
var errMissing = errors.New("missing")

// generate makes every table, by file name.
func generate() (map[string][]byte, error) {
	en, err := english()
	if err != nil {
		return nil, err
	}
	fold, err := folds()
	if err != nil {
		return nil, err
	}
	zh, err := chinese()
	if err != nil {
		return nil, err
	}
	gram, err := grammarChars()
	if err != nil {
		return nil, err
	}
	wn, err := wordnet()
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"en.txt": en, "t2s.txt": fold, "zh.bin": zh, "zhgram.txt": gram, "wn.txt": wn}, nil
}

// english writes each English search term (as search.Terms makes it) and
// the commonest size class it is in: 1 for SCOWL's 10 (the ~4,400
// commonest words), 2 for 20, 3 for 35 and 40, 4 for 50. A term in none is
// rare, a name or jargon.
func english() ([]byte, error) {
	classes := []struct {
		size string
		tier byte
	}{{"10", '1'}, {"20", '2'}, {"35", '3'}, {"40", '3'}}
	tier := map[string]byte{}
	for _, c := range classes {
		for _, kind := range []string{"english-words", "american-words", "british-words"} {
			path := filepath.Join(scowlDir, kind+"."+c.size)
			f, err := os.Open(path)
			if err != nil {
				if kind == "english-words" {
					return nil, fmt.Errorf("%w: %s (hint: apt-get install scowl)", errMissing, path)
				}
				continue
			}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				w := latin1(sc.Bytes())
				if strings.ContainsAny(w, "'") {
					continue // contractions: stop words and small talk already
				}
				for _, t := range search.Terms(w) {
					if old, ok := tier[t]; !ok || c.tier < old {
						tier[t] = c.tier
					}
				}
			}
			f.Close()
		}
	}
	terms := make([]string, 0, len(tier))
	for t := range tier {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	var b bytes.Buffer
	for _, t := range terms {
		b.WriteString(t)
		b.WriteByte(' ')
		b.WriteByte(tier[t])
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// wordnetRelated is the most related words a word keeps: a word with
// more is too general to bridge anything ("thing", "person").
const wordnetRelated = 40

// wordnet writes the bridge from a general English noun to the
// particular ones a memory may say instead: for each noun of SCOWL's 35
// and commoner whose commonest use is as a noun (WordNet's tagged sense
// counts), in its commonest sense, the words of its synset and of the
// synsets one and two levels more particular (siblings → sister, doctor →
// specialist → dermatologist, vehicle → car); only words of SCOWL's 50 and
// commoner, of one word. One line a word: "term related related…", as
// search.Terms makes them, sorted; a word with more than wordnetRelated
// is left out (too general to bridge anything).
func wordnet() ([]byte, error) {
	common, err := scowlWords("10", "20", "35", "40")
	if err != nil {
		return nil, err
	}
	known, err := scowlWords("10", "20", "35", "40", "50")
	if err != nil {
		return nil, err
	}
	// The tagged sense counts of each lemma as a verb and as an
	// adjective: a noun that is mostly used otherwise bridges nothing.
	other := map[string]int{}
	for _, pos := range []string{"verb", "adj", "adv"} {
		if err := eachField(filepath.Join(wordnetDir, "index."+pos), func(f []string) {
			if len(f) < 6 {
				return
			}
			pc, _ := strconv.Atoi(f[3])
			if len(f) < 6+pc {
				return
			}
			n, _ := strconv.Atoi(f[5+pc])
			other[f[0]] = max(other[f[0]], n)
		}); err != nil {
			return nil, fmt.Errorf("%w: %v (hint: apt-get install wordnet-base)", errMissing, err)
		}
	}
	syn, err := readSynsets(filepath.Join(wordnetDir, "data.noun"))
	if err != nil {
		return nil, err
	}
	rel := map[string]map[string]bool{}
	if err := eachField(filepath.Join(wordnetDir, "index.noun"), func(f []string) {
		if len(f) < 6 {
			return
		}
		lemma := f[0]
		if strings.Contains(lemma, "_") || !common[lemma] || strings.HasSuffix(lemma, "ing") {
			return // a gerund's stem is its verb's ("buying" is "buy")
		}
		pc, _ := strconv.Atoi(f[3])
		if len(f) < 7+pc {
			return
		}
		if tagged, _ := strconv.Atoi(f[5+pc]); tagged < other[lemma] {
			return // mostly a verb or an adjective
		}
		set := map[string]bool{}
		add := func(off string) {
			for _, w := range syn[off].words {
				if !strings.Contains(w, "_") && known[w] {
					set[w] = true
				}
			}
		}
		first := f[6+pc]
		add(first)
		for _, h := range syn[first].hypo {
			add(h)
			for _, g := range syn[h].hypo {
				add(g)
			}
		}
		src := search.Terms(lemma)
		if len(src) != 1 {
			return
		}
		for w := range set {
			for _, t := range search.Terms(w) {
				if t == src[0] {
					continue
				}
				if rel[src[0]] == nil {
					rel[src[0]] = map[string]bool{}
				}
				rel[src[0]][t] = true
			}
		}
	}); err != nil {
		return nil, err
	}
	terms := make([]string, 0, len(rel))
	for t, r := range rel {
		if len(r) <= wordnetRelated {
			terms = append(terms, t)
		}
	}
	sort.Strings(terms)
	var b strings.Builder
	for _, t := range terms {
		var rs []string
		for r := range rel[t] {
			rs = append(rs, r)
		}
		sort.Strings(rs)
		b.WriteString(t + " " + strings.Join(rs, " ") + "\n")
	}
	return []byte(b.String()), nil
}

// synset is what the bridge reads of a WordNet synset: its words, and the
// synsets one level more general and more particular.
type synset struct {
	words       []string
	hyper, hypo []string
}

// readSynsets reads a WordNet data file, by synset offset.
func readSynsets(path string) (map[string]synset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (hint: apt-get install wordnet-base)", errMissing, path)
	}
	defer f.Close()
	out := map[string]synset{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, " ") {
			continue // the licence
		}
		head, _, _ := strings.Cut(line, " | ")
		fs := strings.Fields(head)
		if len(fs) < 5 {
			continue
		}
		wc, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil || len(fs) < 5+2*int(wc) {
			continue
		}
		var s synset
		for i := range int(wc) {
			w := strings.ToLower(fs[4+2*i])
			if j := strings.IndexByte(w, '('); j > 0 {
				w = w[:j] // an adjective's marker: "(a)", "(p)"
			}
			s.words = append(s.words, w)
		}
		k := 4 + 2*int(wc)
		pc, err := strconv.Atoi(fs[k])
		if err != nil || len(fs) < k+1+4*pc {
			continue
		}
		for i := range pc {
			sym, off, pos := fs[k+1+4*i], fs[k+2+4*i], fs[k+3+4*i]
			if pos != fs[2] && !(fs[2] == "s" && pos == "a") {
				continue
			}
			switch sym {
			case "@", "@i":
				s.hyper = append(s.hyper, off)
			case "~", "~i":
				s.hypo = append(s.hypo, off)
			}
		}
		out[fs[0]] = s
	}
	return out, sc.Err()
}

// scowlWords is the set of SCOWL's words of the size classes named.
func scowlWords(sizes ...string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, size := range sizes {
		for _, kind := range []string{"english-words", "american-words"} {
			f, err := os.Open(filepath.Join(scowlDir, kind+"."+size))
			if err != nil {
				if kind == "english-words" {
					return nil, fmt.Errorf("%w: %s (hint: apt-get install scowl)", errMissing, filepath.Join(scowlDir, kind+"."+size))
				}
				continue
			}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				out[strings.ToLower(latin1(sc.Bytes()))] = true
			}
			f.Close()
		}
	}
	return out, nil
}

// latin1 decodes SCOWL's ISO-8859-1 lines.
func latin1(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		s.WriteRune(rune(c))
	}
	return s.String()
}

// folds writes each traditional Chinese character Unihan names a single
// simplified variant for, and that variant: "繁繁" pairs, sorted, one line.
func folds() ([]byte, error) {
	f, err := os.Open(unihanFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (hint: apt-get install unicode-data)", errMissing, unihanFile)
	}
	defer f.Close()
	sc := bufio.NewScanner(bzip2.NewReader(f))
	type pair struct{ from, to rune }
	var pairs []pair
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 || fields[1] != "kSimplifiedVariant" {
			continue
		}
		from, ok1 := codepoint(fields[0])
		vs := strings.Fields(fields[2])
		if !ok1 || len(vs) != 1 {
			continue // several simplified forms: ambiguous, left alone
		}
		to, ok2 := codepoint(vs[0])
		if !ok2 || from == to || utf8.RuneLen(from) != 3 || utf8.RuneLen(to) != 3 {
			continue
		}
		pairs = append(pairs, pair{from, to})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].from < pairs[j].from })
	var b strings.Builder
	for _, p := range pairs {
		b.WriteRune(p.from)
		b.WriteRune(p.to)
	}
	b.WriteByte('\n')
	return []byte(b.String()), nil
}

func codepoint(s string) (rune, bool) {
	h, ok := strings.CutPrefix(s, "U+")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(h, 16, 32)
	return rune(n), err == nil
}

// grammarPOS are jieba's parts of speech that carry no topic: adverbs,
// pronouns, conjunctions, prepositions, particles, modal and interjection
// words, numerals and measure words, directions and times.
var grammarPOS = map[string]bool{"d": true, "r": true, "rz": true, "c": true, "p": true, "u": true, "uj": true, "ul": true, "uv": true, "uz": true,
	"ug": true, "ud": true, "y": true, "e": true, "o": true, "m": true, "mq": true, "q": true, "f": true, "t": true, "ad": true, "h": true, "k": true}

// chinese writes the two-character Chinese words a prompt's bigrams are
// weighed by: 7-byte records, sorted by their bytes — the word's UTF-8
// (two 3-byte characters) and a class byte: 0x80 for grammar, else the
// word's idf in the language at large times 4 (jieba's idf table; its
// frequency where the table has none). Words used fewer than five times
// in jieba's corpus are left out: a bigram the table does not hold is rare,
// or the seam between two words.
func chinese() ([]byte, error) {
	dir, err := jiebaDict()
	if err != nil {
		return nil, err
	}
	type entry struct {
		freq int
		pos  string
	}
	words := map[string]entry{}
	total := 0.0
	if err := eachField(filepath.Join(dir, "jieba.dict.utf8"), func(f []string) {
		if len(f) < 2 {
			return
		}
		n, _ := strconv.Atoi(f[1])
		pos := ""
		if len(f) > 2 {
			pos = f[2]
		}
		words[f[0]] = entry{n, pos}
		total += float64(n)
	}); err != nil {
		return nil, err
	}
	idf := map[string]float64{}
	if err := eachField(filepath.Join(dir, "idf.utf8"), func(f []string) {
		if len(f) == 2 {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				idf[f[0]] = v
			}
		}
	}); err != nil {
		return nil, err
	}
	type rec struct {
		word  string
		class byte
	}
	var recs []rec
	for w, e := range words {
		if len(w) != 6 || utf8.RuneCountInString(w) != 2 || e.freq < 5 {
			continue
		}
		grammar := grammarPOS[e.pos]
		v, ok := idf[w]
		if !ok {
			// No idf: from its frequency, on the idf table's scale.
			v = math.Log(total / float64(e.freq) / 60)
		}
		class := byte(min(math.Round(max(v, 0)*4), 127))
		if grammar {
			class = 0x80
		}
		recs = append(recs, rec{w, class})
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].word < recs[j].word })
	var b bytes.Buffer
	for _, r := range recs {
		b.WriteString(r.word)
		b.WriteByte(r.class)
	}
	return b.Bytes(), nil
}

// grammarChars writes the characters that are words of grammar on their
// own, in jieba's dictionary used 20,000 times or more: pronouns, adverbs,
// conjunctions, prepositions, particles (我 这 不 和 在 的 了 吗), and 是 个
// 一 有, which join words more than they name anything. A bigram between
// one of them and a word, or between two words, is a seam. One line,
// sorted.
func grammarChars() ([]byte, error) {
	dir, err := jiebaDict()
	if err != nil {
		return nil, err
	}
	pos := map[string]bool{"r": true, "d": true, "c": true, "p": true, "y": true, "e": true, "u": true, "uj": true, "ul": true,
		"uz": true, "ug": true, "ud": true, "uv": true, "k": true}
	var chars []rune
	if err := eachField(filepath.Join(dir, "jieba.dict.utf8"), func(f []string) {
		if len(f) < 3 || utf8.RuneCountInString(f[0]) != 1 {
			return
		}
		n, _ := strconv.Atoi(f[1])
		r, _ := utf8.DecodeRuneInString(f[0])
		if n >= 20000 && (pos[f[2]] || strings.ContainsRune("是个一有", r)) && utf8.RuneLen(r) == 3 {
			chars = append(chars, r)
		}
	}); err != nil {
		return nil, err
	}
	sort.Slice(chars, func(i, j int) bool { return chars[i] < chars[j] })
	return []byte(string(chars) + "\n"), nil
}

// jiebaDict finds jieba's dictionary folder in the Go module cache,
// downloading the module when it is not there.
func jiebaDict() (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", jiebaModule)
	cmd.Dir = os.TempDir() // outside any module: the download is the module's own
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if json.Unmarshal(out, &info) != nil || info.Dir == "" {
		if info.Error != "" {
			return "", fmt.Errorf("%w: %s: %s", errMissing, jiebaModule, info.Error)
		}
		return "", fmt.Errorf("%w: go mod download %s: %v", errMissing, jiebaModule, err)
	}
	return filepath.Join(info.Dir, "deps", "cppjieba", "dict"), nil
}

func eachField(path string, fn func([]string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fn(strings.Fields(sc.Text()))
	}
	return sc.Err()
}
