package install

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccmem/ccmem/internal/service/settings"
	"github.com/ccmem/ccmem/pkg/claudecode"
)

// fakeInstall is a built ccmem (empty stand-in binaries) and a HOME with
// the client's settings.json and .claude.json.
type fakeInstall struct {
	o          Options
	claudeJSON string
}

func newFakeInstall(t *testing.T, claudeJSON string) *fakeInstall {
	t.Helper()
	dir := t.TempDir()
	build := filepath.Join(dir, "build")
	if err := os.MkdirAll(build, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range append(libNames(), claudecode.Exe("ccmem")) {
		if err := os.WriteFile(filepath.Join(build, name), []byte("#!/bin/sh\n# "+name+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home")
	f := &fakeInstall{claudeJSON: filepath.Join(home, ".claude.json")}
	f.o = Options{Prefix: filepath.Join(home, ".local"), Settings: filepath.Join(home, ".claude", "settings.json"),
		Exe: filepath.Join(build, claudecode.Exe("ccmem")), CommandsDir: filepath.Join(home, ".claude", "commands"), ClaudeJSON: f.claudeJSON}
	if err := os.MkdirAll(filepath.Dir(f.o.Settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.o.Settings, []byte("{\n  \"theme\": \"dark\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.claudeJSON, []byte(claudeJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// rival rewrites .claude.json as the client does (read, change, atomic
// replace), adding a key, so ccmem's write can only keep it by building on
// the file as it is now.
func rival(t *testing.T, path string, n int) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := settings.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	v.Set(fmt.Sprintf("clientState%d", n), settings.String("kept"))
	out, err := settings.Patch(data, v)
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".rival"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestInstallKeepsTheClientsWrites: the client rewrites .claude.json
// between ccmem's read and its write (three times in a row); install
// starts over from the new file each time, so every one of the client's
// changes stays beside ccmem's MCP server.
func TestInstallKeepsTheClientsWrites(t *testing.T) {
	f := newFakeInstall(t, "{\n  \"numStartups\": 3\n}\n")
	var n atomic.Int32
	testOnlyBeforeSwap = func(path string) {
		if path == f.claudeJSON && n.Load() < 3 {
			rival(t, path, int(n.Add(1)))
		}
	}
	defer func() { testOnlyBeforeSwap = nil }()
	if _, err := Install(f.o); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(f.claudeJSON)
	for _, want := range []string{`"clientState1": "kept"`, `"clientState2": "kept"`, `"clientState3": "kept"`, `"numStartups": 3`, `"mcpServers"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s is missing from .claude.json:\n%s", want, data)
		}
	}
	// Uninstall too.
	n.Store(0)
	testOnlyBeforeSwap = func(path string) {
		if path == f.claudeJSON && n.Load() < 2 {
			rival(t, path, 10+int(n.Add(1)))
		}
	}
	if _, err := Uninstall(f.o); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(f.claudeJSON)
	if !strings.Contains(string(data), `"clientState11"`) || !strings.Contains(string(data), `"clientState12"`) || strings.Contains(string(data), `"ccmem"`) {
		t.Errorf("after uninstall:\n%s", data)
	}
}

// TestInstallGivesUpOnAFileThatNeverSettles: a file rewritten before every
// one of ccmem's writes is not overwritten; install says why.
func TestInstallGivesUpOnAFileThatNeverSettles(t *testing.T) {
	f := newFakeInstall(t, "{}\n")
	var n atomic.Int32
	testOnlyBeforeSwap = func(path string) {
		if path == f.claudeJSON {
			rival(t, path, int(n.Add(1)))
		}
	}
	defer func() { testOnlyBeforeSwap = nil }()
	_, err := Install(f.o)
	if err == nil || !strings.Contains(err.Error(), "kept rewriting it") || !strings.Contains(err.Error(), "hint:") {
		t.Fatalf("err = %v", err)
	}
	data, _ := os.ReadFile(f.claudeJSON)
	if strings.Contains(string(data), "mcpServers") || !strings.Contains(string(data), fmt.Sprintf(`"clientState%d"`, n.Load())) {
		t.Fatalf("the client's last write was reverted or ccmem wrote anyway:\n%s", data)
	}
}

// TestInstallWaitsOutAHalfWrittenFile: a .claude.json caught half written
// (the client writing in place) is read again a moment later.
func TestInstallWaitsOutAHalfWrittenFile(t *testing.T) {
	whole := "{\n  \"numStartups\": 3,\n  \"projects\": {}\n}\n"
	f := newFakeInstall(t, whole[:10])
	go func() {
		time.Sleep(2 * editBackoff)
		os.WriteFile(f.claudeJSON, []byte(whole), 0o600)
	}()
	if _, err := Install(f.o); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(f.claudeJSON); !strings.Contains(string(data), "mcpServers") || !strings.Contains(string(data), "numStartups") {
		t.Fatalf(".claude.json:\n%s", data)
	}
}

// TestBrokenClaudeJSONInstallsNothing: a .claude.json that does not parse
// is refused before settings.json is patched or any binary copied, so a
// refusal leaves no partial install.
func TestBrokenClaudeJSONInstallsNothing(t *testing.T) {
	f := newFakeInstall(t, "{\"numStartups\": 3, oops\n")
	before, _ := os.ReadFile(f.o.Settings)
	_, err := Install(f.o)
	if err == nil || !strings.Contains(err.Error(), "left untouched") {
		t.Fatalf("err = %v", err)
	}
	if after, _ := os.ReadFile(f.o.Settings); !bytes.Equal(before, after) {
		t.Errorf("settings.json was patched:\n%s", after)
	}
	for _, p := range []string{BinDir(f.o.Prefix), LibDir(f.o.Prefix), f.o.CommandsDir, BackupPath(f.o.Settings)} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// TestHugeSettingsAreRefused: a settings file past MaxSettingsBytes is
// refused at once, not parsed (a 40 MB one took seconds and gigabytes).
func TestHugeSettingsAreRefused(t *testing.T) {
	f := newFakeInstall(t, "{}\n")
	huge := []byte(`{"padding": "` + strings.Repeat("x", MaxSettingsBytes) + `"}`)
	if err := os.WriteFile(f.o.Settings, huge, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := Install(f.o)
	if err == nil || !strings.Contains(err.Error(), "over 32 MB") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Lstat(BinDir(f.o.Prefix)); err == nil {
		t.Error("binaries were copied")
	}
	t.Logf("refused in %v", time.Since(start))
}

// clientWrites plays the client: saves of .claude.json until stop is
// closed, each under the client's proper-lockfile lock (mkdir path.lock,
// taken over when stale), each adding one key, written in place or by an
// atomic replace, as the client's own saves are. It returns how many.
func clientWrites(t *testing.T, path string, stop <-chan struct{}) int {
	lock := path + ".lock"
	for i := 0; ; i++ {
		clientSaves.Store(int64(i))
		select {
		case <-stop:
			return i
		default:
		}
		for {
			if err := os.Mkdir(lock, 0o700); err == nil {
				break
			}
			if fi, err := os.Lstat(lock); err == nil && time.Since(fi.ModTime()) > clientLockStale {
				os.Remove(lock)
				continue
			}
			time.Sleep(100 * time.Microsecond)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			return i
		}
		v, err := settings.Parse(data)
		if err != nil {
			t.Errorf("the client read a broken file: %v", err)
			os.Remove(lock)
			return i
		}
		v.Set(fmt.Sprintf("clientWrite%d", i), settings.String("kept"))
		out, _ := settings.Patch(data, v)
		if i%2 == 0 {
			os.WriteFile(path, out, 0o600)
		} else {
			tmp := path + ".client-tmp"
			os.WriteFile(tmp, out, 0o600)
			os.Rename(tmp, path)
		}
		os.Remove(lock)
		time.Sleep(200 * time.Microsecond)
	}
}

// clientSaves is how many saves clientWrites has made so far.
var clientSaves atomic.Int64

// TestInstallLosesNoClientWrite: the client saves .claude.json hundreds of
// times under its own lock while ccmem installs and uninstalls over and
// over; every one of the client's saves is still in the file afterwards
// (without the lock, a compare and swap lost about one in fifty).
func TestInstallLosesNoClientWrite(t *testing.T) {
	f := newFakeInstall(t, "{\n  \"numStartups\": 3\n}\n")
	stop := make(chan struct{})
	saves := make(chan int)
	go func() { saves <- clientWrites(t, f.claudeJSON, stop) }()
	// At least 20 rounds, and as many more as it takes the client to save
	// 100 times meanwhile (a loaded machine schedules it less often).
	rounds := 0
	for i := 0; i < 20 || (clientSaves.Load() < 100 && i < 5000); i++ {
		rounds++
		if _, err := Install(f.o); err != nil {
			t.Fatalf("install %d: %v", i, err)
		}
		if _, err := Uninstall(f.o); err != nil {
			t.Fatalf("uninstall %d: %v", i, err)
		}
	}
	close(stop)
	n := <-saves
	data, _ := os.ReadFile(f.claudeJSON)
	lost := 0
	for i := 0; i < n; i++ {
		if !strings.Contains(string(data), fmt.Sprintf(`"clientWrite%d"`, i)) {
			lost++
		}
	}
	t.Logf("%d client saves during %d installs and uninstalls", n, rounds)
	if n < 100 {
		t.Fatalf("only %d client saves: the test raced nothing", n)
	}
	if lost > 0 {
		t.Fatalf("%d of the client's %d saves were lost", lost, n)
	}
	if _, err := os.Stat(f.claudeJSON + ".lock"); err == nil {
		t.Fatal("the lock was left behind")
	}
}

// TestInstallTakesOverADeadClientsLock: a lock left by a client that died
// (older than ten seconds) is taken over; a fresh one is waited for.
func TestInstallTakesOverADeadClientsLock(t *testing.T) {
	f := newFakeInstall(t, "{}\n")
	lock := f.claudeJSON + ".lock"
	os.Mkdir(lock, 0o700)
	old := time.Now().Add(-time.Minute)
	os.Chtimes(lock, old, old)
	if _, err := Install(f.o); err != nil {
		t.Fatalf("a dead client's lock: %v", err)
	}
	os.Mkdir(lock, 0o700)
	go func() {
		time.Sleep(300 * time.Millisecond)
		os.Remove(lock)
	}()
	start := time.Now()
	if _, err := Uninstall(f.o); err != nil {
		t.Fatalf("a lock held for a moment: %v", err)
	}
	if time.Since(start) < 250*time.Millisecond {
		t.Fatal("uninstall did not wait for the client's lock")
	}
}

// TestInstallIsAllOrNothing: while the client holds its lock on
// .claude.json for longer than install waits, install changes nothing —
// no hook registered, no binary copied, no command written — and says
// why; uninstall likewise leaves every registration as it was.
func TestInstallIsAllOrNothing(t *testing.T) {
	defer func(w time.Duration) { clientLockWait = w }(clientLockWait)
	clientLockWait = 300 * time.Millisecond
	f := newFakeInstall(t, "{\"numStartups\": 3}\n")
	lock := f.claudeJSON + ".lock"
	if err := os.Mkdir(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(f.o.Settings)
	_, err := Install(f.o)
	if err == nil || !strings.Contains(err.Error(), "kept its lock") {
		t.Fatalf("err = %v", err)
	}
	if after, _ := os.ReadFile(f.o.Settings); !bytes.Equal(before, after) {
		t.Errorf("settings.json was patched though the MCP server could not be registered:\n%s", after)
	}
	for _, p := range []string{BinDir(f.o.Prefix), LibDir(f.o.Prefix), f.o.CommandsDir} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	// Installed, then the client holds its lock during an uninstall.
	os.Remove(lock)
	if _, err := Install(f.o); err != nil {
		t.Fatal(err)
	}
	installed, _ := os.ReadFile(f.o.Settings)
	if err := os.Mkdir(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(f.o); err == nil {
		t.Fatal("uninstall went ahead without the client's lock")
	}
	if after, _ := os.ReadFile(f.o.Settings); !bytes.Equal(installed, after) {
		t.Errorf("uninstall removed the hooks though it could not remove the MCP server")
	}
}
