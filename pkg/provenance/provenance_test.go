package provenance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/store"
)

func env(t *testing.T) store.Env {
	t.Helper()
	home := t.TempDir()
	e, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestShapes: every line shape CommonMark allows for one statement reads
// as the same words; what is not a marker stays in the words.
func TestShapes(t *testing.T) {
	for _, c := range []struct {
		line  string
		kind  Kind
		level int
		text  string
	}{
		{"", Blank, 0, ""},
		{"   \t", Blank, 0, ""},
		{"- Never run npm install", Item, 0, "Never run npm install"},
		{"* Never run npm install", Item, 0, "Never run npm install"},
		{"+ Never run npm install", Item, 0, "Never run npm install"},
		{"    - Never run npm install", Item, 0, "Never run npm install"},
		{"\t* Never run npm install", Item, 0, "Never run npm install"},
		{"- - Never run npm install", Item, 0, "Never run npm install"},
		{"- * + Never run npm install", Item, 0, "Never run npm install"},
		{"1. Never run npm install", Item, 0, "Never run npm install"},
		{"1) Never run npm install", Item, 0, "Never run npm install"},
		{"123456789. Never run npm install", Item, 0, "Never run npm install"},
		{"- 2. Never run npm install", Item, 0, "Never run npm install"},
		{"- [ ] Never run npm install", Item, 0, "Never run npm install"},
		{"- [x] Never run npm install", Item, 0, "Never run npm install"},
		{"* [X] Never run npm install", Item, 0, "Never run npm install"},
		{"> Never run npm install", Text, 0, "Never run npm install"},
		{">> - Never run npm install", Item, 0, "Never run npm install"},
		{"> 1. Never run npm install", Item, 0, "Never run npm install"},
		{"Never run npm install", Text, 0, "Never run npm install"},
		{"   Never   run npm install  ", Text, 0, "Never   run npm install"},
		{"# Never run npm install", Heading, 1, "Never run npm install"},
		{"###### Never run npm install", Heading, 6, "Never run npm install"},
		{"## Never run npm install ##", Heading, 2, "Never run npm install"},
		{"> ## Never run npm install", Heading, 2, "Never run npm install"},
		{"#", Heading, 1, ""},
		// Not markers: they stay part of the words.
		{"-Never run npm install", Text, 0, "-Never run npm install"},
		{"#Never run npm install", Text, 0, "#Never run npm install"},
		{"####### Never", Text, 0, "####### Never"},
		{"1.5 is the version", Text, 0, "1.5 is the version"},
		{"1234567890. Never", Text, 0, "1234567890. Never"},
		{"- [y] Never", Item, 0, "[y] Never"},
		{"## C# is the language", Heading, 2, "C# is the language"},
		// Invisible characters change no word.
		{"-\u200b Never run npm install", Item, 0, "Never run npm install"},
		{"\ufeff- Never run npm\u200d install", Item, 0, "Never run npm install"},
	} {
		sh := ShapeOf(c.line)
		if sh.Kind != c.kind || sh.Level != c.level || sh.Text != c.text {
			t.Errorf("ShapeOf(%q) = %+v, want {%v %d %q}", c.line, sh, c.kind, c.level, c.text)
		}
	}
	same := []string{"- Never run NPM install", "* never run npm install", "+ Never  run npm install", "1. Never run npm install",
		"  - - Never run npm install", "> - Never run npm install", "Never run npm install", "- [ ] Never run npm install",
		"# Never run npm install", "never run\tnpm install", "- Never run npm\u200b install"}
	for _, l := range same {
		if got := Canonical(l); got != "never run npm install" {
			t.Errorf("Canonical(%q) = %q", l, got)
		}
	}
	for _, l := range []string{"- never run npm install now", "- never run npm", "- never run yarn install"} {
		if Canonical(l) == "never run npm install" {
			t.Errorf("Canonical(%q) is another line's", l)
		}
	}
	if Canonical("") != "" || Canonical(" - ") != "" || Canonical("---") != "---" {
		t.Errorf("blank and rule lines: %q %q %q", Canonical(""), Canonical(" - "), Canonical("---"))
	}
}

// TestOrigins: only the person's attested word stands; every other origin
// says who wrote it; the assistant's notes stay in their project.
func TestOrigins(t *testing.T) {
	for _, c := range []struct {
		o        Origin
		standing bool
		label    string
		inB      bool
	}{
		{Origin{By: Person, Via: "cli"}, true, "", true},
		{Origin{}, false, "not confirmed by the user", true},
		{Origin{Via: "changed"}, false, "changed since the user accepted it, not confirmed", true},
		{Origin{By: Assistant, Project: "a"}, false, "the assistant's note, not confirmed by the user", false},
		{Origin{By: Assistant}, false, "the assistant's note, not confirmed by the user", true},
		{Origin{By: Repository}, false, "the repository's, committed by its authors", true},
		{Origin{By: Machine}, false, "synced from another machine, not confirmed here", true},
		{Origin{By: Curated}, false, "from Claude Code's memory, not reviewed", true},
		{Origin{By: Derived}, false, "drawn by ccmem from friction, not accepted", true},
		{Origin{By: "person-ish"}, false, "not confirmed by the user", true},
	} {
		if c.o.Standing() != c.standing || c.o.Label() != c.label || c.o.ShownIn("b") != c.inB {
			t.Errorf("%+v: standing %v label %q shown in b %v", c.o, c.o.Standing(), c.o.Label(), c.o.ShownIn("b"))
		}
		if !c.o.ShownIn("a") && c.o.By == Assistant {
			t.Errorf("%+v: not shown where it was written", c.o)
		}
	}
}

// TestLedgerAttests: a line is the person's only when attested, under any
// of its shapes; nobody else's record replaces an attestation; the person's
// replaces anyone's; a repository's lines are the repository's.
func TestLedgerAttests(t *testing.T) {
	e := env(t)
	mem := e.GlobalMemory()
	if o := Load(e).Line(mem, "- Never run npm install"); o.By != Unknown || o.Standing() {
		t.Fatalf("a line nothing says anything of: %+v", o)
	}
	if o := Load(e).Line("/src/shop/.claude/memory/MEMORY.md", "- Never run npm install"); o.By != Repository {
		t.Fatalf("a repository's line: %+v", o)
	}
	must(t, Attest(e, "cli", mem, "- Never run npm install"))
	for _, shape := range []string{"- Never run npm install", "* never run NPM install", "1. Never run npm install", "Never run npm install", "> - Never run npm install"} {
		if o := Load(e).Line(mem, shape); !o.Standing() || o.Via != "cli" {
			t.Errorf("%q: %+v", shape, o)
		}
	}
	if Load(e).Line(mem, "- Never run npm install -g").Standing() || Load(e).Line(filepath.Join(e.Store, "other.md"), "- Never run npm install").Standing() {
		t.Error("the attestation reaches another line or another file")
	}
	// Another machine's record does not replace it; the person's does
	// replace another's.
	must(t, Note(e, mem, []string{"* Never run npm install", "- yarn build is forbidden"}, Origin{By: Machine, Via: "sync"}))
	if !Load(e).Line(mem, "- Never run npm install").Standing() {
		t.Error("a sync's record replaced the person's attestation")
	}
	if o := Load(e).Line(mem, "yarn build is forbidden"); o.By != Machine {
		t.Errorf("the machine's line: %+v", o)
	}
	must(t, Note(e, mem, []string{"yarn build is forbidden"}, Origin{By: Assistant}))
	if o := Load(e).Line(mem, "yarn build is forbidden"); o.By != Machine {
		t.Errorf("a second record replaced the first: %+v", o)
	}
	must(t, Attest(e, "ui", mem, "- yarn build is forbidden"))
	if o := Load(e).Line(mem, "yarn build is forbidden"); !o.Standing() {
		t.Errorf("the person's acceptance: %+v", o)
	}
	// A repository's line stays the repository's, whatever is recorded.
	repoMem := "/src/shop/.claude/memory/MEMORY.md"
	must(t, Attest(e, "cli", repoMem, "- deploy on Fridays"))
	if o := Load(e).Line(repoMem, "- deploy on Fridays"); o.By != Repository {
		t.Errorf("a repository's line attested: %+v", o)
	}
	// Pending lists every line that states something and is not the
	// person's, whatever its shape.
	lines := []string{"# Rules", "- Never run npm install", "+ pnpm only", "3. no force pushes", "plain words", "", "> quoted", "## More"}
	var got []string
	for _, p := range Load(e).Pending(mem, lines) {
		got = append(got, fmt.Sprintf("%d:%s", p.Line, p.Origin.By))
	}
	if want := "3:,4:,5:,7:"; strings.Join(got, ",") != want {
		t.Errorf("pending %v, want %s", got, want)
	}
	// Revoked: the words are nobody's again.
	must(t, Revoke(e, mem, []string{"Never run npm install"}))
	if Load(e).Line(mem, "- Never run npm install").Standing() {
		t.Error("a revoked line still stands")
	}
}

// TestEntriesAttestTheirText: an entry is the person's for the text they
// accepted; a change to what it says or where it applies undoes that,
// bookkeeping does not; a sync's record replaces it.
func TestEntriesAttestTheirText(t *testing.T) {
	e := env(t)
	path := filepath.Join(e.LearnedDir(), "feedback", "tabs.md")
	write := func(s string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(path), 0o700))
		must(t, os.WriteFile(path, []byte(s), 0o600))
	}
	base := "---\nname: tabs\ndescription: tabs not spaces\ntype: feedback\nscope: project\nsource_cwd: /src/shop\n---\nUse tabs.\n\nWhy: the linter (High confidence).\n"
	write(base)
	if o := Load(e).Entry(path); o.Standing() {
		t.Fatalf("an entry nobody accepted: %+v", o)
	}
	must(t, AttestEntry(e, "cli", path))
	if o := Load(e).Entry(path); !o.Standing() {
		t.Fatalf("accepted: %+v", o)
	}
	for _, c := range []struct {
		name, text string
		stands     bool
	}{
		{"accepted_at added", strings.Replace(base, "scope:", "accepted_at: \"2026-11-01T00:00:00Z\"\nscope:", 1), true},
		{"confidence recounted", strings.Replace(base, "High", "Low", 1), true},
		{"spacing", strings.Replace(base, "Use tabs.", "Use   tabs.", 1), true},
		{"origin claimed", strings.Replace(base, "scope:", "origin: friction\nscope:", 1), true},
		{"description", strings.Replace(base, "tabs not spaces", "spaces not tabs", 1), false},
		{"rule", strings.Replace(base, "Use tabs.", "Use tabs; never run go vet.", 1), false},
		{"widened", strings.Replace(base, "scope: project\n", "", 1), false},
		{"moved", strings.Replace(base, "/src/shop", "/src/blog", 1), false},
		{"advisory", strings.Replace(base, "scope:", "advisory: true\nscope:", 1), false},
		{"type", strings.Replace(base, "type: feedback", "type: user", 1), false},
	} {
		write(c.text)
		if o := Load(e).Entry(path); o.Standing() != c.stands || !c.stands && o.Via != "changed" {
			t.Errorf("%s: %+v", c.name, o)
		}
	}
	write(base)
	must(t, NoteFile(e, Origin{By: Machine, Via: "sync"}, path))
	if o := Load(e).Entry(path); o.By != Machine {
		t.Errorf("rewritten by a sync: %+v", o)
	}
	if Digest([]byte("no frontmatter")) != "" {
		t.Error("a file that is no entry has a digest")
	}
}

// TestALedgerThatCannotBeReadAttestsNothing: not JSON, over its size,
// from a newer ccmem, or a version 1 ledger that claims the person: nothing
// stands, and nothing is written over it.
func TestALedgerThatCannotBeReadAttestsNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		data func() []byte
		err  bool
	}{
		{"not json", func() []byte { return []byte("{\"entries\": {") }, true},
		{"too big", func() []byte { return []byte(`{"version":2,"entries":{}}` + strings.Repeat(" ", maxLedger)) }, true},
		{"newer", func() []byte { return []byte(`{"version":3,"entries":{}}`) }, true},
		{"version 1 claims", func() []byte { return nil }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := env(t)
			mem := e.GlobalMemory()
			must(t, Attest(e, "cli", mem, "- Never run npm install"))
			data := c.data()
			if data == nil {
				// Rewritten as version 1, the attestation kept: a hand
				// forging "person" into an older ledger gains nothing.
				old, _ := os.ReadFile(Path(e))
				data = []byte(strings.Replace(string(old), `"version": 2`, `"version": 1`, 1))
			}
			must(t, os.WriteFile(Path(e), data, 0o600))
			l := Load(e)
			if (l.Err != nil) != c.err {
				t.Fatalf("Err %v", l.Err)
			}
			if l.Line(mem, "- Never run npm install").Standing() {
				t.Fatal("the ledger attests a line")
			}
			if !c.err {
				return
			}
			err := Attest(e, "cli", mem, "- another")
			if !errors.Is(err, ErrUnreadable) {
				t.Fatalf("an edit of an unreadable ledger: %v", err)
			}
			if after, _ := os.ReadFile(Path(e)); string(after) != string(data) {
				t.Fatal("the unreadable ledger was written over")
			}
			if Room(e) != 0 {
				t.Fatal("an unreadable ledger has room")
			}
		})
	}
}

// TestTheLedgerIsBounded: others' records stop at MaxLabels (the excess
// refused, nothing dropped); the person's attestations have their own
// room.
func TestTheLedgerIsBounded(t *testing.T) {
	e := env(t)
	mem := e.GlobalMemory()
	lines := make([]string, MaxLabels)
	for i := range lines {
		lines[i] = fmt.Sprintf("- flood line %d", i)
	}
	must(t, Note(e, mem, lines, Origin{By: Machine}))
	if Room(e) != 0 {
		t.Fatalf("room %d", Room(e))
	}
	if err := Note(e, mem, []string{"- one more"}, Origin{By: Assistant}); !errors.Is(err, ErrFull) {
		t.Fatalf("past the bound: %v", err)
	}
	if o := Load(e).Line(mem, "- flood line 7"); o.By != Machine {
		t.Fatalf("a label was dropped: %+v", o)
	}
	must(t, Attest(e, "cli", mem, "- my own fact"))
	if !Load(e).Line(mem, "my own fact").Standing() {
		t.Fatal("the person's word refused by others' flood")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
