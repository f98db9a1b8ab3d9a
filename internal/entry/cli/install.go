package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/service/install"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdInstall = &command.Command{
	Name: "install", Args: "[--settings FILE] [--prefix DIR] [--status-line] [--import] [--codex [--codex-trust]] [--gemini] [--opencode] [--dry-run] [--json]",
	Summary: "install the binaries and register ccmem's hooks in Claude Code",
	Help: `Copies ccmem to DIR/bin and its hook binaries to DIR/lib/ccmem (DIR defaults
to ~/.local), then merges ccmem's hook registrations (absolute paths,
timeout 5 s) into Claude Code's settings.json. Every other key and every
other hook is kept; the old file is saved as settings.json.ccmem.bak first.
Running it again changes nothing. An unparseable settings.json is refused
and left untouched. When the ccmem plugin is enabled, its hooks and MCP
server do the work (registering them here too would run each twice), and
install adds only what a plugin cannot: the ` + "`ccmem`" + ` command in DIR/bin (a
small launcher that runs the plugin's ccmem, whichever version the plugin
runs) and the status line. --status-line only registers this ccmem's
status line. Once installed, it offers to
import the sessions Claude Code already keeps (ccmem import), so your first
session starts with a menu; --import does it without asking.

--codex serves OpenAI's Codex CLI too, with the same hook binaries: ccmem's
hooks go into CODEX_HOME/hooks.json (~/.codex by default; every other byte
kept, a backup first). Codex runs a hook only once you trust it: start
codex and accept them when it asks, or add --codex-trust and ccmem writes
their trust entries into CODEX_HOME/config.toml (marked as ccmem's;
uninstall takes them back). Without --codex, install only says so when it
finds a Codex folder.

--gemini serves Google's Gemini CLI too, with the same hook binaries:
ccmem's hooks go into ~/.gemini/settings.json (SessionStart, BeforeAgent,
BeforeTool, AfterAgent; every other byte kept, a backup first). Gemini
runs them in a folder it trusts. Without --gemini, install only says so
when it finds a Gemini folder.

--opencode serves opencode too: it has no hook settings, so ccmem writes
one plugin file, ~/.config/opencode/plugin/ccmem.js (under XDG_CONFIG_HOME
when set), that runs the same hook binaries on opencode's events and
brings the session's record up to date at the end of each turn (ccmem
import --session). Nothing else of opencode's is edited.

Uninstall takes ccmem's hooks out of Codex's and Gemini's files, byte for
byte, and removes opencode's plugin.`,
	Setup: installSetup(false),
}

var cmdUninstall = &command.Command{
	Name: "uninstall", Args: "[--settings FILE] [--prefix DIR] [--no-restore] [--dry-run] [--json]",
	Summary: "remove ccmem's hooks from settings.json and its installed binaries",
	Help: `Removes exactly what install added: ccmem's hook entries in settings.json
(after a backup) and the binaries in DIR/bin and DIR/lib/ccmem. Memory in
the store is never touched. The memories ccmem learn took from Claude
Code's memory folders are put back where Claude Code reads them (each file
where it was, with its line in that folder's MEMORY.md; a file Claude Code
has there again is left as it is), so Claude Code has them without ccmem;
--no-restore leaves the folders as they are.`,
	Setup: installSetup(true),
}

// installFlags are install's and uninstall's flags.
type installFlags struct {
	settings, prefix *string
	dryRun, asJSON   *bool
	statusLine       *bool
	doImport         *bool
	noRestore        *bool
	codex, trust     *bool
	gemini, opencode *bool
}

// prefixUsage describes --prefix for install or uninstall.
func prefixUsage(remove bool) string {
	if remove {
		return "remove the install under `DIR`: ccmem from DIR/bin, the hooks from DIR/lib/ccmem (default: ~/.local)"
	}
	return "install into `DIR`: ccmem in DIR/bin, the hooks in DIR/lib/ccmem (default: ~/.local)"
}

func installSetup(remove bool) func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
	return func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		f := installFlags{
			settings: fs.String("settings", "", "the settings.json `file` to edit (default: ~/.claude/settings.json, or under CLAUDE_CONFIG_DIR)"),
			prefix:   fs.String("prefix", "", prefixUsage(remove)),
			dryRun:   fs.Bool("dry-run", false, "print what would change, change nothing"),
			asJSON:   fs.Bool("json", false, "print the report as JSON"),
		}
		if !remove {
			f.statusLine = fs.Bool("status-line", false, "only register this ccmem's status line (for the plugin, which cannot)")
			f.doImport = fs.Bool("import", false, "then import the sessions Claude Code already keeps (ccmem import), without asking")
			f.codex = fs.Bool("codex", false, "serve Codex CLI too: register the hooks in CODEX_HOME/hooks.json")
			f.trust = fs.Bool("codex-trust", false, "with --codex: write the trust entries Codex needs to run them into CODEX_HOME/config.toml")
			f.gemini = fs.Bool("gemini", false, "serve Gemini CLI too: register the hooks in ~/.gemini/settings.json")
			f.opencode = fs.Bool("opencode", false, "serve opencode too: write its plugin, ~/.config/opencode/plugin/ccmem.js")
			f.noRestore = new(bool)
		} else {
			f.statusLine, f.doImport, f.codex, f.trust, f.gemini, f.opencode = new(bool), new(bool), new(bool), new(bool), new(bool), new(bool)
			f.noRestore = fs.Bool("no-restore", false, "leave Claude Code's memory folders as ccmem learn left them")
		}
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			if *f.trust && !*f.codex {
				return command.Usagef("--codex-trust goes with --codex", "--codex-trust without --codex")
			}
			return runInstall(c, f, remove)
		}
	}
}

func runInstall(c *command.Ctx, f installFlags, remove bool) error {
	o := install.Options{Settings: *f.settings, Prefix: *f.prefix, DryRun: *f.dryRun, CommandsDir: filepath.Join(c.Env.ClaudeDir, "commands"),
		StatusLineOnly: *f.statusLine}
	if o.Settings == "" {
		o.Settings = c.Env.Settings()
	}
	if !o.StatusLineOnly {
		o.ClaudeJSON = c.Env.ClaudeJSON()
	}
	// pretooluse is registered for the tools of the global config's
	// guard.tools (a project's config cannot widen what runs everywhere).
	cfg, _ := config.Load(c.Env, "", "")
	o.GuardTools = cfg.Guard.Tools
	if o.Prefix == "" {
		if c.Env.Home == "" {
			return command.WithHint(fmt.Errorf("cannot find the home directory"), "pass --prefix DIR")
		}
		o.Prefix = filepath.Join(c.Env.Home, ".local")
	}
	for _, p := range []*string{&o.Settings, &o.Prefix} {
		if a, err := filepath.Abs(*p); err == nil {
			*p = a
		}
	}
	var err error
	if o.Exe, err = os.Executable(); err != nil {
		return fmt.Errorf("cannot find the running ccmem binary: %w", err)
	}
	var rep install.Report
	if remove {
		rep, err = install.Uninstall(o)
		if err == nil && !*f.noRestore {
			// Claude Code keeps what learn took from it.
			back, rerr := learn.Restore(c.Env, o.DryRun)
			for _, p := range back.Restored {
				rep.Actions = append(rep.Actions, install.Action{Kind: "restore", What: p + " (Claude Code's memory, from the store)"})
			}
			for _, p := range back.Indexes {
				rep.Actions = append(rep.Actions, install.Action{Kind: "restore", What: "its lines in " + p})
			}
			rep.Notes = append(rep.Notes, back.Skipped...)
			err = rerr
		}
	} else {
		rep, err = install.Install(o)
	}
	if err == nil {
		err = serveAgents(c, f, o, remove, &rep)
	}
	if errors.Is(err, install.ErrNoHookBinary) {
		return command.WithHint(err, "run `make build`, then `lib/ccmem/ccmem install` (or `make install`)")
	}
	plugin := false
	if errors.Is(err, install.ErrPluginEnabled) {
		// The plugin does the hooks and the MCP server: install gives what
		// a plugin cannot, the command on PATH and the status line.
		plugin = true
		rep, err = install.PluginCommand(o)
		rep.Notes = append([]string{"the ccmem plugin (" + claudecode.PluginID + ") is enabled: its hooks and MCP server do the work (registering them here too would run each twice); install added what a plugin cannot, the `ccmem` command and the status line"}, rep.Notes...)
	}
	if err != nil {
		return err
	}
	if !remove && !o.StatusLineOnly {
		installed := filepath.Join(install.BinDir(o.Prefix), claudecode.Exe("ccmem"))
		if plugin {
			installed = install.LauncherPath(o.Prefix)
		}
		if p := install.PathProblem(installed, c.P.Getenv("PATH"), c.P.Getenv("SHELL"), c.Env.Home); p != "" {
			rep.Notes = append(rep.Notes, p)
		}
	}
	if *f.asJSON {
		rep.Actions = orEmpty(rep.Actions)
		return c.PrintJSON(rep)
	}
	verb := "changed"
	if rep.DryRun {
		verb = "would change"
		fmt.Fprintln(c.Stdout, "dry run: nothing was written")
	}
	t := c.Env.TildeText
	if !rep.Changed() {
		for _, n := range rep.Notes {
			fmt.Fprintf(c.Stdout, "note      %s\n", t(n))
		}
		switch {
		case remove:
			fmt.Fprintf(c.Stdout, "ccmem is not installed (nothing in %s or under %s); nothing %s\n", c.Env.Tilde(rep.Settings), c.Env.Tilde(o.Prefix), verb)
		case o.StatusLineOnly:
			fmt.Fprintf(c.Stdout, "ccmem's status line is already registered in %s; nothing %s\n", c.Env.Tilde(rep.Settings), verb)
		case plugin:
			fmt.Fprintf(c.Stdout, "the `ccmem` command and the status line are already there for the plugin; nothing %s\n", verb)
		default:
			fmt.Fprintf(c.Stdout, "ccmem is already installed and registered in %s; nothing %s\n", c.Env.Tilde(rep.Settings), verb)
		}
		return nil
	}
	for _, a := range rep.Actions {
		if rep.DryRun {
			fmt.Fprintf(c.Stdout, "would %s\n", t(dryRunLine(a, rep.Settings)))
			continue
		}
		fmt.Fprintf(c.Stdout, "%-9s %s\n", a.Kind, t(a.What))
	}
	if rep.Backup != "" {
		fmt.Fprintf(c.Stdout, "backup    %s (the settings before this change)\n", c.Env.Tilde(rep.Backup))
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(c.Stdout, "note      %s\n", t(n))
	}
	if !rep.DryRun {
		switch {
		case remove:
			fmt.Fprintf(c.Stdout, "ccmem is uninstalled; your memory in %s was left in place\n", c.Env.Tilde(c.Env.Store))
		case o.StatusLineOnly:
			fmt.Fprintf(c.Stdout, "ccmem's status line is registered: Claude Code shows the memory backlog below the prompt\n")
		case plugin:
			fmt.Fprintf(c.Stdout, "`ccmem` now runs the plugin's ccmem in your terminal, and Claude Code shows its status line\n")
		default:
			fmt.Fprintf(c.Stdout, "ccmem is installed: new Claude Code sessions start with your memory (see it with `ccmem show`)\n")
		}
	}
	if !remove && !o.StatusLineOnly && !rep.DryRun {
		return offerImport(c, *f.doImport)
	}
	return nil
}

// offerImport offers, once ccmem is installed, to import the sessions
// Claude Code already keeps, so memory starts full: at a terminal it asks
// (yes by default); elsewhere it says how, unless --import asked for it.
func offerImport(c *command.Ctx, yes bool) error {
	n := importable(c.Env)
	if n == 0 {
		return nil
	}
	where := c.Env.Tilde(c.Env.SilosDir())
	if !yes && hookio.IsTerminal(c.P.Stdin) {
		fmt.Fprintf(c.Stdout, "Claude Code keeps %s in %s. Import them now, so your next sessions start with their projects' history? [Y/n] ",
			textfmt.Plural(n, "session transcript", "session transcripts"), where)
		answer, _ := bufio.NewReader(c.P.Stdin).ReadString('\n')
		yes = !strings.HasPrefix(strings.ToLower(strings.TrimSpace(answer)), "n")
	}
	if !yes {
		fmt.Fprintf(c.Stdout, "note      %s in %s can become episodes, so memory starts full: ccmem import\n", textfmt.Plural(n, "session", "sessions"), where)
		return nil
	}
	return runImport(c, "", 0, false, false)
}

// dryRunLine says what an action would do, after "would ".
func dryRunLine(a install.Action, settingsPath string) string {
	switch a.Kind {
	case "settings":
		return a.What + " in " + settingsPath
	case "mcp":
		return a.What
	case "backup":
		return "back up " + a.What
	}
	return a.Kind + " " + a.What
}

// codexRegistered tells whether any of ccmem's hooks is in Codex's
// hooks.json.
func codexRegistered(st []install.CodexTrust) bool {
	for _, t := range st {
		if t.Registered {
			return true
		}
	}
	return false
}

// serveAgents registers ccmem's hooks with the other agents asked for
// (--codex, --gemini, --opencode), takes them back at uninstall, and
// otherwise says when one is here and not served.
func serveAgents(c *command.Ctx, f installFlags, o install.Options, remove bool, rep *install.Report) error {
	for _, serve := range []func(*command.Ctx, installFlags, install.Options, bool) (install.Report, error){serveCodex, serveGemini, serveOpencode} {
		r, err := serve(c, f, o, remove)
		rep.Actions = append(rep.Actions, r.Actions...)
		rep.Notes = append(rep.Notes, r.Notes...)
		if err != nil {
			return err
		}
	}
	return nil
}

// serveCodex serves Codex when asked; its hooks are taken back whenever
// ccmem's are there.
func serveCodex(c *command.Ctx, f installFlags, o install.Options, remove bool) (rep install.Report, err error) {
	co := install.CodexOptions{Dir: c.Env.CodexDir, Lib: install.LibDir(o.Prefix), GuardTools: o.GuardTools, Trust: *f.trust, DryRun: o.DryRun}
	if c.Env.CodexDir == "" {
		return rep, nil
	}
	if *f.codex && !*f.trust && !o.DryRun && !*f.asJSON && hookio.IsTerminal(c.P.Stdin) {
		// Trust is the person's to give: asked, never assumed. They asked
		// for Codex to be served, and an untrusted hook Codex skips
		// without a word: yes unless they say no, and said either way.
		fmt.Fprintf(c.Stdout, "Codex runs a hook only once it is trusted. Write trust entries for ccmem's hooks into %s? [Y/n] ", c.Env.Tilde(install.CodexConfig(co.Dir)))
		line, _ := bufio.NewReader(c.P.Stdin).ReadString('\n')
		co.Trust = !strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "n")
		if !co.Trust {
			fmt.Fprintf(c.Stdout, "note      Codex skips ccmem's hooks until they are trusted: trust them in Codex, or run `ccmem install --codex --codex-trust`\n")
		}
	}
	switch {
	case remove:
		return install.UninstallCodex(co)
	case *f.codex && !o.StatusLineOnly:
		return install.InstallCodex(co)
	}
	if fi, serr := os.Stat(c.Env.CodexDir); serr == nil && fi.IsDir() && !o.StatusLineOnly {
		if st, _ := install.CodexState(co.Dir, co.Lib, co.GuardTools); !codexRegistered(st) {
			rep.Notes = append(rep.Notes, "Codex CLI is here too ("+c.Env.Tilde(c.Env.CodexDir)+"): `ccmem install --codex` serves it with the same memory")
		}
	}
	return rep, nil
}

// serveGemini is serveCodex for Gemini CLI, which has no trust entries.
func serveGemini(c *command.Ctx, f installFlags, o install.Options, remove bool) (rep install.Report, err error) {
	if c.Env.GeminiDir == "" {
		return rep, nil
	}
	g := install.GeminiOptions{Dir: c.Env.GeminiDir, Lib: install.LibDir(o.Prefix), GuardTools: o.GuardTools, DryRun: o.DryRun}
	switch {
	case remove:
		return install.UninstallGemini(g)
	case *f.gemini && !o.StatusLineOnly:
		return install.InstallGemini(g)
	}
	if fi, serr := os.Stat(c.Env.GeminiDir); serr == nil && fi.IsDir() && !o.StatusLineOnly && !install.GeminiRegistered(g.Dir) {
		rep.Notes = append(rep.Notes, "Gemini CLI is here too ("+c.Env.Tilde(c.Env.GeminiDir)+"): `ccmem install --gemini` serves it with the same memory")
	}
	return rep, nil
}

// serveOpencode writes opencode's plugin when asked, and removes it
// whenever it is ccmem's.
func serveOpencode(c *command.Ctx, f installFlags, o install.Options, remove bool) (rep install.Report, err error) {
	if c.Env.OpencodeConfigDir == "" {
		return rep, nil
	}
	oo := install.OpencodeOptions{Dir: c.Env.OpencodeConfigDir, Lib: install.LibDir(o.Prefix),
		CCMem: filepath.Join(install.BinDir(o.Prefix), claudecode.Exe("ccmem")), GuardTools: o.GuardTools, DryRun: o.DryRun}
	switch {
	case remove:
		return install.UninstallOpencode(oo)
	case *f.opencode && !o.StatusLineOnly:
		return install.InstallOpencode(oo)
	}
	if fi, serr := os.Stat(c.Env.OpencodeConfigDir); serr == nil && fi.IsDir() && !o.StatusLineOnly && !install.OpencodeRegistered(oo.Dir) {
		rep.Notes = append(rep.Notes, "opencode is here too ("+c.Env.Tilde(c.Env.OpencodeConfigDir)+"): `ccmem install --opencode` serves it with the same memory")
	}
	return rep, nil
}
