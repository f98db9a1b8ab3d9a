// Command releasepin pins a release's archive checksums in the plugin:
// from dist/SHA256SUMS (what `make release-snapshot` builds, reproducibly)
// it writes .claude-plugin/release.sha256, the file the plugin's launcher
// checks a downloaded archive against, so a release server can serve
// nothing the plugin did not pin. With -check it compares instead and
// fails when the two differ (the release workflow runs it before
// publishing). `make release-pin` runs it.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Targets are the six systems a release serves archives for.
var Targets = []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64", "windows_amd64", "windows_arm64"}

func main() {
	dist := flag.String("dist", "dist", "the folder goreleaser wrote")
	out := flag.String("o", ".claude-plugin/release.sha256", "the pin file")
	check := flag.Bool("check", false, "compare the pin file with dist instead of writing it")
	flag.Parse()
	if err := run(*dist, *out, *check); err != nil {
		fmt.Fprintln(os.Stderr, "releasepin:", err)
		os.Exit(1)
	}
}

var sumLine = regexp.MustCompile(`^([0-9a-f]{64})  (\S+)$`)

func run(dist, out string, check bool) error {
	version, err := pluginVersion()
	if err != nil {
		return err
	}
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		return fmt.Errorf("%v (hint: make release-snapshot builds it)", err)
	}
	have, err := readSums(sums)
	if err != nil {
		return fmt.Errorf("%s/SHA256SUMS: %v", dist, err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# ccmem v%s\n", version)
	fmt.Fprintf(&b, "# The SHA-256 of each release archive, pinned in the plugin: hooks/run checks a\n")
	fmt.Fprintf(&b, "# download against this file, never against what the server sends. Written by\n")
	fmt.Fprintf(&b, "# make release-pin from a reproducible build; the release workflow checks it.\n")
	for _, t := range Targets {
		ext := ".tar.gz"
		if strings.HasPrefix(t, "windows") {
			ext = ".zip"
		}
		name := "ccmem_v" + version + "_" + t + ext
		sum, ok := have[name]
		if !ok {
			return fmt.Errorf("%s is not in %s/SHA256SUMS (built for another version?)", name, dist)
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, name)
	}
	if check {
		old, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		if !slices.Equal(pins(old), pins(b.Bytes())) {
			return fmt.Errorf("%s does not pin what was built: the archives differ from the pinned ones (hint: make release-pin, commit, tag again)", out)
		}
		fmt.Printf("releasepin: the six archives of v%s are the ones %s pins\n", version, out)
		return nil
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("releasepin: %s pins the six archives of v%s\n", out, version)
	return nil
}

// readSums reads SHA256SUMS: an archive named twice with two sums is an
// error (which one was built?), never the later one taken.
func readSums(data []byte) (map[string]string, error) {
	have := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		m := sumLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if old, ok := have[m[2]]; ok && old != m[1] {
			return nil, fmt.Errorf("%s is listed twice, with two different sums", m[2])
		}
		have[m[2]] = m[1]
	}
	return have, nil
}

// pins are the checksum lines of a pin file, with its version line.
func pins(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if sumLine.MatchString(l) || strings.HasPrefix(l, "# ccmem v") {
			out = append(out, l)
		}
	}
	return out
}

func pluginVersion() (string, error) {
	data, err := os.ReadFile(".claude-plugin/plugin.json")
	if err != nil {
		return "", err
	}
	var m struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &m); err != nil || m.Version == "" {
		return "", fmt.Errorf(".claude-plugin/plugin.json has no version: %v", err)
	}
	return m.Version, nil
}
