package testscripts

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The plugin's launcher (hooks/run) fetches its binaries from a release
// server, which is attacker-controlled: a compromised or hostile server,
// one reached through a redirect, or plain http on the way. These tests
// run it as the plugin does, against servers on 127.0.0.1.

const fetchVersion = "9.9.9"

// fetchArchive is a release archive for this machine whose sessionstart is
// a script printing what (and touching marker, when set).
func fetchArchive(t *testing.T, what, marker string) (name string, data []byte) {
	t.Helper()
	name = fmt.Sprintf("ccmem_v%s_%s_%s", fetchVersion, runtime.GOOS, runtime.GOARCH)
	script := "#!/bin/sh\ncat >/dev/null\n"
	if marker != "" {
		script += "touch '" + marker + "'\n"
	}
	script += "echo '" + what + "'\n"
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name, body string
		mode       int64
	}{{"sessionstart", script, 0o755}, {"README.md", "readme", 0o644}} {
		tw.WriteHeader(&tar.Header{Name: name + "/" + f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(f.body))
	}
	tw.Close()
	gz.Close()
	return name + ".tar.gz", buf.Bytes()
}

func sha(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// plugin is a copy of the plugin with no binaries: hooks/run, its version
// and, when pin is set, the checksums it pins.
type plugin struct {
	t          *testing.T
	root, data string
	env        []string
}

func newPlugin(t *testing.T, pin string) *plugin {
	t.Helper()
	dir := t.TempDir()
	p := &plugin{t: t, root: filepath.Join(dir, "plugin"), data: filepath.Join(dir, "data")}
	run, err := os.ReadFile(filepath.Join(repoRoot(t), "hooks", "run"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, body string) {
		path := filepath.Join(p.root, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("hooks/run", string(run))
	write(".claude-plugin/plugin.json", "{\n  \"name\": \"ccmem\",\n  \"version\": \""+fetchVersion+"\"\n}\n")
	if pin != "" {
		write(".claude-plugin/release.sha256", pin)
	}
	p.env = append(os.Environ(), "CLAUDE_PLUGIN_DATA="+p.data, "HOME="+dir)
	return p
}

func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd)
}

// hook runs hooks/run for hook, as the client does, and returns stdout.
func (p *plugin) hook(hook string, env ...string) string {
	p.t.Helper()
	cmd := exec.Command("sh", filepath.Join(p.root, "hooks", "run"), hook)
	cmd.Env = append(append([]string{}, p.env...), env...)
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"SessionStart"}`)
	out, err := cmd.Output()
	if err != nil {
		p.t.Fatalf("hooks/run %s: %v (a hook must exit 0)", hook, err)
	}
	return string(out)
}

// fetch runs the download itself, in the foreground.
func (p *plugin) fetch(env ...string) {
	p.t.Helper()
	cmd := exec.Command("sh", filepath.Join(p.root, "hooks", "run"), "--fetch")
	cmd.Env = append(append([]string{}, p.env...), env...)
	cmd.Run()
}

func (p *plugin) failed() string {
	data, _ := os.ReadFile(filepath.Join(p.data, "v"+fetchVersion+".failed"))
	return string(data)
}

func (p *plugin) installed() bool {
	_, err := os.Stat(filepath.Join(p.data, "v"+fetchVersion, "lib", "ccmem", "sessionstart"))
	return err == nil
}

func pinFile(archive string, sum string) string {
	return "# ccmem v" + fetchVersion + "\n" + sum + "  " + archive + "\n"
}

// TestFetchRunsOnlyWhatThePluginPins: a server that serves its own
// archive and a SHA256SUMS that matches it (a compromised release, or a
// hostile mirror) gets nothing run: the archive is checked against the
// checksum the plugin itself pins, which the server cannot change.
func TestFetchRunsOnlyWhatThePluginPins(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "PWNED")
	name, honest := fetchArchive(t, "honest", "")
	_, evil := fetchArchive(t, "evil", marker)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v" + fetchVersion + "/" + name:
			w.Write(evil)
		case "/v" + fetchVersion + "/SHA256SUMS":
			fmt.Fprintf(w, "%s  %s\n", sha(evil), name)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	p := newPlugin(t, pinFile(name, sha(honest)))
	env := "CCMEM_RELEASE_URL=" + srv.URL
	p.fetch(env)
	if p.installed() {
		t.Fatal("an archive the plugin does not pin was unpacked")
	}
	if f := p.failed(); !strings.Contains(f, "does not match the SHA-256 the plugin pins") || !strings.Contains(f, "nothing was run") {
		t.Fatalf("the reason: %q", f)
	}
	if out := p.hook("sessionstart", env); strings.Contains(out, "evil") || !strings.Contains(out, "could not get its binaries") {
		t.Fatalf("the next hook: %q", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the server's binary ran")
	}
	// The honest archive is taken and run.
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(honest) })
	os.Remove(filepath.Join(p.data, "v"+fetchVersion+".failed"))
	p.fetch(env)
	if out := p.hook("sessionstart", env); strings.TrimSpace(out) != "honest" {
		t.Fatalf("the pinned archive: %q (failed: %q)", out, p.failed())
	}
}

// TestFetchWithoutAPinDownloadsNothing: a copy whose pins are for another
// version, or missing, downloads nothing.
func TestFetchWithoutAPinDownloadsNothing(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked.Add(1) }))
	defer srv.Close()
	name, data := fetchArchive(t, "x", "")
	for what, pin := range map[string]string{
		"no pins":           "",
		"another version":   strings.Replace(pinFile(name, sha(data)), "v"+fetchVersion, "v1.0.0", 1),
		"another archive":   pinFile("ccmem_v9.9.9_plan9_mips.tar.gz", sha(data)),
		"not a sha-256 sum": pinFile(name, "abc"),
	} {
		p := newPlugin(t, pin)
		p.fetch("CCMEM_RELEASE_URL=" + srv.URL)
		if f := p.failed(); !strings.Contains(f, "pins no checksum") {
			t.Errorf("%s: %q", what, f)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("the server was asked %d times", n)
	}
}

// TestFetchTakesHTTPSOnly: a release address over plain http (but this
// machine's) is refused before anything is asked, and a redirect to
// another host, or from https to http, is not followed.
func TestFetchTakesHTTPSOnly(t *testing.T) {
	name, data := fetchArchive(t, "x", "")
	p := newPlugin(t, pinFile(name, sha(data)))
	p.fetch("CCMEM_RELEASE_URL=http://example.invalid/releases")
	if f := p.failed(); !strings.Contains(f, "not an https address") {
		t.Fatalf("http: %q", f)
	}
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Write(data)
	}))
	defer other.Close()
	hops := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v" + fetchVersion + "/" + name:
			hops++
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
		case "/same/" + name:
			w.Write(data)
		}
	}))
	defer srv.Close()
	os.Remove(filepath.Join(p.data, "v"+fetchVersion+".failed"))
	p.fetch("CCMEM_RELEASE_URL=" + srv.URL)
	if f := p.failed(); !strings.Contains(f, "not the release host") || p.installed() || elsewhere.Load() != 0 {
		t.Fatalf("a redirect to another host: %q, installed %v, the other host asked %d times", f, p.installed(), elsewhere.Load())
	}
	// A redirect within the release host is followed.
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v") {
			http.Redirect(w, r, "/same/"+name, http.StatusFound)
			return
		}
		w.Write(data)
	})
	os.Remove(filepath.Join(p.data, "v"+fetchVersion+".failed"))
	p.fetch("CCMEM_RELEASE_URL=" + srv.URL)
	if !p.installed() {
		t.Fatalf("a redirect within the release host: %q", p.failed())
	}
}

// TestKilledFetchIsRetried: a download killed midway leaves its lock; a
// day later the lock has expired, the next session starts the download
// again, and it completes.
func TestKilledFetchIsRetried(t *testing.T) {
	name, data := fetchArchive(t, "fetched", "")
	hang := make(chan struct{})
	var hanging atomic.Bool
	hanging.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hanging.Load() {
			w.Write(data[:10])
			w.(http.Flusher).Flush()
			select {
			case <-hang:
			case <-r.Context().Done():
			}
			return
		}
		w.Write(data)
	}))
	defer srv.Close()
	defer close(hang)
	p := newPlugin(t, pinFile(name, sha(data)))
	env := "CCMEM_RELEASE_URL=" + srv.URL
	cmd := exec.Command("sh", filepath.Join(p.root, "hooks", "run"), "--fetch")
	cmd.Env = append(append([]string{}, p.env...), env)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(p.data, "v"+fetchVersion+".fetching")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(lock, "work")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the download never started")
		}
	}
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Kill() // SIGKILL: its trap never runs
	cmd.Wait()
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("the killed download left no lock: %v", err)
	}
	hanging.Store(false)
	// Minutes later the download may still be running: nothing starts.
	if out := p.hook("sessionstart", env); !strings.Contains(out, "still downloading") {
		t.Fatalf("a fresh lock: %q", out)
	}
	// A day later the lock is a dead download's.
	old := time.Now().Add(-24 * time.Hour)
	os.Chtimes(lock, old, old)
	if out := p.hook("sessionstart", env); !strings.Contains(out, "is downloading its binaries") {
		t.Fatalf("an old lock: %q", out)
	}
	for deadline := time.Now().Add(20 * time.Second); !p.installed(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the retried download did not complete: %q", p.failed())
		}
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if out := p.hook("sessionstart", env); strings.TrimSpace(out) == "fetched" {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("after the retry: %q", out)
		}
	}
}

// TestFetchChecksAFolderAnOlderLauncherLeft: a release folder an older
// launcher unpacked without checking it against a pin (no record of the
// pin it was checked against) is never run: it is set aside and the
// pinned release fetched and checked in its place; and a pin file naming
// two sums for one archive pins nothing.
func TestFetchChecksAFolderAnOlderLauncherLeft(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "PWNED")
	name, honest := fetchArchive(t, "honest", "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(honest) }))
	defer srv.Close()
	env := "CCMEM_RELEASE_URL=" + srv.URL
	p := newPlugin(t, pinFile(name, sha(honest)))
	old := filepath.Join(p.data, "v"+fetchVersion, "lib", "ccmem", "sessionstart")
	os.MkdirAll(filepath.Dir(old), 0o755)
	if err := os.WriteFile(old, []byte("#!/bin/sh\ncat >/dev/null\ntouch '"+marker+"'\necho unchecked\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out := p.hook("sessionstart", env); strings.Contains(out, "unchecked") {
		t.Fatalf("an unchecked folder ran: %q", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the unchecked binary ran")
	}
	// The hook started the fetch in the background; wait for it.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(p.data, "v"+fetchVersion, ".pin")); err == nil {
			break
		}
	}
	if out := p.hook("sessionstart", env); strings.TrimSpace(out) != "honest" {
		t.Fatalf("the pinned release: %q (failed: %q)", out, p.failed())
	}
	// Two sums for one archive: nothing is pinned, nothing fetched.
	q := newPlugin(t, pinFile(name, sha(honest))+sha([]byte("other"))+"  "+name+"\n")
	q.fetch(env)
	if f := q.failed(); !strings.Contains(f, "pins no checksum") {
		t.Fatalf("two sums for one archive: %q", f)
	}
}

// TestTheModelsCcmemRunsOnlyThisPluginsRelease (issue 47, finding 7): the
// model's `ccmem` (bin/ccmem, through hooks/run, in a shell with no
// CLAUDE_PLUGIN_DATA) runs the release this copy of the plugin fetched,
// found in its own data folder; another plugin's folder whose .pin names
// the public pin, or a ccmem-* folder another copy filled, is never run.
func TestTheModelsCcmemRunsOnlyThisPluginsRelease(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "PWNED")
	p := newPlugin(t, pinFile("ccmem_v"+fetchVersion+"_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz", sha([]byte("x"))))
	home := filepath.Dir(p.root)
	plant := func(folder, what, root string) {
		dir := filepath.Join(home, ".claude", "plugins", "data", folder, "v"+fetchVersion)
		os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
		os.WriteFile(filepath.Join(dir, ".pin"), []byte(sha([]byte("x"))+"\n"), 0o644)
		if root != "" {
			os.WriteFile(filepath.Join(dir, ".root"), []byte(root+"\n"), 0o644)
		}
		body := "#!/bin/sh\necho " + what + "\n"
		if what != "ours" {
			body = "#!/bin/sh\ntouch '" + marker + "'\necho " + what + "\n"
		}
		if err := os.WriteFile(filepath.Join(dir, "bin", "ccmem"), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	model := func() string {
		t.Helper()
		cmd := exec.Command("sh", filepath.Join(p.root, "hooks", "run"), "ccmem", "status")
		cmd.Env = append(os.Environ(), "HOME="+home, "CLAUDE_PLUGIN_DATA=", "CLAUDE_CONFIG_DIR=")
		out, _ := cmd.CombinedOutput()
		return strings.TrimSpace(string(out))
	}
	// Another plugin's folder, and a ccmem folder another copy filled:
	// both sort before ours, both carry the pin.
	plant("aaa-other-plugin", "other", p.root)
	plant("ccmem-aaa", "another-copy", filepath.Join(home, "elsewhere"))
	if out := model(); strings.Contains(out, "other") || strings.Contains(out, "another-copy") {
		t.Fatalf("the model's ccmem ran a binary this plugin did not fetch: %q", out)
	}
	plant("ccmem-market", "ours", p.root)
	if out := model(); out != "ours" {
		t.Fatalf("the model's ccmem: %q, want this plugin's release", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a planted binary ran")
	}
}
