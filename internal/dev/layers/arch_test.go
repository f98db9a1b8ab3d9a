package layers

import (
	"go/build/constraint"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// archs are the GOARCH values a file name or build tag could name.
var archs = []string{"386", "amd64", "arm", "arm64", "loong64", "mips", "mips64", "mips64le", "mipsle", "ppc64", "ppc64le", "riscv64", "s390x", "wasm"}

// TestNoFileIsBuiltForAnArchitecture: ccmem's files are built for an OS,
// never for an architecture — which is why scripts/cross.sh builds one
// architecture per OS. A file that needs one fails here, and the cross
// targets must grow with it.
func TestNoFileIsBuiltForAnArchitecture(t *testing.T) {
	for _, path := range goFiles(t) {
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".go"), "_test")
		for _, a := range archs {
			if strings.HasSuffix(base, "_"+a) {
				t.Errorf("%s is built for %s only", path, a)
			}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if !constraint.IsGoBuild(line) {
				continue
			}
			expr, err := constraint.Parse(line)
			if err != nil {
				continue
			}
			expr.Eval(func(tag string) bool {
				for _, a := range archs {
					if tag == a {
						t.Errorf("%s has a build tag for %s", path, a)
					}
				}
				return true
			})
		}
	}
}
