package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailedSubtestSaysWhy runs testprogress on a module whose one test
// fails only in a parallel subtest: the subtest's own lines must be
// printed (CI once printed "--- FAIL: TestScripts" and nothing else), and
// a passing subtest's chatter must not.
func TestFailedSubtestSaysWhy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs go test on a module of its own")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module probe\n\ngo 1.22\n")
	write("probe_test.go", `package probe

import "testing"

func TestOuter(t *testing.T) {
	t.Run("fine", func(t *testing.T) { t.Log("chatter of a passing subtest") })
	t.Run("broken", func(t *testing.T) {
		t.Parallel()
		t.Log("the reason it broke")
		t.Fail()
	})
}
`)
	bin := filepath.Join(dir, "testprogress")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-count=1", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{"fail TestOuter", "the reason it broke", "--- FAIL: TestOuter/broken"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "chatter of a passing subtest") {
		t.Errorf("a passing subtest's lines were printed:\n%s", got)
	}
}
