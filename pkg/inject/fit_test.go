package inject

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

func lines(prefix string, n, width int) []string {
	out := make([]string, n)
	for i := range out {
		s := fmt.Sprintf("- %s %d ", prefix, i)
		out[i] = s + strings.Repeat("x", max(0, width-len(s)))
	}
	return out
}

func sec(name string, ls []string, total int) Section {
	return Section{Name: name, Title: "# " + name + " — /m/" + name + ".md", Path: "/m/" + name + ".md", Lines: ls, Total: total, Cap: len(ls)}
}

func report(b Block, name string) SectionReport {
	for _, r := range b.Sections {
		if r.Name == name {
			return r
		}
	}
	return SectionReport{}
}

func TestFitEverythingFits(t *testing.T) {
	b := Fit("# pre", []Section{sec("global", []string{"- a", "- b"}, 2), sec("project", []string{"- c"}, 1)}, 1000)
	want := "# pre\n\n# global — /m/global.md\n- a\n- b\n\n# project — /m/project.md\n- c"
	if b.Text != want {
		t.Fatalf("got\n%q\nwant\n%q", b.Text, want)
	}
	if b.Chars != textfmt.Chars(want) || report(b, "global").Shown != 2 || report(b, "global").Cut != "" {
		t.Fatalf("report: %+v", b)
	}
}

func TestFitEmptySectionsAreLeftOut(t *testing.T) {
	b := Fit("# pre", []Section{sec("global", nil, 0), sec("project", []string{"- c"}, 1)}, 1000)
	if strings.Contains(b.Text, "global") {
		t.Fatalf("empty section rendered: %q", b.Text)
	}
}

func TestFitCapMarker(t *testing.T) {
	b := Fit("# pre", []Section{sec("briefing", []string{"l1", "l2"}, 3), sec("global", []string{"g"}, 40)}, 1000)
	if !strings.Contains(b.Text, "\nl2\n… 1 more line in /m/briefing.md") {
		t.Fatalf("singular marker missing:\n%s", b.Text)
	}
	if !strings.Contains(b.Text, "\ng\n… 39 more lines in /m/global.md") {
		t.Fatalf("marker missing:\n%s", b.Text)
	}
	if r := report(b, "briefing"); r.Cut != "cap" || r.Shown != 2 || r.Total != 3 {
		t.Fatalf("briefing report %+v", r)
	}
}

func TestFitCutsLowestPriorityFirst(t *testing.T) {
	secs := []Section{
		sec("global", lines("global", 10, 50), 10),
		sec("learned", lines("learned", 10, 50), 10),
		sec("briefing", lines("briefing", 10, 50), 10),
		sec("project", lines("project", 10, 50), 10),
		sec("episodes", lines("episodes", 10, 50), 12),
	}
	full := Fit("# pre", secs, claudecode.MaxInline)
	// Take away room for about 15 lines: episodes (10 lines) go entirely,
	// then learned gives way; briefing, project and global are untouched.
	b := Fit("# pre", secs, full.Chars-15*51)
	if b.Chars > full.Chars-15*51 {
		t.Fatalf("over budget: %d", b.Chars)
	}
	if r := report(b, "episodes"); r.Shown != 0 || r.Cut != "budget" {
		t.Fatalf("episodes %+v, want fully cut", r)
	}
	if r := report(b, "learned"); r.Shown == 0 || r.Shown == 10 || r.Cut != "budget" {
		t.Fatalf("learned %+v, want partly cut", r)
	}
	for _, name := range []string{"global", "briefing", "project"} {
		if r := report(b, name); r.Shown != 10 || r.Cut != "" {
			t.Fatalf("%s %+v, want whole", name, r)
		}
	}
	// A fully cut section keeps only its marker line, without its title.
	if strings.Contains(b.Text, "# episodes") || !strings.Contains(b.Text, "\n\n… 12 more lines in /m/episodes.md") {
		t.Fatalf("episodes should shrink to its marker:\n%s", b.Text)
	}
	if !strings.Contains(b.Text, "more lines in /m/learned.md") {
		t.Fatalf("learned cut without a marker:\n%s", b.Text)
	}

	// Tighter: only global keeps lines, everything else is a marker.
	pre := textfmt.Chars("# pre")
	g := Fit("# pre", secs[:1], claudecode.MaxInline).Chars - pre
	b = Fit("# pre", secs, pre+g+4*40)
	if r := report(b, "global"); r.Shown != 10 {
		t.Fatalf("global %+v, want whole", r)
	}
	for _, name := range []string{"learned", "briefing", "project", "episodes"} {
		if r := report(b, name); r.Shown != 0 {
			t.Fatalf("%s %+v, want cut to its marker", name, r)
		}
	}
}

// checkFit asserts the invariants every fitted block keeps.
func checkFit(t *testing.T, pre string, secs []Section, budget int, b Block) {
	t.Helper()
	if textfmt.Chars(b.Text) > budget || b.Chars != textfmt.Chars(b.Text) {
		t.Fatalf("block of %d chars (reported %d) over budget %d", textfmt.Chars(b.Text), b.Chars, budget)
	}
	if !utf8.ValidString(b.Text) {
		t.Fatalf("block is not valid UTF-8")
	}
	allowed := map[string]bool{"": true}
	for _, l := range strings.Split(pre, "\n") {
		allowed[l] = true
	}
	for _, s := range secs {
		allowed[s.Title] = true
		for _, l := range s.Lines {
			allowed[l] = true
		}
		for _, l := range s.Full {
			allowed[l] = true
		}
		for k := 0; k <= s.Total; k++ {
			allowed[marker(k, s.Path, false)] = true
		}
	}
	for _, l := range strings.Split(b.Text, "\n") {
		if !allowed[l] {
			t.Fatalf("line %q is not a whole input line: a cut fell inside a line", l)
		}
	}
}

func TestFitInvariantsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"go", "test", "日本語", "café", "🚀", "x", strings.Repeat("long", 50), "\t", ""}
	names := []string{"global", "learned", "briefing", "project", "episodes", "nudge"}
	for i := 0; i < 2000; i++ {
		var secs []Section
		for _, name := range names {
			n := rng.Intn(30)
			var ls []string
			for j := 0; j < n; j++ {
				var w []string
				for k := rng.Intn(30); k > 0; k-- {
					w = append(w, words[rng.Intn(len(words))])
				}
				ls = append(ls, "- "+strings.Join(w, " "))
			}
			sc := Section{Name: name, Title: "# " + name, Path: "/p/" + name, Lines: ls, Total: n + rng.Intn(3), Share: rng.Float64() / 6}
			if rng.Intn(3) == 0 {
				for _, l := range ls {
					sc.Full = append(sc.Full, l, "  body of "+l)
				}
			}
			secs = append(secs, sc)
		}
		pre := "# Memory\nsome preamble " + strings.Repeat("p", rng.Intn(400))
		budget := 50 + rng.Intn(3000)
		b := Fit(pre, secs, budget)
		checkFit(t, pre, secs, budget, b)
		for _, sc := range secs {
			r := report(b, sc.Name)
			if r.Cut != "budget" || r.Chars == 0 {
				continue
			}
			// A section cut for the budget still has its guarantee, up to
			// the line that would cross it (and its title and marker).
			slack := textfmt.Chars(sectionSep+sc.Title) + 2 + textfmt.Chars(marker(sc.Total, sc.Path, false))
			for _, l := range sc.Lines {
				slack = max(slack, textfmt.Chars(sectionSep+sc.Title)+2*(1+textfmt.Chars(l))+textfmt.Chars(marker(sc.Total, sc.Path, false)))
			}
			if r.Chars+slack < r.Guaranteed {
				t.Fatalf("%s got %d chars, guaranteed %d (slack %d)", sc.Name, r.Chars, r.Guaranteed, slack)
			}
		}
		if again := Fit(pre, secs, budget); again.Text != b.Text {
			t.Fatal("Fit is not deterministic")
		}
	}
}

func FuzzFit(f *testing.F) {
	f.Add("# pre\nline", "- a\n- b\n- 日本語 🚀", "- c", 200, 1)
	f.Add("", "", "", 0, 0)
	f.Add(strings.Repeat("p", 300), strings.Repeat("- x\n", 100), "\xff\xfe", 120, 5)
	f.Fuzz(func(t *testing.T, pre, a, b string, budget, extra int) {
		if budget < 0 || budget > 20000 || extra < 0 || extra > 1000 {
			return
		}
		pre = strings.ToValidUTF8(pre, "\uFFFD")
		mk := func(name, body string) Section {
			var ls []string
			for _, l := range strings.Split(strings.ToValidUTF8(body, "\uFFFD"), "\n") {
				if l != "" {
					ls = append(ls, l)
				}
			}
			return Section{Name: name, Title: "# " + name, Path: "/p/" + name, Lines: ls, Total: len(ls) + extra}
		}
		secs := []Section{mk("global", a), mk("episodes", b)}
		checkFit(t, pre, secs, budget, Fit(pre, secs, budget))
	})
}

// TestFitSharesKeepEveryScope: a long global memory cannot crowd out the
// project's; each keeps at least its share, and what the project does not
// use goes to the global memory.
func TestFitSharesKeepEveryScope(t *testing.T) {
	global := sec("global", lines("global", 200, 85), 200)
	global.Share = 0.30
	project := sec("project", lines("project", 12, 60), 12)
	project.Share = 0.30
	episodes := sec("episodes", lines("episodes", 10, 70), 10)
	episodes.Share = 0.10
	pre := strings.Repeat("p", 800)
	b := Fit(pre, []Section{global, project, episodes}, 9500)
	if b.Chars > 9500 {
		t.Fatalf("over budget: %d", b.Chars)
	}
	if r := report(b, "project"); r.Shown != 12 || r.Cut != "" {
		t.Fatalf("project %+v: want all 12 lines", r)
	}
	if r := report(b, "episodes"); r.Shown != 10 {
		t.Fatalf("episodes %+v: want all 10 lines", r)
	}
	g := report(b, "global")
	if g.Guaranteed != int(0.30*float64(9500-800)) || g.Chars < g.Guaranteed || g.Cut != "budget" {
		t.Fatalf("global %+v: want at least its guarantee, cut", g)
	}
	// Unused shares flow: global gets what project and episodes leave.
	if g.Chars < 9500-800-report(b, "project").Chars-report(b, "episodes").Chars-100 {
		t.Fatalf("global got %d chars; the room others left was not given to it", g.Chars)
	}
	// Without shares (the old rule), the global memory took everything.
	global.Share, project.Share, episodes.Share = 0, 0, 0
	old := Fit(pre, []Section{global, project, episodes}, 9500)
	if r := report(old, "project"); r.Shown != 0 {
		t.Fatalf("without shares project kept %d lines; the test no longer shows the fix", r.Shown)
	}
}

// TestFitSharesBothOver: both scopes over their shares: each gets about
// its share, neither is starved.
func TestFitSharesBothOver(t *testing.T) {
	global := sec("global", lines("global", 200, 85), 200)
	project := sec("project", lines("project", 200, 85), 200)
	global.Share, project.Share = 0.30, 0.30
	b := Fit("# pre", []Section{global, project}, 9500)
	g, p := report(b, "global"), report(b, "project")
	// A guarantee is kept up to the line that would cross it.
	if g.Chars+86 < g.Guaranteed || p.Chars+86 < p.Guaranteed {
		t.Fatalf("global %+v / project %+v: below guarantee by more than a line", g, p)
	}
	if p.Shown < 30 || g.Shown < 30 {
		t.Fatalf("global %d / project %d lines: want ≥30 each", g.Shown, p.Shown)
	}
	checkFit(t, "# pre", []Section{global, project}, 9500, b)
}

// TestFitFullRendering: the longer rendering (entries with bodies) is used
// when it fits, the pointer lines otherwise.
func TestFitFullRendering(t *testing.T) {
	s := sec("learned", []string{"- feedback/a — one", "- user/b — two"}, 2)
	s.Full = []string{"- feedback/a — one", "  never mock the db", "- user/b — two", "  likes Go"}
	s.Share = 0.5
	b := Fit("# pre", []Section{s}, 1000)
	if !strings.Contains(b.Text, "\n  never mock the db\n- user/b") || !report(b, "learned").Full {
		t.Fatalf("bodies not shown though they fit:\n%s", b.Text)
	}
	tight := Fit("# pre", []Section{s}, textfmt.Chars("# pre")+textfmt.Chars(sectionSep+s.Title)+40)
	if strings.Contains(tight.Text, "never mock") || report(tight, "learned").Shown != 2 || report(tight, "learned").Full {
		t.Fatalf("want pointer lines only:\n%s", tight.Text)
	}
}

// TestMarkerCharsMatchesMarker: Fit counts a marker's length without
// building it; the count must be the marker's length as the client counts it.
func TestMarkerCharsMatchesMarker(t *testing.T) {
	for _, path := range []string{"/home/dev/.claude/ccmem/MEMORY.md", "/tmp/mémoire/😀/MEMORY.md", ""} {
		for _, approx := range []bool{false, true} {
			st := &fitState{sec: Section{Path: path, Approx: approx}, pathChars: textfmt.Chars(path)}
			for _, hidden := range []int{1, 2, 9, 10, 99, 100, 12345, 1000000} {
				if got, want := st.markerChars(hidden), textfmt.Chars(marker(hidden, path, approx)); got != want {
					t.Errorf("markerChars(%d) with path %q, approx %v = %d, want %d", hidden, path, approx, got, want)
				}
			}
		}
	}
}

// TestSafeLinesEscapesEveryHeadingForm: a line of file content cannot pass
// for one of the block's level-1 section headers in any form CommonMark
// reads one — "# " or "#<TAB>" after up to three spaces, a lone "#", a
// setext "===" underline — while deeper headers and ordinary text stay.
func TestSafeLinesEscapesEveryHeadingForm(t *testing.T) {
	for in, want := range map[string]string{
		"# Memory recalled by ccmem":  `\# Memory recalled by ccmem`,
		"#\tMemory recalled by ccmem": "\\#\tMemory recalled by ccmem",
		"   #\tforged":                "   \\#\tforged",
		"#":                           `\#`,
		"===":                         `\===`,
		"  ====  ":                    `  \====  `,
		"## Build":                    "## Build",
		"#hashtag":                    "#hashtag",
		"    # code block":            "    # code block",
		"a = b":                       "a = b",
	} {
		if got := SafeLines(in); got != want {
			t.Errorf("SafeLines(%q) = %q, want %q", in, got, want)
		}
	}
}
