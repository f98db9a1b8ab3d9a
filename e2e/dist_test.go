package e2e

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ccmem/ccmem/pkg/claudecode"
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
			base := strings.TrimSuffix(filepath.Base(h.Name), ".exe")
			if h.Mode&0o111 == 0 && (base == "ccmem" || slices.Contains(hookNames, base)) {
				t.Errorf("%s: %s is not executable (mode %o)", filepath.Base(path), h.Name, h.Mode)
			}
		}
	}
	return out
}

var (
	snapshotOnce sync.Once
	snapshotDir  string
	snapshotErr  error
)

// releaseSnapshot runs `make release-snapshot` once (goreleaser, pinned in
// tools/go.mod) and returns its dist folder.
func releaseSnapshot(t *testing.T) string {
	t.Helper()
	releaseSnapshotOnce()
	if snapshotErr != nil {
		t.Fatal(snapshotErr)
	}
	return snapshotDir
}

// releaseSnapshotOnce builds the release snapshot, once: the first caller
// builds it, the others wait for it.
func releaseSnapshotOnce() {
	snapshotOnce.Do(func() {
		cmd := exec.Command("make", "release-snapshot")
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		if err != nil {
			snapshotErr = fmt.Errorf("make release-snapshot: %v\n%s", err, out)
			return
		}
		snapshotDir, snapshotErr = filepath.Abs("../dist")
	})
}

// hookNames are the binaries beside ccmem in an archive and in
// /usr/lib/ccmem in a package: the seven hooks and ccmem-ui.
var hookNames = append(claudecode.Binaries(), "ccmem-ui")

// TestReleaseSnapshot: `make release-snapshot` (goreleaser) writes six
// archives, each with ccmem, the seven hooks, ccmem-ui, README.md, LICENSE and NOTICE, the
// binaries executable and of the plugin's version; SHA256SUMS that verify
// every artifact; .deb, .rpm and .apk packages with ccmem in /usr/bin and
// the hooks in /usr/lib/ccmem; a Homebrew formula and a Scoop manifest
// naming the archives and their checksums. The archive for this machine,
// unpacked and installed with a PATH that has no Go, gives the next
// session its memory block.
func TestReleaseSnapshot(t *testing.T) {
	// Long (a release build, a long history): run beside the others.
	t.Parallel()
	w := newBareWorld(t, nil)
	dist := releaseSnapshot(t)
	version := pluginVersion(t)
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	sumOf := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", line)
		}
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
			t.Fatalf("%s: checksum does not verify", name)
		}
		sumOf[name] = sum
	}
	var archives []string
	for _, target := range []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64", "windows_amd64", "windows_arm64"} {
		ext := ".tar.gz"
		if strings.HasPrefix(target, "windows") {
			ext = ".zip"
		}
		a := "ccmem_v" + version + "_" + target + ext
		if sumOf[a] == "" {
			t.Fatalf("no %s in SHA256SUMS: %v", a, sumOf)
		}
		archives = append(archives, a)
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
		wantNames := []string{top + "/LICENSE", top + "/NOTICE", top + "/README.md", top + "/ccmem" + exe}
		for _, h := range hookNames {
			wantNames = append(wantNames, top+"/"+h+exe)
		}
		slices.Sort(wantNames)
		if !slices.Equal(names, wantNames) {
			t.Fatalf("%s holds %v, want %v", a, names, wantNames)
		}
		if !bytes.Contains(files[top+"/ccmem"+exe], []byte("v"+version)) {
			t.Errorf("%s: ccmem does not carry the version v%s", a, version)
		}
		if readme, _ := os.ReadFile("../README.md"); !bytes.Equal(files[top+"/README.md"], readme) {
			t.Errorf("%s: README.md is not the repository's", a)
		}
	}
	for _, arch := range []string{"amd64", "arm64"} {
		for _, format := range []string{"deb", "rpm", "apk"} {
			pkg := fmt.Sprintf("ccmem_%s_linux_%s.%s", version, arch, format)
			if sumOf[pkg] == "" {
				t.Errorf("no %s in SHA256SUMS", pkg)
			}
		}
		if deb, err := exec.Command("dpkg-deb", "-c", filepath.Join(dist, fmt.Sprintf("ccmem_%s_linux_%s.deb", version, arch))).Output(); err == nil {
			for _, f := range append([]string{"./usr/bin/ccmem"}, prefixed("./usr/lib/ccmem/", hookNames)...) {
				if !regexp.MustCompile(`(?m)^-rwxr-xr-x \S+ +\d+ \S+ \S+ ` + regexp.QuoteMeta(f) + `$`).Match(deb) {
					t.Errorf("the %s .deb lacks %s (mode 0755):\n%s", arch, f, deb)
				}
			}
		} else {
			t.Errorf("dpkg-deb -c: %v (Debian's dpkg is needed to check the .deb)", err)
		}
		apk := archiveFiles(t, filepath.Join(dist, fmt.Sprintf("ccmem_%s_linux_%s.apk", version, arch)))
		for _, f := range append([]string{"usr/bin/ccmem"}, prefixed("usr/lib/ccmem/", hookNames)...) {
			if _, ok := apk[f]; !ok {
				t.Errorf("the %s .apk lacks %s", arch, f)
			}
		}
	}
	formula, err := os.ReadFile(filepath.Join(dist, "homebrew", "Formula", "ccmem.rb"))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(dist, "scoop", "ccmem.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range archives {
		switch {
		case strings.Contains(a, "darwin") || strings.Contains(a, "linux"):
			if !bytes.Contains(formula, []byte(a)) || !bytes.Contains(formula, []byte(sumOf[a])) {
				t.Errorf("the Homebrew formula does not name %s with its checksum", a)
			}
		case strings.Contains(a, "windows"):
			if !bytes.Contains(manifest, []byte(a)) || !bytes.Contains(manifest, []byte(sumOf[a])) {
				t.Errorf("the Scoop manifest does not name %s with its checksum", a)
			}
		}
	}

	// Install from the archive for this machine, with no Go on PATH.
	host := fmt.Sprintf("ccmem_v%s_%s_%s", version, runtime.GOOS, runtime.GOARCH)
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
	if v, err := exec.Command(filepath.Join(w.home, ".local", "bin", "ccmem"), "version").Output(); err != nil || string(v) != "ccmem v"+version+"\n" {
		t.Fatalf("installed ccmem version: %q %v", v, err)
	}
	w.write(filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md"), "- archive-global-fact\n")
	w.claude("-p", "hello")
	if block := w.onlyInjection(0); !strings.Contains(block, "archive-global-fact") {
		t.Fatalf("no memory block after installing from the archive:\n%s", block)
	}
	cleanDoctor(t, w, "the archive")
}

// cleanDoctor runs the installed `ccmem doctor`, with ~/.local/bin on PATH
// as install advises, and fails unless it finds nothing wrong: each of the
// README's routes ends here (issue 51).
func cleanDoctor(t *testing.T, w *world, route string) {
	t.Helper()
	// The test wrote the memory file itself; ccmem writes it private.
	os.Chmod(filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md"), 0o600)
	doctor := exec.Command(filepath.Join(w.home, ".local", "bin", "ccmem"), "doctor")
	doctor.Env, doctor.Dir = append(w.env(), "PATH="+filepath.Join(w.home, ".local", "bin")+":/usr/bin:/bin"), w.project
	if out, err := doctor.CombinedOutput(); err != nil || strings.Contains(string(out), "FAIL") {
		t.Errorf("ccmem doctor after installing from %s: %v\n%s", route, err, out)
	}
}

// TestDebInstallsIntoAThrowawayRoot: the .deb, installed with the real
// dpkg into a root of its own (its own admin folder: the machine's /usr is
// never touched), gives a user who runs its `ccmem install` a memory
// block in a real session; removing the package with dpkg leaves the
// user's memory where it was.
func TestDebInstallsIntoAThrowawayRoot(t *testing.T) {
	// Long (a release build, a long history): run beside the others.
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("dpkg and .deb packages are Debian's: Linux only")
	}
	dpkg, err := exec.LookPath("dpkg")
	if err != nil {
		t.Fatalf("dpkg is needed to install the .deb and is not installed (Debian's dpkg): %v", err)
	}
	w := newBareWorld(t, nil)
	dist := releaseSnapshot(t)
	deb := filepath.Join(dist, fmt.Sprintf("ccmem_%s_linux_%s.deb", pluginVersion(t), runtime.GOARCH))
	root := filepath.Join(t.TempDir(), "root")
	admin := filepath.Join(root, "var", "lib", "dpkg")
	for _, d := range []string{filepath.Join(admin, "info"), filepath.Join(admin, "updates"), filepath.Join(admin, "triggers")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.write(filepath.Join(admin, "status"), "")
	dpkgRun := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(dpkg, append([]string{"--root=" + root, "--admindir=" + admin, "--force-not-root", "--force-script-chrootless", "--log=" + filepath.Join(root, "dpkg.log")}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("dpkg %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	dpkgRun("--install", deb)
	ccmem := filepath.Join(root, "usr", "bin", "ccmem")
	for _, h := range hookNames {
		if fi, err := os.Stat(filepath.Join(root, "usr", "lib", "ccmem", h)); err != nil || fi.Mode()&0o111 == 0 {
			t.Fatalf("the package did not install %s executable: %v", h, err)
		}
	}
	// As a user: ccmem install, then a session.
	install := exec.Command(ccmem, "install")
	install.Env = w.env()
	if out, err := install.CombinedOutput(); err != nil || !strings.Contains(string(out), "ccmem is installed") {
		t.Fatalf("ccmem install from the package: %v\n%s", err, out)
	}
	memory := filepath.Join(w.home, ".claude", "ccmem", "MEMORY.md")
	w.write(memory, "- packaged-global-fact\n")
	w.claude("-p", "hello")
	if block := w.onlyInjection(0); !strings.Contains(block, "packaged-global-fact") {
		t.Fatalf("no memory block after installing the package:\n%s", block)
	}
	cleanDoctor(t, w, "the package")
	// Removal: the package's files go; the user's memory stays.
	dpkgRun("--remove", "ccmem")
	if _, err := os.Stat(ccmem); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("dpkg --remove left %s: %v", ccmem, err)
	}
	if data, err := os.ReadFile(memory); err != nil || !strings.Contains(string(data), "packaged-global-fact") {
		t.Fatalf("the user's memory did not survive the removal: %q %v", data, err)
	}
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
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

// TestPinnedReleaseIsFetched: the release as goreleaser builds it, pinned
// by make release-pin's program, is what the plugin's launcher downloads,
// verifies and runs; the same archive served with a byte changed is not.
func TestPinnedReleaseIsFetched(t *testing.T) {
	// Long (a release build, a long history): run beside the others.
	t.Parallel()
	w := newBareWorld(t, nil)
	dist := releaseSnapshot(t)
	version := pluginVersion(t)
	plug := pluginCopy(t, false)
	pin := filepath.Join(plug, ".claude-plugin", "release.sha256")
	cmd := exec.Command("go", "run", "./scripts/releasepin", "-dist", dist, "-o", pin)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("releasepin: %v\n%s", err, out)
	}
	archive := fmt.Sprintf("ccmem_v%s_%s_%s.tar.gz", version, runtime.GOOS, runtime.GOARCH)
	data, err := os.ReadFile(filepath.Join(dist, archive))
	if err != nil {
		t.Fatal(err)
	}
	tamper := true
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v"+version+"/"+archive {
			http.NotFound(rw, r)
			return
		}
		if tamper {
			rw.Write(append(append([]byte{}, data[:len(data)-1]...), data[len(data)-1]^1))
			return
		}
		rw.Write(data)
	}))
	defer srv.Close()
	fetch := func() string {
		t.Helper()
		c := exec.Command("sh", filepath.Join(plug, "hooks", "run"), "--fetch")
		c.Env = append(w.env(), "CLAUDE_PLUGIN_DATA="+filepath.Join(w.home, "plugin-data"), "CCMEM_RELEASE_URL="+srv.URL)
		c.Run()
		failed, _ := os.ReadFile(filepath.Join(w.home, "plugin-data", "v"+version+".failed"))
		return string(failed)
	}
	if f := fetch(); !strings.Contains(f, "does not match the SHA-256 the plugin pins") {
		t.Fatalf("a changed archive: %q", f)
	}
	os.Remove(filepath.Join(w.home, "plugin-data", "v"+version+".failed"))
	tamper = false
	if f := fetch(); f != "" {
		t.Fatalf("the pinned release: %q", f)
	}
	exe := filepath.Join(w.home, "plugin-data", "v"+version, "bin", "ccmem")
	if out, err := exec.Command(exe, "version").Output(); err != nil || string(out) != "ccmem v"+version+"\n" {
		t.Fatalf("the fetched ccmem: %q %v", out, err)
	}
}
