// Command demo is `make demo`: it lays out a sample memory store in a new
// temporary folder, runs the built sessionstart hook there on a sample
// SessionStart payload, and prints the block Claude Code would inject and its
// size against the budget. It writes nothing outside that folder, and
// removes it afterwards unless DEMO_KEEP=1.
package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

//go:embed sample.txtar
var sample []byte

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run() error {
	bin, err := filepath.Abs(filepath.Join("lib", "ccmem"))
	if err != nil {
		return err
	}
	startHook := filepath.Join(bin, "sessionstart")
	if _, err := os.Stat(startHook); err != nil {
		return fmt.Errorf("lib/ccmem/sessionstart is missing: run `make demo` (it builds first)")
	}
	tmp, err := os.MkdirTemp("", "ccmem-demo-")
	if err != nil {
		return err
	}
	if os.Getenv("DEMO_KEEP") == "" {
		defer os.RemoveAll(tmp)
	}
	home := filepath.Join(tmp, "home")
	project := filepath.Join(home, "src", "shop")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return err
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	menv, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		return err
	}
	// The project key depends on the repository (its remote, or where the
	// temporary folder is); the sample names it PROJECT_KEY. Lay out the
	// repository first, then resolve the key the way the hook will.
	files := txtar.Parse(sample).Files
	write := func(f txtar.File, key string) error {
		path := filepath.Join(home, strings.ReplaceAll(f.Name, "PROJECT_KEY", key))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		return os.WriteFile(path, f.Data, 0o600)
	}
	for _, f := range files {
		if !strings.Contains(f.Name, "PROJECT_KEY") {
			if err := write(f, ""); err != nil {
				return err
			}
		}
	}
	// The sample's memory is this machine's own: the project is claimed
	// here (its project.json written), as a session start would have.
	p, err := store.ResolveProject(menv, project)
	if err != nil {
		return err
	}
	if p, err = store.ClaimProject(menv, p); err != nil {
		return err
	}
	for _, f := range files {
		if strings.Contains(f.Name, "PROJECT_KEY") {
			if err := write(f, p.Key); err != nil {
				return err
			}
		}
	}

	payload := claudecode.Payload{SessionID: "4b7c2d9e-demo", TranscriptPath: filepath.Join(home, ".claude", "projects", p.Key, "4b7c2d9e-demo.jsonl"),
		Cwd: project, HookEventName: "SessionStart", Source: "startup"}.JSON()
	cmd := exec.Command(startHook)
	cmd.Env = env
	cmd.Dir = project
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("sessionstart: %v", err)
	}
	block := claudecode.ParseOutput(out).AddedContext()
	if block == "" {
		return fmt.Errorf("sessionstart printed no block: %q", textfmt.Shorten(string(out), 200))
	}
	// The sample has every kind of memory: a block without one of them
	// means the sample and the code disagree, and the demo says so.
	for _, title := range []string{"# Global memory", "# Learned memories", "# Project briefing", "# Project memory", "# Project records", "# Recent sessions"} {
		if !strings.Contains(block, "\n"+title) {
			return fmt.Errorf("the block lacks its %q section; the sample store and the code disagree", title)
		}
	}

	fmt.Printf("ccmem demo — sample store in %s\n", tmp)
	fmt.Printf("$ echo '{\"cwd\":\"…/src/shop\",\"source\":\"startup\",…}' | lib/ccmem/sessionstart\n\n")
	rule := strings.Repeat("─", 78)
	fmt.Println(rule)
	fmt.Println(block)
	fmt.Println(rule)
	chars := len(utf16.Encode([]rune(block)))
	fmt.Printf("injected: %d characters of the %d budget (budget_chars); Claude Code's inline limit is %d.\n",
		chars, config.Default().BudgetChars, claudecode.MaxInline)

	show := exec.Command(filepath.Join(bin, "ccmem"), "show", "--cwd", project)
	show.Env = env
	showOut, err := show.Output()
	if err != nil {
		return fmt.Errorf("ccmem show: %v", err)
	}
	if i := strings.Index(string(showOut), "── injected for"); i >= 0 {
		fmt.Printf("\n$ ccmem show --cwd …/src/shop   (its report, after the same block)\n%s", showOut[i:])
	}
	if os.Getenv("DEMO_KEEP") != "" {
		fmt.Printf("\nThe sample is kept in %s (DEMO_KEEP=1).\n", tmp)
	}
	return nil
}
