package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestEveryKeyIsDocumented: each key a config file may hold, nested ones
// included, is in docs/configuration.md's list, so that a key added to
// Config cannot be left out of the page people read.
func TestEveryKeyIsDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(data)
	if block == nil {
		t.Fatal("docs/configuration.md has no yaml block")
	}
	// The documented keys, each with its parents' names: "guard.max_lines".
	documented := map[string]bool{}
	var parents []string
	key := regexp.MustCompile(`^( *)([a-z_]+):`)
	for _, line := range strings.Split(string(block[1]), "\n") {
		m := key.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		depth := len(m[1]) / 2
		parents = append(parents[:min(depth, len(parents))], m[2])
		documented[strings.Join(parents, ".")] = true
	}
	var walk func(typ reflect.Type, prefix string)
	walk = func(typ reflect.Type, prefix string) {
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !documented[prefix+name] {
				t.Errorf("config key %s%s is not in docs/configuration.md", prefix, name)
			}
			if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == typ.PkgPath() {
				walk(f.Type, prefix+name+".")
			}
		}
	}
	walk(reflect.TypeFor[Config](), "")

	// And the values shown are the defaults: the block, read as a config
	// file, is Default() (but for the compaction prompt, shortened there).
	got, unknown, err := applyConfig(Default(), block[1])
	if err != nil || len(unknown) > 0 {
		t.Fatalf("the documented block does not read as a config file: %v %v", err, unknown)
	}
	got.PreCompactInstructions = Default().PreCompactInstructions
	if !reflect.DeepEqual(got, Default()) {
		t.Errorf("docs/configuration.md shows values that are not the defaults:\n got %+v\nwant %+v", got, Default())
	}
}
