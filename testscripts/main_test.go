// Package testscripts runs the end-to-end scripts in this folder (*.txtar)
// against ccmem's binaries, which testscript builds once into the scripts'
// PATH from this test binary. Run with -update to rewrite golden sections.
package testscripts

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"unicode/utf16"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ccmem/ccmem/internal/entry/cli"
	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/hooks/capture"
	"github.com/ccmem/ccmem/internal/entry/hooks/prompt"
	"github.com/ccmem/ccmem/internal/entry/hooks/start"
	"github.com/ccmem/ccmem/internal/entry/hooks/tool"
	"github.com/ccmem/ccmem/internal/entry/ui"
	"github.com/ccmem/ccmem/pkg/lessons"
)

var update = flag.Bool("update", false, "rewrite the golden sections of the scripts from the actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ccmem":              func() { os.Exit(cli.Main(hookio.OS())) },
		"sessionstart":       func() { os.Exit(start.SessionStart(hookio.OS())) },
		"stop":               func() { os.Exit(capture.Stop(hookio.OS())) },
		"userpromptsubmit":   func() { os.Exit(prompt.UserPromptSubmit(hookio.OS())) },
		"precompact":         func() { os.Exit(capture.PreCompact(hookio.OS())) },
		"pretooluse":         func() { os.Exit(tool.PreToolUse(hookio.OS())) },
		"posttoolusefailure": func() { os.Exit(tool.PostToolUseFailure(hookio.OS())) },
		"subagentstart":      func() { os.Exit(tool.SubagentStart(hookio.OS())) },
		"ccmem-ui":           func() { os.Exit(ui.Main(hookio.OS())) },
	})
}

func TestScripts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the testscripts drive ccmem through sh and compare Unix paths and file modes: Linux and macOS only (Windows runs the Go unit tests)")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 ".",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Setup: func(e *testscript.Env) error {
			// A private HOME per script; ccmem's own variables start unset.
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("CCMEM_HOME", "")
			e.Setenv("CLAUDE_CONFIG_DIR", "")
			e.Setenv("CCMEM_DISABLE", "")
			e.Setenv("CLAUDE_PLUGIN_ROOT", "")
			// The repository, for scripts that test its plugin files.
			repo, err := filepath.Abs("..")
			if err != nil {
				return err
			}
			e.Setenv("CCMEM_REPO", repo)
			return os.MkdirAll(filepath.Join(e.WorkDir, "home"), 0o755)
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":       cmdExits,
			"expand":      cmdExpand,
			"hookcontext": cmdHookContext,
			"showblock":   cmdShowBlock,
			"maxchars":    cmdMaxChars,
			"ruleprefix":  cmdRulePrefix,
		},
	})
}

// exits N PROG [ARGS…] runs PROG like exec and requires exit status N
// exactly (exec and ! exec cannot tell 1 from 2, and hooks live by that).
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// hookcontext FILE writes the additionalContext of the SessionStart hook
// JSON in the last command's stdout to FILE, plus a final newline (as the
// golden text files in a txtar have), failing unless stdout is that JSON.
func cmdHookContext(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: hookcontext FILE")
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &out); err != nil {
		ts.Fatalf("stdout is not hook JSON: %v", err)
	}
	if out.HookSpecificOutput.HookEventName != "SessionStart" {
		ts.Fatalf("hookEventName is %q, want SessionStart", out.HookSpecificOutput.HookEventName)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(out.HookSpecificOutput.AdditionalContext+"\n"), 0o644))
}

// maxchars FILE N requires FILE to be at most N characters as Claude Code
// counts them (UTF-16 code units).
func cmdMaxChars(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: maxchars FILE N")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("maxchars: bad number %q", args[1])
	}
	got := len(utf16.Encode([]rune(ts.ReadFile(args[0]))))
	if (got <= n) == neg {
		ts.Fatalf("%s is %d characters; want %s %d", args[0], got, map[bool]string{false: "at most", true: "more than"}[neg], n)
	}
}

// expand SRC DST copies SRC to DST replacing $VAR and ${VAR} with the
// script's environment, so payloads can name $WORK paths.
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand SRC DST")
	}
	out := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o644))
}

// showblock FILE writes the block of the `ccmem show --json` output in the
// last command's stdout to FILE, plus a final newline.
func cmdShowBlock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: showblock FILE")
	}
	var out struct {
		Block struct {
			Text string `json:"text"`
		} `json:"block"`
	}
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &out); err != nil {
		ts.Fatalf("stdout is not ccmem show --json output: %v", err)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(out.Block.Text+"\n"), 0o644))
}

// cmdRulePrefix sets the variable VAR to what the names of the project
// rooted at DIR's friction rules start with: ruleprefix DIR VAR.
func cmdRulePrefix(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: ruleprefix DIR VAR")
	}
	dir, err := filepath.EvalSymlinks(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Setenv(args[1], lessons.Prefix(dir))
}
