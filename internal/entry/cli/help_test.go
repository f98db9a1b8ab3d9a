package cli

import (
	"bytes"
	"flag"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/hookio"
)

// run runs ccmem in-process with args and an empty environment (HOME set).
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	home := t.TempDir()
	var out, errb bytes.Buffer
	code = Main(hookio.Process{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}})
	return out.String(), errb.String(), code
}

// every command and sub-command, as a path.
func allPaths() [][]string {
	var out [][]string
	var walk func(prefix []string, cmds []*command.Command)
	walk = func(prefix []string, cmds []*command.Command) {
		for _, c := range cmds {
			p := append(append([]string{}, prefix...), c.Name)
			out = append(out, p)
			walk(p, c.Subs)
		}
	}
	walk(nil, commands)
	return out
}

// TestEveryCommandHasItsOwnHelp: `ccmem help PATH…` and `ccmem PATH… --help`
// print the same usage, for that command (not the overview), naming each of
// its flags; exit 0.
func TestEveryCommandHasItsOwnHelp(t *testing.T) {
	for _, path := range allPaths() {
		name := strings.Join(path, " ")
		viaHelp, stderr, code := run(t, append([]string{"help"}, path...)...)
		if code != 0 || stderr != "" {
			t.Errorf("ccmem help %s: exit %d, stderr %q", name, code, stderr)
			continue
		}
		if !strings.HasPrefix(viaHelp, "usage: ccmem "+name) {
			t.Errorf("ccmem help %s does not open with its own usage:\n%s", name, viaHelp)
		}
		viaFlag, _, code := run(t, append(path, "--help")...)
		if code != 0 || viaFlag != viaHelp {
			t.Errorf("ccmem %s --help (exit %d) differs from ccmem help %s:\n%s\n---\n%s", name, code, name, viaFlag, viaHelp)
		}
		cmd := commands.Find(path)
		if cmd.Setup == nil {
			continue
		}
		fs := command.NewFlagSet(path)
		cmd.Setup(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(viaHelp, "\n  --"+f.Name) {
				t.Errorf("ccmem help %s does not document --%s:\n%s", name, f.Name, viaHelp)
			}
		})
	}
}

// TestHelpFitsTheWidth: every help text, wrapped for 80 columns (a pipe) or
// 50, has no line longer than that (bar one unbreakable word) and no
// trailing space.
func TestHelpFitsTheWidth(t *testing.T) {
	texts := map[string]func(int) string{"overview": func(w int) string {
		var b bytes.Buffer
		printUsage(&b, w)
		return b.String()
	}}
	for _, path := range allPaths() {
		cmd := commands.Find(path)
		var fs *flag.FlagSet
		if cmd.Setup != nil {
			fs = command.NewFlagSet(path)
			cmd.Setup(fs)
		}
		texts[strings.Join(path, " ")] = func(w int) string { return command.HelpText(path, cmd, fs, w) }
	}
	for name, text := range texts {
		for _, width := range []int{80, 50} {
			for _, line := range strings.Split(text(width), "\n") {
				if strings.TrimRight(line, " \t") != line {
					t.Errorf("%s at %d columns: trailing space in %q", name, width, line)
				}
				if utf8.RuneCountInString(line) > width && strings.Contains(strings.TrimSpace(line), " ") {
					t.Errorf("%s at %d columns: %d-character line %q", name, width, utf8.RuneCountInString(line), line)
				}
			}
		}
	}
	if out, _, _ := run(t, "help"); !strings.Contains(out, "\n  show ") {
		t.Fatalf("ccmem help lists no commands:\n%s", out)
	}
}
