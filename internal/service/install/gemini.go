package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/internal/service/settings"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/geminicli"
	"github.com/ccmem/ccmem/pkg/store"
)

// Gemini CLI runs the same hook binaries as Claude Code (see geminicli):
// ccmem's entries go into ~/.gemini/settings.json, edited as Claude Code's
// settings.json is (every other byte kept, a backup first). Gemini runs a
// user's hooks without asking; headless, it needs the folder trusted,
// which is the person's to do.

// GeminiOptions say where Gemini's settings are and what to register.
type GeminiOptions struct {
	// Dir is Gemini's folder (~/.gemini).
	Dir string
	// Lib is the folder of the hook binaries (PREFIX/lib/ccmem).
	Lib string
	// GuardTools are the tools pretooluse is registered for, in Claude
	// Code's names.
	GuardTools []string
	DryRun     bool
}

// GeminiSettings is Gemini's user settings file, which ccmem edits.
func GeminiSettings(dir string) string { return filepath.Join(dir, "settings.json") }

// GeminiHook is one hook as ccmem registers it for Gemini.
type GeminiHook struct {
	geminicli.Hook
	Command, Matcher string
}

// GeminiHooks are the handlers ccmem registers, with the binaries in lib:
// BeforeTool only for the Gemini tools of guardTools.
func GeminiHooks(lib string, guardTools []string) []GeminiHook {
	var out []GeminiHook
	for _, h := range geminicli.Hooks {
		gh := GeminiHook{Hook: h, Command: claudecode.ShellQuote(filepath.Join(lib, claudecode.Exe(h.Binary)))}
		if h.Binary == "pretooluse" {
			gh.Matcher = strings.Join(geminicli.Tools(guardTools), "|")
		}
		out = append(out, gh)
	}
	return out
}

// geminiEntry is a handler as Gemini's settings.json holds it; Gemini
// counts its timeout in milliseconds.
func geminiEntry(h GeminiHook) *settings.Value {
	e := settings.NewObject()
	e.Set("type", settings.String("command"))
	e.Set("name", settings.String("ccmem "+h.Binary))
	e.Set("command", settings.String(h.Command))
	e.Set("timeout", settings.Int(geminicli.Timeout))
	return e
}

// InstallGemini registers ccmem's hooks in Gemini's settings.json.
// Idempotent.
func InstallGemini(o GeminiOptions) (Report, error) {
	rep := Report{Settings: GeminiSettings(o.Dir), DryRun: o.DryRun}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil && !o.DryRun {
		return rep, err
	}
	err := editFile(&rep, Options{DryRun: o.DryRun}, GeminiSettings(o.Dir), func(root *settings.Value) ([]settings.Change, string, error) {
		var changes []settings.Change
		for _, h := range GeminiHooks(o.Lib, o.GuardTools) {
			ch, err := ensureHandler(root, h.Event, h.Matcher, geminiEntry(h), fmt.Sprintf("%s (timeout %d ms)", h.Command, geminicli.Timeout))
			if err != nil {
				return nil, "", err
			}
			changes = append(changes, ch...)
		}
		return changes, "", nil
	}, "gemini")
	if err == nil {
		rep.Notes = append(rep.Notes, "Gemini CLI runs ccmem's hooks in a folder it trusts; a headless `gemini -p` refuses an untrusted one (trust it in gemini, or set GEMINI_CLI_TRUST_WORKSPACE=true)")
	}
	return rep, err
}

// GeminiRegistered tells whether Gemini's settings.json registers any of
// ccmem's hooks.
func GeminiRegistered(dir string) bool {
	data, err := store.ReadSmallFile(GeminiSettings(dir), 16<<20)
	if err != nil {
		return false
	}
	root, err := settings.Parse(data)
	if err != nil {
		return false
	}
	owned := func(cmd string) bool { return claudecode.Owned(claudecode.CommandPath(cmd)) }
	for _, h := range geminicli.Hooks {
		if len(settings.Commands(root, h.Event, owned)) > 0 {
			return true
		}
	}
	return false
}

// GeminiMissing are the Gemini events whose ccmem handler is not the one
// install would write now (another install's path, another timeout, taken
// out by hand): what `ccmem install --gemini` would change.
func GeminiMissing(dir, lib string, guardTools []string) ([]string, error) {
	data, err := store.ReadSmallFile(GeminiSettings(dir), 16<<20)
	if err != nil {
		return nil, err
	}
	root, err := settings.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", GeminiSettings(dir), err)
	}
	var missing []string
	for _, h := range GeminiHooks(lib, guardTools) {
		want, found := geminiEntry(h), false
		if groups := root.Get("hooks").Get(h.Event); groups != nil {
			for _, g := range groups.Items {
				m, _ := g.Get("matcher").Str()
				if hs := g.Get("hooks"); hs != nil && m == h.Matcher {
					for _, e := range hs.Items {
						found = found || settings.Equal(e, want)
					}
				}
			}
		}
		if !found {
			missing = append(missing, h.Event)
		}
	}
	return missing, nil
}

// UninstallGemini takes ccmem's hooks out of Gemini's settings.json;
// everything else stays as it was.
func UninstallGemini(o GeminiOptions) (Report, error) {
	rep := Report{Settings: GeminiSettings(o.Dir), DryRun: o.DryRun}
	path := GeminiSettings(o.Dir)
	if _, err := os.Stat(path); err != nil {
		return rep, nil
	}
	_, berr := os.Lstat(path + ".ccmem.bak")
	created := errors.Is(berr, fs.ErrNotExist)
	err := editFile(&rep, Options{DryRun: o.DryRun}, path, func(root *settings.Value) ([]settings.Change, string, error) {
		ch, err := settings.RemoveOwned(root, func(cmd string) bool { return claudecode.Owned(claudecode.CommandPath(cmd)) })
		return ch, "", err
	}, "gemini")
	if err == nil && !o.DryRun {
		tidyAfter(&rep, path, created, emptyJSON)
	}
	return rep, err
}
