package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

const module = "github.com/ccmem/ccmem/"

// pkgs lists the module's packages with what each imports, tests
// included.
func pkgs(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		var own []string
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, module) {
				own = append(own, strings.TrimPrefix(imp, module))
			}
		}
		m[strings.TrimPrefix(f[0], module)] = own
	}
	return m
}

// layer names the layer of a package of the module: each may import its
// own and those below it, never one above.
func layer(p string) int {
	switch {
	case strings.HasPrefix(p, "internal/dev/"), p == "e2e", p == "testscripts", strings.HasPrefix(p, "scripts/"):
		return 5 // developer tooling and tests of the whole
	case strings.HasPrefix(p, "cmd/"), strings.HasPrefix(p, "hooks/"):
		return 4 // the binaries' mains
	case strings.HasPrefix(p, "internal/entry/"):
		return 3 // entry bodies: hooks, the command, the ui, the MCP server
	case strings.HasPrefix(p, "internal/service/"), p == "scripts":
		return 2 // services: install, settings, doctor, registration; the assets install writes
	case strings.HasPrefix(p, "pkg/"):
		return 1 // the library
	}
	return -1
}

// TestLayers: dependencies point one way — binaries → entry bodies →
// services → the library — and the library under pkg/ imports nothing
// from internal/, not even in its tests; no product package imports the
// developer tooling.
func TestLayers(t *testing.T) {
	for p, imps := range pkgs(t) {
		if layer(p) < 0 {
			t.Errorf("%s: in no layer (see layer in this test and docs/development.md)", p)
			continue
		}
		for _, imp := range imps {
			if strings.HasPrefix(p, "pkg/") && strings.HasPrefix(imp, "internal/") {
				t.Errorf("%s imports %s: the library imports nothing from internal/", p, imp)
			}
			if layer(imp) > layer(p) {
				t.Errorf("%s (layer %d) imports %s (layer %d), a layer above it", p, layer(p), imp, layer(imp))
			}
		}
	}
}

// TestHooksLinkOnlyWhatTheyNeed: a hook binary runs before every prompt
// and tool call; it links no installer, no settings editor, no slash
// command or other asset, no doctor, no developer tooling and no YAML
// library (ccmem's own small reader does), and nor does ccmem a YAML
// library (the status line starts it after every message).
func TestHooksLinkOnlyWhatTheyNeed(t *testing.T) {
	forbidden := []string{module + "internal/service/install", module + "internal/service/settings", module + "internal/service/doctor",
		module + "scripts", module + "internal/entry/cli", module + "internal/entry/ui", module + "internal/entry/mcp", module + "internal/dev/"}
	bins := []string{module + "cmd/ccmem"}
	for _, h := range claudecode.Hooks {
		bins = append(bins, module+"hooks/"+h.Binary)
	}
	for _, b := range bins {
		out, err := exec.Command("go", "list", "-deps", b).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", b, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.Contains(dep, "yaml") && !strings.HasSuffix(dep, "/yamlite") {
				t.Errorf("%s links %s", b, dep)
			}
			if !strings.HasPrefix(b, module+"hooks/") {
				continue
			}
			for _, f := range forbidden {
				if dep == f || strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f) {
					t.Errorf("%s links %s", b, dep)
				}
			}
		}
	}
}

// TestCodeMap: docs/development.md's code map names every package of
// the module, and no package that is not there.
func TestCodeMap(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "## Code map")
	if start < 0 {
		t.Fatal("docs/development.md has no Code map section")
	}
	section := doc[start:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:1+end]
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^((?:cmd|hooks|internal|pkg|scripts|e2e|testscripts)[a-z0-9/_-]*?)/?\s`).FindAllStringSubmatch(section, -1) {
		named[strings.TrimSuffix(m[1], "/")] = true
	}
	var have []string
	for p := range pkgs(t) {
		have = append(have, p)
		if !named[p] {
			t.Errorf("docs/development.md's code map does not name %s", p)
		}
	}
	for p := range named {
		if !slices.Contains(have, p) {
			t.Errorf("docs/development.md's code map names %s, which is no package", p)
		}
	}
}

// chains are what each hook binary may link of ccmem: the common start
// (plumbing, the contract, the store, configuration, the session record),
// then its own chain. No hook links a database reader (opencode's store
// is read by pkg/opencodestore, which only pkg/importer links: see
// neverInHooks). A turn's end (stop, precompact) links no search, no index
// and no learned memory: it only records.
var chains = func() map[string][]string {
	common := []string{"internal/entry/hookio", "pkg/checkpoint", "pkg/claudecode", "pkg/config", "pkg/episode", "pkg/friction",
		"pkg/jsonread", "pkg/lazyregexp", "pkg/proc", "pkg/redact", "pkg/session", "pkg/store", "pkg/textfmt", "pkg/transcript", "pkg/triage", "pkg/yamlite"}
	// The memory a session is told links the person's rules (pkg/guard):
	// recall does not repeat what one of them already says.
	// The hooks Gemini CLI runs under its own event names read its input in
	// Claude Code's words (pkg/geminicli); a turn's end needs none of it.
	memory := []string{"pkg/memory", "pkg/inject", "pkg/syncstate", "pkg/geminicli", "pkg/learn", "pkg/lexicon", "pkg/provenance", "pkg/records", "pkg/search", "pkg/frontmatter", "pkg/profiles", "pkg/guard", "pkg/stale"}
	// Only the hooks around tool calls link the point of action.
	action := []string{"pkg/memory/action", "internal/entry/hooks/tool"}
	with := func(lists ...[]string) []string { return slices.Concat(append([][]string{common}, lists...)...) }
	return map[string][]string{
		"stop":               with([]string{"internal/entry/hooks/capture"}),
		"precompact":         with([]string{"internal/entry/hooks/capture"}),
		"sessionstart":       with(memory, []string{"internal/entry/hooks/start"}),
		"userpromptsubmit":   with(memory, []string{"internal/entry/hooks/prompt"}),
		"pretooluse":         with(memory, action),
		"posttoolusefailure": with(memory, action),
		"subagentstart":      with(memory, action),
	}
}()

// neverInHooks are packages no hook may link, whatever its chain: the
// database reader, the importers and the installers (issue 49).
var neverInHooks = []string{"pkg/sqlitefile", "pkg/opencodestore", "pkg/importer", "pkg/codexcli", "internal/service/install"}

// TestEachHookLinksOnlyItsChain: each hook binary links, of ccmem, only
// its chain (go list -deps against an allow-list): a package added to a
// hook's chain is a decision, made here, never a side effect of an import.
func TestEachHookLinksOnlyItsChain(t *testing.T) {
	for _, h := range claudecode.Hooks {
		allowed, ok := chains[h.Binary]
		if !ok {
			t.Errorf("hook %s has no allow-list here", h.Binary)
			continue
		}
		out, err := exec.Command("go", "list", "-deps", module+"hooks/"+h.Binary).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps: %v\n%s", err, out)
		}
		own := 0
		for _, dep := range strings.Fields(string(out)) {
			p, ok := strings.CutPrefix(dep, module)
			if !ok {
				continue
			}
			if own++; p == "hooks/"+h.Binary {
				continue
			}
			if slices.Contains(neverInHooks, p) {
				t.Errorf("%s links %s, which no hook may link", h.Binary, p)
			} else if !slices.Contains(allowed, p) {
				t.Errorf("%s links %s, which is not in its chain", h.Binary, p)
			}
		}
		if most, ok := mostPackages[h.Binary]; ok && own > most {
			t.Errorf("%s links %d of the module's packages (its main included), more than %d", h.Binary, own, most)
		}
	}
}

// mostPackages bounds how many of the module's packages a turn's end
// links, its main included (issue 49: stop and precompact ≤ 18).
var mostPackages = map[string]int{"stop": 18, "precompact": 18}
