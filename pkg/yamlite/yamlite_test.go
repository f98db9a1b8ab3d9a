package yamlite

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// samples are documents as ccmem's config files and memory frontmatter
// have them, and the YAML around them people write.
var samples = []string{
	"",
	"# only a comment\n",
	"enabled: false\n",
	"budget_chars: 9500\ncaps:\n  global: 200\n  learned: 40\n",
	"recall:\n  sources: [user, schedule_wakeup]\n",
	"recall:\n  sources:\n    - user\n    - sdk\n",
	"recall:\n  sources:\n  - user\n  - sdk\n",
	"guard:\n  tools: [Bash, Edit]   # a comment\n  max_lines: 2\n",
	"records:\n  categories:\n    tech_debt: {retention_days: 180}\n    session_summary: {enabled: false}\n",
	"records:\n  categories: {}\n",
	"precompact_instructions: >-\n  When summarising, keep: every decision with its reason;\n  the user's corrections.\n",
	"text: |\n  line one\n  line two\n\n  after a blank\n",
	"text: |-\n  kept\n    indented\n",
	"text: |+\n  kept\n\n",
	"text: >\n  folded\n  line\n\n  para\n",
	"deadline: 4s\norphan_after: 30m\n",
	"name: user-role\ndescription: The user is a backend engineer who prefers terse answers\nmetadata:\n  type: user\n",
	"name: x\ndescription: \"quoted: with colon\"\ntype: feedback\n",
	"name: 'single ''quoted'''\ndescription: plain with # not a comment\n",
	"description: a value # and a comment\n",
	"source_cwd: \"/home/dev/src/shop\"\nsources:\n  - \"/a/b.md\"\n  - \"/c/d.md\"\n",
	"n: 0x1F\no: 0o17\nf: 1.5\ne: 1e3\nneg: -7\nu: 1_000\nb: true\nnul: ~\nemp:\n",
	"key with spaces: value\n\"quoted key\": 1\n",
	"list:\n  - name: a\n    value: 1\n  - name: b\n    value: 2\n",
	"nested:\n  - - a\n    - b\n  - [c, d]\n",
	"map: {a: 1, b: [x, y], c: {d: e}}\n",
	"desc: a long plain value\n  that continues here\n",

	"---\nname: after a marker\n",
	"unicode: \"caf\\u00e9 \\U0001F600\"\n",
	"triage:\n  thresholds:\n    decision: 0.4\n",
	"x: yes\ny: no\nz: on\n",
	"empty_list: []\nempty_map: {}\n",
	"a:\n  b:\n    c:\n      d: deep\n",
	"url: http://example.com:8080/x\n",
	"time: 12:30\n",
}

// normal makes yaml.v3's output comparable: timestamps are strings in
// yamlite (it does not resolve them), map keys strings.
func normal(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normal(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normal(e)
		}
		return out
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
	}
	return v
}

func hasTime(v any) bool {
	switch x := v.(type) {
	case time.Time:
		return true
	case map[string]any:
		for _, e := range x {
			if hasTime(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasTime(e) {
				return true
			}
		}
	}
	return false
}

// agree checks one document: where yamlite accepts it, yaml.v3 reads the
// same values; where yaml.v3 refuses it, so does yamlite.
func agree(t *testing.T, doc string) {
	t.Helper()
	n, err := Parse([]byte(doc))
	var want any
	werr := yaml.Unmarshal([]byte(doc), &want)
	if err != nil {
		return // refusing more than yaml.v3 is allowed: ccmem says which line
	}
	if werr != nil {
		t.Errorf("yamlite read what yaml.v3 refuses (%v):\n%s\ngot %#v", werr, doc, n.Interface())
		return
	}
	if hasTime(want) {
		return
	}
	got := n.Interface()
	if want == nil && got == nil {
		return
	}
	if !reflect.DeepEqual(normal(got), normal(want)) {
		t.Errorf("document:\n%s\nyamlite: %#v\nyaml.v3: %#v", doc, normal(got), normal(want))
	}
}

func TestAgreesWithYAMLv3(t *testing.T) {
	for _, s := range samples {
		if _, err := Parse([]byte(s)); err != nil {
			t.Errorf("refused:\n%s\n%v", s, err)
		}
		agree(t, s)
	}
	// The embedded default config, and the sample silos' memory files.
	def, err := os.ReadFile("../../pkg/config/default-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	agree(t, string(def))
	if _, err := Parse(def); err != nil {
		t.Fatalf("the default config: %v", err)
	}
	files, _ := filepath.Glob("../../../shared/fixtures/silos/projects/*/memory/*.md")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		s := string(data)
		if !strings.HasPrefix(s, "---\n") {
			continue
		}
		front, _, _ := strings.Cut(s[4:], "\n---")
		agree(t, front+"\n")
	}
}

func TestRefusesWhatItDoesNotRead(t *testing.T) {
	for _, s := range []string{
		"a: &x 1\nb: *x\n",
		"a: !!str 1\n",
		"? complex\n: key\n",
		"a: 1\n---\nb: 2\n",
		"a: 1\na: 2\n",
		"a:\n\t- tab\n",
		"a: [1, 2\n",
		"a: \"open\n",
		"%YAML 1.2\n---\na: 1\n",
		"a: 1\n  b: 2\n",
		"colon_end: value:\n",
	} {
		if _, err := Parse([]byte(s)); err == nil {
			t.Errorf("accepted:\n%s", s)
		} else if !strings.HasPrefix(err.Error(), "line ") {
			t.Errorf("an error without its line: %v", err)
		}
	}
}

// FuzzAgainstYAMLv3: on any input yamlite does not panic, and what it
// accepts yaml.v3 reads to the same values.
func FuzzAgainstYAMLv3(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		agree(t, doc)
	})
}
