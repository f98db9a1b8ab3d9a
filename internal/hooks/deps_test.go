package hooks

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/install"
)

// TestHooksLinkNoYAMLLibrary: the hooks run before every prompt and tool
// call; a YAML library's start-up alone cost a fifth of one. They read
// config and frontmatter with internal/yamlite; none may link yaml.v3
// (nor may ccmem, which the status line starts after every message).
func TestHooksLinkNoYAMLLibrary(t *testing.T) {
	pkgs := []string{"../../cmd/ccmem"}
	for _, h := range install.Hooks {
		pkgs = append(pkgs, "../../hooks/"+h.Binary)
	}
	for _, p := range pkgs {
		out, err := exec.Command("go", "list", "-deps", p).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", p, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.Contains(dep, "yaml") && !strings.HasSuffix(dep, "/yamlite") {
				t.Errorf("%s links %s", p, dep)
			}
		}
	}
}
