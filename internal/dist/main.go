// Command dist is `make dist`: it cross-compiles ccmem and its hook
// binaries for every supported target and writes one release archive per
// target into a folder (default dist/): .tar.gz, or .zip for Windows, each
// holding a folder with ccmem and the hook binaries (".exe" on Windows),
// README.md and LICENSE, plus SHA256SUMS. Archives are reproducible: fixed
// file times and order. Unpack one and run `./ccmem install`: install
// copies the hooks from beside itself. Needs only Go.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Targets are the release targets.
var targets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// Binaries are the main packages in an archive, by file name (the module
// lists its hooks in hooks/).
var binaries = []struct{ name, pkg string }{
	{"ccmem", "./cmd/ccmem"},
	{"sessionstart", "./hooks/sessionstart"},
	{"userpromptsubmit", "./hooks/userpromptsubmit"},
	{"stop", "./hooks/stop"},
	{"precompact", "./hooks/precompact"},
	{"pretooluse", "./hooks/pretooluse"},
	{"posttoolusefailure", "./hooks/posttoolusefailure"},
	{"subagentstart", "./hooks/subagentstart"},
}

// stamp is every archived file's time, so archives are reproducible.
var stamp = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func main() {
	out := flag.String("o", "dist", "the `folder` to write the archives into")
	version := flag.String("version", "", "the release `version` (default: from git, else devel)")
	only := flag.String("targets", "", "comma-separated os/arch `list` (default: all six)")
	flag.Parse()
	if err := run(*out, *version, *only); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(out, version, only string) error {
	if version == "" {
		version = gitVersion()
	}
	list := targets
	if only != "" {
		list = strings.Split(only, ",")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	build, err := os.MkdirTemp("", "ccmem-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(build)
	docs := map[string][]byte{}
	for _, name := range []string{"README.md", "LICENSE"} {
		if docs[name], err = os.ReadFile(name); err != nil {
			return err
		}
	}
	var sums []string
	for i, t := range list {
		goos, goarch, ok := strings.Cut(t, "/")
		if !ok {
			return fmt.Errorf("bad target %q (want os/arch)", t)
		}
		fmt.Fprintf(os.Stderr, "dist: [%d/%d] building %s\n", i+1, len(list), t)
		name := fmt.Sprintf("ccmem_%s_%s_%s", version, goos, goarch)
		files := map[string][]byte{}
		for n, d := range docs {
			files[n] = d
		}
		for _, b := range binaries {
			file := b.name
			if goos == "windows" {
				file += ".exe"
			}
			path := filepath.Join(build, name, file)
			cmd := exec.Command("go", "build", "-trimpath", "-ldflags",
				"-s -w -X github.com/ccmem/ccmem/internal/version.version="+version, "-o", path, b.pkg)
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
			if msg, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("building %s for %s: %v\n%s", b.name, t, err, msg)
			}
			if files[file], err = os.ReadFile(path); err != nil {
				return err
			}
		}
		archive, data := name+".tar.gz", []byte(nil)
		if goos == "windows" {
			archive = name + ".zip"
			data, err = zipArchive(name, files)
		} else {
			data, err = tarArchive(name, files)
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, archive), data, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		sums = append(sums, hex.EncodeToString(sum[:])+"  "+archive)
	}
	slices.SortFunc(sums, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	if err := os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(strings.Join(sums, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "dist: %d archives and SHA256SUMS in %s\n", len(list), out)
	return nil
}

// mode is an archived file's permission bits.
func mode(name string) int64 {
	if name == "README.md" || name == "LICENSE" {
		return 0o644
	}
	return 0o755
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func tarArchive(dir string, files map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: dir + "/", Mode: 0o755, ModTime: stamp, Typeflag: tar.TypeDir, Format: tar.FormatPAX}); err != nil {
		return nil, err
	}
	for _, n := range sortedNames(files) {
		data := files[n]
		if err := tw.WriteHeader(&tar.Header{Name: dir + "/" + n, Mode: mode(n), Size: int64(len(data)), ModTime: stamp, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func zipArchive(dir string, files map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range sortedNames(files) {
		h := &zip.FileHeader{Name: dir + "/" + n, Method: zip.Deflate, Modified: stamp}
		h.SetMode(os.FileMode(mode(n)))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := io.Copy(w, bytes.NewReader(files[n])); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// gitVersion is `git describe` of the source, else "devel".
func gitVersion() string {
	out, err := exec.Command("git", "describe", "--tags", "--always", "--dirty").Output()
	if v := strings.TrimSpace(string(out)); err == nil && v != "" {
		return v
	}
	return "devel"
}
