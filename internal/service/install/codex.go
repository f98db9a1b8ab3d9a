package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ccmem/ccmem/internal/service/settings"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/codexcli"
	"github.com/ccmem/ccmem/pkg/store"
)

// Codex CLI runs the same hook binaries as Claude Code (see codexcli):
// ccmem's entries go into CODEX_HOME/hooks.json, edited as settings.json
// is (every other byte kept, a backup first), and — only when the person
// says so (Trust) — their trust entries into CODEX_HOME/config.toml,
// each marked as ccmem's so that uninstall takes back exactly those.

// CodexOptions say where Codex's files are and what to register there.
type CodexOptions struct {
	// Dir is CODEX_HOME (by default ~/.codex).
	Dir string
	// Lib is the folder of the hook binaries (PREFIX/lib/ccmem).
	Lib string
	// GuardTools are the tools pretooluse is registered for.
	GuardTools []string
	// Trust writes the trust entries Codex needs to run the hooks.
	Trust  bool
	DryRun bool
}

// CodexHooksFile and CodexConfig are Codex's user files ccmem edits.
func CodexHooksFile(dir string) string { return filepath.Join(dir, "hooks.json") }

// CodexConfig is Codex's user config, where trust lives.
func CodexConfig(dir string) string { return filepath.Join(dir, "config.toml") }

// CodexHook is one hook as ccmem registers it for Codex.
type CodexHook struct {
	codexcli.Hook
	Handler codexcli.Handler
	Matcher string
}

// CodexHooks are the handlers ccmem registers, with the binaries in lib.
func CodexHooks(lib string, guardTools []string) []CodexHook {
	var out []CodexHook
	unlimited := 0
	for _, h := range codexcli.Hooks {
		ch := CodexHook{Hook: h, Matcher: Matcher(h.Binary, guardTools)}
		ch.Handler = codexcli.Handler{Command: claudecode.ShellQuote(filepath.Join(lib, claudecode.Exe(h.Binary))), Timeout: HookTimeout}
		if h.Event != "Stop" && h.Event != "PreCompact" {
			// The block is fitted to ccmem's own budget: Codex must not
			// cut it again near 2,500 tokens.
			ch.Handler.ContextLimit = &unlimited
		}
		out = append(out, ch)
	}
	return out
}

// InstallCodex registers ccmem's hooks in Codex's hooks.json and, with
// Trust, their trust entries in its config.toml. Idempotent.
func InstallCodex(o CodexOptions) (Report, error) {
	rep := Report{Settings: CodexHooksFile(o.Dir), DryRun: o.DryRun}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil && !o.DryRun {
		return rep, err
	}
	hooks := CodexHooks(o.Lib, o.GuardTools)
	io := Options{DryRun: o.DryRun}
	err := editFile(&rep, io, CodexHooksFile(o.Dir), func(root *settings.Value) ([]settings.Change, string, error) {
		var changes []settings.Change
		for _, h := range hooks {
			ch, err := ensureCodex(root, h)
			if err != nil {
				return nil, "", err
			}
			changes = append(changes, ch...)
		}
		return changes, "", nil
	}, "codex")
	if err != nil || !o.Trust {
		if err == nil {
			rep.Notes = append(rep.Notes, "Codex runs a hook only once it is trusted: start `codex` and choose to trust ccmem's hooks when it asks, or run `ccmem install --codex --codex-trust` to write the trust entries into "+CodexConfig(o.Dir))
		}
		return rep, err
	}
	return rep, writeTrust(&rep, o, hooks)
}

// ensureCodex makes h the one ccmem handler of its event in hooks.json.
func ensureCodex(root *settings.Value, h CodexHook) ([]settings.Change, error) {
	return ensureHandler(root, h.Event, h.Matcher, codexEntry(h), fmt.Sprintf("%s (timeout %d s)", h.Handler.Command, h.Handler.Timeout))
}

// ensureHandler makes want the one ccmem handler of event in a hooks file
// of Claude Code's shape (Codex's hooks.json, Gemini's settings.json),
// under a group with matcher; what says what was added.
func ensureHandler(root *settings.Value, event, matcher string, want *settings.Value, what string) ([]settings.Change, error) {
	hooks := root.Get("hooks")
	if hooks == nil {
		hooks = settings.NewObject()
		root.Set("hooks", hooks)
	}
	if hooks.Kind != settings.Object {
		return nil, errors.New(`"hooks" is not an object`)
	}
	groups := hooks.Get(event)
	if groups != nil && groups.Kind != settings.Array {
		return nil, fmt.Errorf(`"hooks.%s" is not a list`, event)
	}
	wantCmd, _ := want.Get("command").Str()
	var changes []settings.Change
	found := false
	if groups != nil {
		for _, g := range groups.Items {
			hs := g.Get("hooks")
			if hs == nil || hs.Kind != settings.Array {
				continue
			}
			kept := hs.Items[:0]
			for _, e := range hs.Items {
				cmd, _ := e.Get("command").Str()
				if !claudecode.Owned(claudecode.CommandPath(cmd)) {
					kept = append(kept, e)
					continue
				}
				m, _ := g.Get("matcher").Str()
				if found || m != matcher {
					changes = append(changes, settings.Change{Action: "remove", Event: event, What: cmd})
					continue
				}
				found = true
				if !settings.Equal(e, want) {
					changes = append(changes, settings.Change{Action: "update", Event: event, What: wantCmd})
					kept = append(kept, want)
					continue
				}
				kept = append(kept, e)
			}
			hs.Items = kept
		}
		items := groups.Items[:0]
		for _, g := range groups.Items {
			if hs := g.Get("hooks"); hs == nil || len(hs.Items) > 0 {
				items = append(items, g)
			}
		}
		groups.Items = items
	}
	if !found {
		if groups == nil {
			groups = &settings.Value{Kind: settings.Array}
			hooks.Set(event, groups)
		}
		group := settings.NewObject()
		if matcher != "" {
			group.Set("matcher", settings.String(matcher))
		}
		group.Set("hooks", &settings.Value{Kind: settings.Array, Items: []*settings.Value{want}})
		groups.Items = append(groups.Items, group)
		changes = append(changes, settings.Change{Action: "add", Event: event, What: what})
	}
	return changes, nil
}

// codexEntry is a handler as hooks.json holds it.
func codexEntry(h CodexHook) *settings.Value {
	e := settings.NewObject()
	e.Set("type", settings.String("command"))
	e.Set("command", settings.String(h.Handler.Command))
	e.Set("timeout", settings.Int(h.Handler.Timeout))
	if h.Handler.ContextLimit != nil {
		e.Set("additionalContextLimit", settings.Int(*h.Handler.ContextLimit))
	}
	return e
}

// CodexTrust is where each of ccmem's handlers sits in hooks.json, its
// trust key and the hash Codex expects; Trusted tells whether config.toml
// holds that hash.
type CodexTrust struct {
	Event, Key, Hash string
	Registered       bool
	Trusted          bool
}

// CodexState reads hooks.json and config.toml: for each hook ccmem
// registers, whether it is there and trusted.
func CodexState(dir, lib string, guardTools []string) ([]CodexTrust, error) {
	data, err := store.ReadSmallFile(CodexHooksFile(dir), 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		data = []byte("{}")
	} else if err != nil {
		return nil, err
	}
	root, err := settings.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CodexHooksFile(dir), err)
	}
	cfg, _ := store.ReadSmallFile(CodexConfig(dir), 16<<20)
	var out []CodexTrust
	for _, h := range CodexHooks(lib, guardTools) {
		t := CodexTrust{Event: h.Event}
		if groups := root.Get("hooks").Get(h.Event); groups != nil {
			for gi, g := range groups.Items {
				hs := g.Get("hooks")
				if hs == nil {
					continue
				}
				for hi, e := range hs.Items {
					if cmd, _ := e.Get("command").Str(); cmd == h.Handler.Command && settings.Equal(e, codexEntry(h)) {
						m, _ := g.Get("matcher").Str()
						t.Registered = true
						t.Key = codexcli.TrustKey(CodexHooksFile(dir), h.Event, gi, hi)
						t.Hash = codexcli.TrustHash(h.Event, m, h.Handler)
					}
				}
			}
		}
		if t.Registered {
			v, ok := trustValue(string(cfg), t.Key)
			t.Trusted = ok && v == t.Hash
		}
		out = append(out, t)
	}
	return out, nil
}

// writeTrust puts a trusted_hash for each of ccmem's handlers into
// config.toml (see codexconfig.go), every other byte kept.
func writeTrust(rep *Report, o CodexOptions, hooks []CodexHook) error {
	state, err := CodexState(o.Dir, o.Lib, o.GuardTools)
	if err != nil {
		return err
	}
	path := CodexConfig(o.Dir)
	old, err := store.ReadSmallFile(path, 16<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// ccmem's tables for handlers no longer where they were go; the
	// others stay as they are.
	var want []CodexTrust
	keep := map[string]bool{}
	for _, t := range state {
		if t.Registered {
			want = append(want, t)
			keep["[hooks.state."+codexcli.TOMLString(t.Key)+"]"] = true
		}
	}
	next, err := withTrust([]byte(dropTrustBut(string(old), keep)), want)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if bytes.Equal(next, old) || len(old) == 0 && len(next) == 0 {
		return nil
	}
	rep.Actions = append(rep.Actions, Action{"codex", "trust entries for ccmem's hooks in " + path})
	if o.DryRun {
		return nil
	}
	return replaceConfig(rep, path, old, next)
}

// UninstallCodex takes ccmem's hooks out of hooks.json and its trust
// entries out of config.toml; everything else stays as it was.
func UninstallCodex(o CodexOptions) (Report, error) {
	rep := Report{Settings: CodexHooksFile(o.Dir), DryRun: o.DryRun}
	hooks := CodexHooksFile(o.Dir)
	if _, err := os.Stat(hooks); err == nil {
		// Install backs up a hooks.json that was there: none means ccmem
		// made the file (and this edit's own backup is of ccmem's).
		_, berr := os.Lstat(hooks + ".ccmem.bak")
		created := errors.Is(berr, fs.ErrNotExist)
		err := editFile(&rep, Options{DryRun: o.DryRun}, hooks, func(root *settings.Value) ([]settings.Change, string, error) {
			ch, err := settings.RemoveOwned(root, func(cmd string) bool { return claudecode.Owned(claudecode.CommandPath(cmd)) })
			return ch, "", err
		}, "codex")
		if err != nil {
			return rep, err
		}
		if !o.DryRun {
			tidyAfter(&rep, hooks, created, emptyJSON)
		}
	}
	path := CodexConfig(o.Dir)
	old, err := store.ReadSmallFile(path, 16<<20)
	if err != nil {
		return rep, nil
	}
	if next := dropTrust(string(old)); next != string(old) {
		rep.Actions = append(rep.Actions, Action{"codex", "ccmem's trust entries out of " + path})
		if !o.DryRun {
			if err := replaceConfig(&rep, path, old, []byte(next)); err != nil {
				return rep, err
			}
			tidyAfter(&rep, path, false, nil)
		}
	}
	return rep, nil
}

// tidyAfter leaves, after an uninstall, what was there before install: a
// file ccmem created that holds nothing now (empty says so) is removed
// with the backup this uninstall made of it; a backup the file is now
// identical to is removed (it keeps nothing the file does not).
func tidyAfter(rep *Report, path string, created bool, empty func([]byte) bool) {
	now, err := os.ReadFile(path)
	if err != nil {
		return
	}
	backup := path + ".ccmem.bak"
	before, berr := os.ReadFile(backup)
	switch {
	case created && empty != nil && empty(now):
		if os.Remove(path) == nil {
			rep.Actions = append(rep.Actions, Action{"remove", path + " (ccmem created it; it holds nothing now)"})
			if berr == nil && os.Remove(backup) == nil {
				rep.Actions = append(rep.Actions, Action{"remove", backup})
			}
		}
	case berr == nil && bytes.Equal(before, now):
		if os.Remove(backup) == nil {
			rep.Actions = append(rep.Actions, Action{"remove", backup + " (the file is as it was again)"})
		}
	}
}

// emptyJSON tells a JSON file that holds no setting: {} or {"hooks": {}}.
func emptyJSON(data []byte) bool {
	var v map[string]any
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	for k, x := range v {
		if m, ok := x.(map[string]any); !ok || len(m) != 0 || k != "hooks" {
			return false
		}
	}
	return true
}
