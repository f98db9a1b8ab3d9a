package e2e

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// archiveFiles lists the files of a release archive (path → content).
func archiveFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			out[f.Name] = b
		}
		return out
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			b, _ := io.ReadAll(tr)
			out[h.Name] = b
			if h.Mode&0o111 == 0 && !strings.HasSuffix(h.Name, ".md") && !strings.HasSuffix(h.Name, "LICENSE") {
				t.Errorf("%s: %s is not executable (mode %o)", filepath.Base(path), h.Name, h.Mode)
			}
		}
	}
	return out
}

// TestReleaseArchives: `make dist` writes six archives, each with ccmem,
// the three hook binaries, README.md and LICENSE, and SHA256SUMS that
// verify. The archive for this machine, unpacked and installed with a PATH
// that has no Go, gives the next session its memory block.
func TestReleaseArchives(t *testing.T) {
	w := newBareWorld(t, nil)
	dist := t.TempDir()
	cmd := exec.Command("go", "run", "./internal/dist", "-o", dist, "-version", "v0.0.0-e2e")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, out)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	var archives []string
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", line)
		}
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		got := sha256.Sum256(data)
		if hex.EncodeToString(got[:]) != sum {
			t.Fatalf("%s: checksum does not verify", name)
		}
		archives = append(archives, name)
	}
	var want []string
	for _, t := range []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64", "windows_amd64", "windows_arm64"} {
		ext := ".tar.gz"
		if strings.HasPrefix(t, "windows") {
			ext = ".zip"
		}
		want = append(want, "ccmem_v0.0.0-e2e_"+t+ext)
	}
	if !slices.Equal(archives, want) {
		t.Fatalf("archives %v, want %v", archives, want)
	}
	for _, a := range archives {
		top := strings.TrimSuffix(strings.TrimSuffix(a, ".zip"), ".tar.gz")
		exe := ""
		if strings.Contains(a, "windows") {
			exe = ".exe"
		}
		files := archiveFiles(t, filepath.Join(dist, a))
		var names []string
		for n := range files {
			names = append(names, n)
		}
		slices.Sort(names)
		var wantNames []string
		for _, n := range []string{"LICENSE", "README.md", "ccmem" + exe, "precompact" + exe, "sessionstart" + exe, "stop" + exe, "userpromptsubmit" + exe,
			"pretooluse" + exe, "posttoolusefailure" + exe, "subagentstart" + exe} {
			wantNames = append(wantNames, top+"/"+n)
		}
		slices.Sort(wantNames)
		if !slices.Equal(names, wantNames) {
			t.Fatalf("%s holds %v, want %v", a, names, wantNames)
		}
	}

	// Install from the archive for this machine, with no Go on PATH.
	host := fmt.Sprintf("ccmem_v0.0.0-e2e_%s_%s", runtime.GOOS, runtime.GOARCH)
	unpacked := filepath.Join(t.TempDir(), "download")
	for name, data := range archiveFiles(t, filepath.Join(dist, host+".tar.gz")) {
		path := filepath.Join(unpacked, name)
		w.write(path, string(data))
		os.Chmod(path, 0o755)
	}
	noGo := "/usr/bin:/bin"
	if p, err := lookPathIn("go", noGo); err == nil {
		t.Fatalf("go is on the test's bare PATH at %s", p)
	}
	w.path = noGo // from here on, no Go for anything
	install := exec.Command("./ccmem", "install")
	install.Dir = filepath.Join(unpacked, host)
	install.Env = w.env()
	out, err := install.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ccmem is installed") {
		t.Fatalf("./ccmem install from the archive: %v\n%s", err, out)
	}
	if v, err := exec.Command(filepath.Join(w.home, ".local", "bin", "ccmem"), "version").Output(); err != nil || string(v) != "ccmem v0.0.0-e2e\n" {
		t.Fatalf("installed ccmem version: %q %v", v, err)
	}
	w.write(filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md"), "- archive-global-fact\n")
	w.claude("-p", "hello")
	if block := w.onlyInjection(0); !strings.Contains(block, "archive-global-fact") {
		t.Fatalf("no memory block after installing from the archive:\n%s", block)
	}
}

// lookPathIn is exec.LookPath with PATH set to path.
func lookPathIn(file, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
