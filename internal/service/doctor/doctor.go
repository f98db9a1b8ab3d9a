// Package doctor checks a ccmem install the way a careful person would: the
// binaries are there and executable, settings.json registers each hook once
// and at the installed binary, the store is private, the config parses, and
// each hook runs, timed.
package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/service/install"
	"github.com/ccmem/ccmem/internal/service/settings"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/syncstate"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Check is one line of the doctor's report.
type Check struct {
	OK     bool   `json:"ok"`
	What   string `json:"what"`
	Detail string `json:"detail,omitempty"`
}

// Options say what to check.
type Options struct {
	Env store.Env
	// Settings is the settings.json to check; Prefix where ccmem was
	// installed (PREFIX/bin, PREFIX/lib/ccmem).
	Settings, Prefix string
	// Cwd is where the project config is read and sessionstart dry-runs.
	Cwd string
	// Fix makes the store's files 0600 and folders 0700 first.
	Fix bool
	// Path and Shell are the user's PATH and SHELL: `ccmem` by name
	// should run the installed binary.
	Path, Shell string
}

// doctor is one run of the checks.
type doctor struct {
	Options
	checks []Check
	// plugin is set on the plugin route: the ccmem plugin is enabled in
	// settings.json, and registers the hooks and the MCP server itself.
	plugin bool
}

func (d *doctor) add(ok bool, what, detail string) {
	d.checks = append(d.checks, Check{ok, what, detail})
}

// Run runs every check, in order: binaries, registrations, store
// permissions, config, and a timed dry run of each hook.
func Run(o Options) []Check {
	d := &doctor{Options: o}
	if d.Settings == "" {
		d.Settings = o.Env.Settings()
	}
	if d.Prefix == "" {
		d.Prefix = DefaultPrefix(o.Env)
	}
	if data, err := os.ReadFile(d.Settings); err == nil {
		if root, err := settings.Parse(data); err == nil && install.PluginEnabled(root) {
			d.plugin = true
		}
	}
	if d.plugin {
		d.add(true, "route", "the Claude Code plugin "+claudecode.PluginID+" (it registers the hooks and the MCP server; binaries in "+d.Env.Tilde(d.Prefix)+")")
	}
	d.checkBinaries()
	d.checkPath()
	d.checkRegistrations()
	d.checkMCP()
	d.checkCodex()
	d.checkGemini()
	d.checkOpencode()
	d.checkStore()
	d.checkLedger()
	d.checkProjects()
	d.checkSync()
	d.checkConfig()
	d.dryRuns()
	return d.checks
}

// checkBinaries: ccmem and each hook binary are installed and executable.
func (d *doctor) checkBinaries() {
	lib := install.LibDir(d.Prefix)
	for _, name := range append([]string{"ccmem"}, hookBinaries()...) {
		path := filepath.Join(lib, claudecode.Exe(name))
		if name == "ccmem" {
			path = filepath.Join(install.BinDir(d.Prefix), claudecode.Exe("ccmem"))
		}
		d.add(executable(path), name+" binary", d.Env.Tilde(path)+problemOf(path))
	}
}

// checkPath: `ccmem` by name runs the installed ccmem. The slash commands
// and hooks do not need it (they use full paths), the user does.
func (d *doctor) checkPath() {
	installed := filepath.Join(install.BinDir(d.Prefix), claudecode.Exe("ccmem"))
	if d.plugin {
		// The plugin's `ccmem` is the launcher ccmem install wrote; it
		// runs the release the plugin downloaded.
		launcher := install.LauncherPath(filepath.Join(d.Env.Home, ".local"))
		if !executable(launcher) {
			d.add(false, "PATH", "no `ccmem` command for the plugin yet (the first session with the plugin offers the line that writes it: ccmem install)")
			return
		}
		installed = launcher
	}
	if !executable(installed) {
		return // the binary check has said it
	}
	if p := install.PathProblem(installed, d.Path, d.Shell, d.Env.Home); p != "" {
		d.add(false, "PATH", d.Env.TildeText(p))
		return
	}
	d.add(true, "PATH", "`ccmem` runs "+d.Env.Tilde(installed))
}

// checkRegistrations: settings.json registers each hook once, at the
// installed binary, and ccmem's status line when it is ccmem's.
func (d *doctor) checkRegistrations() {
	e := d.Env
	data, err := os.ReadFile(d.Settings)
	if err != nil {
		d.add(false, "settings", fmt.Sprintf("%s: %v (run `ccmem install`)", e.Tilde(d.Settings), pathErrText(err)))
		return
	}
	root, err := settings.Parse(data)
	if err != nil {
		d.add(false, "settings", fmt.Sprintf("%s: %v", e.Tilde(d.Settings), err))
		return
	}
	lib := install.LibDir(d.Prefix)
	if d.plugin {
		// The plugin registers the hooks itself: settings.json must not
		// register them again (each would run twice).
		twice := 0
		for _, h := range claudecode.Hooks {
			twice += len(settings.Commands(root, h.Event, claudecode.Owned))
		}
		if twice > 0 {
			d.add(false, "hooks", fmt.Sprintf("registered by the plugin and %d times in %s too: each runs twice (run `ccmem uninstall` to take settings.json's out; the plugin keeps its own)", twice, e.Tilde(d.Settings)))
		} else {
			d.add(true, "hooks", "registered by the plugin, none in "+e.Tilde(d.Settings))
		}
	}
	for _, h := range claudecode.Hooks {
		if d.plugin {
			break
		}
		want := filepath.Join(lib, claudecode.Exe(h.Binary))
		cmds := settings.Commands(root, h.Event, claudecode.Owned)
		switch {
		case len(cmds) == 0:
			d.add(false, h.Event+" hook", "not registered (run `ccmem install`)")
		case len(cmds) > 1:
			d.add(false, h.Event+" hook", fmt.Sprintf("registered %d times: %s", len(cmds), strings.Join(cmds, ", ")))
		case claudecode.CommandPath(cmds[0]) != want:
			d.add(false, h.Event+" hook", fmt.Sprintf("points to %s, not the installed %s (run `ccmem install`)", cmds[0], e.Tilde(want)))
		case !executable(want):
			d.add(false, h.Event+" hook", fmt.Sprintf("%s%s (run `ccmem install`)", e.Tilde(want), problemOf(want)))
		default:
			d.add(true, h.Event+" hook", e.Tilde(want))
		}
	}
	if sl := root.Get("statusLine"); sl != nil {
		if cmd, _ := sl.Get("command").Str(); install.OwnedStatusLine(cmd) {
			p := install.StatusLinePath(cmd)
			d.add(executable(p), "status line", e.Tilde(p)+problemOf(p))
		}
	}
}

// checkMCP: the client's .claude.json registers ccmem's MCP server at the
// installed ccmem.
func (d *doctor) checkMCP() {
	e := d.Env
	path := e.ClaudeJSON()
	if d.plugin {
		// The plugin registers its server itself: .claude.json must not
		// register ccmem's again.
		if data, err := os.ReadFile(path); err == nil {
			if root, err := settings.Parse(data); err == nil && root.Get("mcpServers").Get(install.MCPServer) != nil {
				d.add(false, "MCP server", fmt.Sprintf("registered by the plugin and in %s too (run `ccmem uninstall` to take that one out)", e.Tilde(path)))
				return
			}
		}
		d.add(true, "MCP server", "registered by the plugin")
		return
	}
	want := filepath.Join(install.BinDir(d.Prefix), claudecode.Exe("ccmem"))
	data, err := os.ReadFile(path)
	if err != nil {
		d.add(false, "MCP server", fmt.Sprintf("%s: %v (run `ccmem install`)", e.Tilde(path), pathErrText(err)))
		return
	}
	root, err := settings.Parse(data)
	if err != nil {
		d.add(false, "MCP server", fmt.Sprintf("%s: %v", e.Tilde(path), err))
		return
	}
	entry := root.Get("mcpServers").Get(install.MCPServer)
	cmd, _ := entry.Get("command").Str()
	switch {
	case entry == nil:
		d.add(false, "MCP server", fmt.Sprintf("not registered in %s (run `ccmem install`)", e.Tilde(path)))
	case cmd != want:
		d.add(false, "MCP server", fmt.Sprintf("%s runs %s, not the installed %s (run `ccmem install`)", install.MCPServer, cmd, e.Tilde(want)))
	default:
		d.add(true, "MCP server", install.MCPServer+": "+e.Tilde(want)+" mcp")
	}
}

// checkStore: the store is private (and made so with --fix).
func (d *doctor) checkStore() {
	e := d.Env
	if d.Fix {
		fixPermissions(e.Store)
	}
	if runtime.GOOS == "windows" {
		// Windows guards files with ACLs, not mode bits: the store inherits
		// the user profile's, which other users cannot read.
		d.add(true, "store", e.Tilde(e.Store)+" is in the user profile (permissions are ACLs on Windows, not checked)")
		return
	}
	bad, n := storePermissions(e.Store)
	switch {
	case n == 0:
		d.add(true, "store", e.Tilde(e.Store)+" not created yet")
	case len(bad) == 0:
		d.add(true, "store", fmt.Sprintf("%s is private (%s checked)", e.Tilde(e.Store), textfmt.Plural(n, "entry", "entries")))
	}
	for _, b := range bad {
		d.add(false, "store", e.TildeText(b)+" (run `ccmem doctor --fix`)")
	}
}

// checkLedger: the provenance ledger can be read (a damaged one attests
// nothing: no rule of the person's holds until it is repaired), and how
// much of the memory waits for the person's word.
func (d *doctor) checkLedger() {
	e := d.Env
	l := provenance.Load(e)
	if l.Err != nil {
		d.add(false, "provenance", fmt.Sprintf("%s cannot be read (%v): no line is yours until it is repaired; move it aside (mv %s %s.damaged) and accept again what is yours: ccmem learn review",
			e.Tilde(provenance.Path(e)), l.Err, e.Tilde(provenance.Path(e)), e.Tilde(provenance.Path(e))))
		return
	}
	waiting, err := notes.ListUnconfirmed(e)
	switch {
	case err != nil:
		d.add(false, "provenance", err.Error())
	case len(waiting) > 0:
		d.add(true, "provenance", fmt.Sprintf("%s of your memory not confirmed by you (no rule until you accept it): ccmem learn review", textfmt.Plural(len(waiting), "line or entry", "lines and entries")))
	default:
		d.add(true, "provenance", "everything in your memory is yours or labelled")
	}
}

// checkConfig: the config files of the current directory's project parse
// and hold only known keys and allowed values.
func (d *doctor) checkConfig() {
	root, key := "", ""
	if p, err := store.ResolveProject(d.Env, d.Cwd); err == nil {
		root, key = p.Root, p.Key
	}
	_, files := config.Load(d.Env, root, key)
	problems := config.Problems(d.Env, files)
	if len(problems) == 0 {
		d.add(true, "config", "parses")
	}
	for _, p := range problems {
		d.add(false, "config", p)
	}
}

func hookBinaries() []string {
	var out []string
	for _, h := range claudecode.Hooks {
		out = append(out, h.Binary)
	}
	return append(out, install.Helpers...)
}

// checkProjects shows how the store's project folders map to folders of
// this machine: a project with a git remote is keyed by it (the same key
// on every machine), one without by its path.
func (d *doctor) checkProjects() {
	e := d.Env
	ents, _ := os.ReadDir(e.ProjectsDir())
	for _, de := range ents {
		if !de.IsDir() || !store.ValidKey(de.Name()) {
			continue
		}
		key := de.Name()
		root := e.ProjectRoot(key)
		switch {
		case root == "":
			d.add(true, "project", key+" ← not on this machine yet (synced from another)")
		case strings.HasPrefix(key, "git-"):
			d.add(true, "project", key+" ← "+e.Tilde(root)+" (keyed by its git remote)")
		default:
			d.add(true, "project", key+" ← "+e.Tilde(root)+" (keyed by its path)")
		}
	}
	if p, err := store.ResolveProject(e, d.Cwd); err == nil {
		what := p.Key
		if k := store.RemoteKey(p.Remote); k != "" && k != p.Key {
			what += " (its remote's key " + k + " is another folder's; or its memory names a commit this clone does not hold, as a copied folder or a shallow clone; or it moves there at its next session)"
		}
		d.add(true, "project", "here: "+e.Tilde(p.Root)+" → "+what)
	}
}

// checkSync says whether the store syncs, with what, and how the last
// sync went.
func (d *doctor) checkSync() {
	e := d.Env
	if !syncstate.IsSetUp(e) {
		d.add(true, "sync", "not set up (`ccmem sync init REMOTE` carries the store between machines)")
		return
	}
	st := syncstate.ReadState(e)
	switch {
	case st.Finished.IsZero():
		d.add(true, "sync", "with "+st.Remote+"; no sync finished yet")
	case st.OK:
		d.add(true, "sync", "with "+st.Remote+"; last "+st.Finished.Local().Format("2006-01-02 15:04")+", ok")
	default:
		d.add(false, "sync", "with "+st.Remote+"; last "+st.Finished.Local().Format("2006-01-02 15:04")+" failed: "+st.Error)
	}
	for _, h := range st.Report.Held {
		d.add(false, "sync", strconv.Quote(h.Path)+" stays on this machine ("+strings.Join(h.Kinds, ", ")+")")
	}
	for _, r := range st.Report.Refused {
		d.add(false, "sync", "refused "+strconv.Quote(r.Path)+" from the remote's commit "+r.Commit+" ("+r.Why+")")
	}
}

// DefaultPrefix is the install prefix of the running ccmem when it runs
// from PREFIX/bin, else ~/.local.
func DefaultPrefix(e store.Env) string {
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		if filepath.Base(dir) == "bin" {
			if _, err := os.Stat(install.LibDir(filepath.Dir(dir))); err == nil {
				return filepath.Dir(dir)
			}
		}
	}
	return filepath.Join(e.Home, ".local")
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && install.Executable(fi)
}

func problemOf(p string) string {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return ": " + pathErrText(err)
	case !fi.Mode().IsRegular():
		return ": not a regular file"
	case !install.Executable(fi):
		return ": not executable"
	}
	return ""
}

// pathErrText is a file error without the path it names (shown beside it).
func pathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// storePermissions lists store entries readable or writable by others.
func storePermissions(store string) (bad []string, n int) {
	filepath.WalkDir(store, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			return nil
		}
		n++
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm()&0o077 != 0 {
			bad = append(bad, fmt.Sprintf("%s is %04o, want %04o", p, fi.Mode().Perm(), want))
		}
		return nil
	})
	return bad, n
}

func fixPermissions(store string) {
	filepath.WalkDir(store, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			return nil
		}
		os.Chmod(p, fi.Mode().Perm()&^0o077)
		return nil
	})
}

// dryRuns runs each installed hook once on a harmless sample: sessionstart
// on the current directory without a session (it writes no checkpoint);
// the others (stop, precompact, the prompt and tool hooks) on a throwaway
// store and transcript.
func (d *doctor) dryRuns() {
	lib, cwd := install.LibDir(d.Prefix), d.Cwd
	tmp, err := os.MkdirTemp("", "ccmem-doctor-")
	if err != nil {
		d.add(false, "dry run", err.Error())
		return
	}
	defer os.RemoveAll(tmp)
	transcript := filepath.Join(tmp, "t.jsonl")
	os.WriteFile(transcript, []byte(`{"type":"user","message":{"role":"user","content":"doctor"},"timestamp":"2026-01-01T00:00:00Z"}`+"\n"), 0o600)
	repo := filepath.Join(tmp, "repo")
	os.MkdirAll(repo, 0o700)
	type run struct {
		name    string
		payload claudecode.Payload
		env     []string
		check   func(stdout []byte) string
	}
	// turn is a payload of a session in the throwaway repository.
	turn := func(event string) claudecode.Payload {
		return claudecode.Payload{SessionID: "doctor", TranscriptPath: transcript, Cwd: repo, HookEventName: event}
	}
	with := func(p claudecode.Payload, f func(*claudecode.Payload)) claudecode.Payload { f(&p); return p }
	base := os.Environ()
	runs := []run{
		{"sessionstart", claudecode.Payload{Cwd: cwd, HookEventName: "SessionStart", Source: "startup"}, base, func(out []byte) string {
			block := claudecode.ParseOutput(out).AddedContext()
			if block == "" {
				return "printed no memory block"
			}
			return fmt.Sprintf("%d characters injected", textfmt.Chars(block))
		}},
		{"stop", turn("Stop"),
			append(base, "CCMEM_HOME="+filepath.Join(tmp, "store")), func(out []byte) string {
				if len(out) > 0 {
					return "printed output (a Stop hook must be silent)"
				}
				return "checkpoint written"
			}},
		{"userpromptsubmit", with(turn("UserPromptSubmit"), func(p *claudecode.Payload) { p.Prompt = "doctor" }),
			append(base, "CCMEM_HOME="+filepath.Join(tmp, "store")), func(out []byte) string {
				if len(out) > 0 {
					return "printed context for a session with nothing to carry"
				}
				return "nothing to add"
			}},
		{"precompact", with(turn("PreCompact"), func(p *claudecode.Payload) { p.Trigger = "manual" }),
			append(base, "CCMEM_HOME="+filepath.Join(tmp, "store")), func(out []byte) string {
				return fmt.Sprintf("%d bytes of compaction instructions", len(bytes.TrimSpace(out)))
			}},
		{"pretooluse", with(turn("PreToolUse"), func(p *claudecode.Payload) {
			p.ToolName, p.ToolInput, p.ToolUseID = "Bash", json.RawMessage(`{"command":"true"}`), "doctor"
		}),
			append(base, "CCMEM_HOME="+filepath.Join(tmp, "store")), func(out []byte) string {
				if len(out) > 0 {
					return "printed context for a call no rule bears on"
				}
				return "no rule bears on `true`"
			}},
		{"posttoolusefailure", with(turn("PostToolUseFailure"), func(p *claudecode.Payload) {
			p.ToolName, p.ToolInput, p.ToolUseID, p.Error = "Bash", json.RawMessage(`{"command":"false"}`), "doctor", "Exit code 1\ndoctor: no such failure"
		}),
			append(base, "CCMEM_HOME="+filepath.Join(tmp, "store")), func(out []byte) string {
				if len(out) > 0 {
					return "printed an earlier fix from an empty store"
				}
				return "no earlier fix"
			}},
		{"subagentstart", with(turn("SubagentStart"), func(p *claudecode.Payload) { p.AgentID, p.AgentType = "doctor", "general-purpose" }),
			append(base, "CCMEM_HOME="+filepath.Join(tmp, "store")), func(out []byte) string {
				return fmt.Sprintf("%d bytes of context", len(bytes.TrimSpace(out)))
			}},
	}
	// Every hook has its dry run: one added to the hook list without a
	// sample here is said, not skipped.
	for _, h := range claudecode.Hooks {
		if !slices.ContainsFunc(runs, func(r run) bool { return r.name == h.Binary }) {
			d.add(false, h.Binary+" dry run", "not run: doctor has no sample payload for this hook")
		}
	}
	for _, r := range runs {
		path := filepath.Join(lib, claudecode.Exe(r.name))
		if !executable(path) {
			d.add(false, r.name+" dry run", "not run: the binary is missing")
			continue
		}
		cmd := exec.Command(path)
		cmd.Env = r.env
		cmd.Dir = cwd
		cmd.Stdin = bytes.NewReader(r.payload.JSON())
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		detail := fmt.Sprintf("%.1f ms, ", float64(took.Microseconds())/1000) + r.check(stdout.Bytes())
		ok := err == nil
		if err != nil {
			detail = fmt.Sprintf("%v: %s", err, strings.TrimSpace(stderr.String()))
		} else if took > 2*time.Second {
			ok, detail = false, detail+" (slow: the client allows 5 s)"
		}
		if msg := strings.TrimSpace(stderr.String()); ok && msg != "" {
			detail += "; said: " + msg
		}
		d.add(ok, r.name+" dry run", detail)
	}
}

// checkGemini reports on Gemini CLI when ccmem's hooks are registered
// there: each as install writes it now, or a hook Gemini runs is another
// install's, or missing.
func (d *doctor) checkGemini() {
	if d.Env.GeminiDir == "" || !install.GeminiRegistered(d.Env.GeminiDir) {
		return // not served: nothing to say
	}
	cfg, _ := config.Load(d.Env, "", "")
	missing, err := install.GeminiMissing(d.Env.GeminiDir, install.LibDir(d.Prefix), cfg.Guard.Tools)
	switch {
	case err != nil:
		d.add(false, "Gemini hooks", err.Error())
	case len(missing) > 0:
		d.add(false, "Gemini hooks", fmt.Sprintf("%s not as this ccmem registers them (another install's path, or taken out): run `ccmem install --gemini`", strings.Join(missing, ", ")))
	default:
		d.add(true, "Gemini hooks", "registered in "+d.Env.Tilde(install.GeminiSettings(d.Env.GeminiDir)))
	}
}

// checkOpencode reports on opencode when ccmem's plugin is there: the one
// install writes now, or another install's (its paths, an older ccmem).
func (d *doctor) checkOpencode() {
	if d.Env.OpencodeConfigDir == "" || !install.OpencodeRegistered(d.Env.OpencodeConfigDir) {
		return // not served: nothing to say
	}
	cfg, _ := config.Load(d.Env, "", "")
	o := install.OpencodeOptions{Dir: d.Env.OpencodeConfigDir, Lib: install.LibDir(d.Prefix),
		CCMem: filepath.Join(install.BinDir(d.Prefix), claudecode.Exe("ccmem")), GuardTools: cfg.Guard.Tools}
	path := d.Env.Tilde(install.OpencodePlugin(o.Dir))
	if install.OpencodeCurrent(o) {
		d.add(true, "opencode plugin", path)
		return
	}
	d.add(false, "opencode plugin", path+" is not the one this ccmem writes (another install's paths, or an older ccmem): run `ccmem install --opencode`")
}

// checkCodex reports on Codex CLI when ccmem's hooks are registered there:
// each must be trusted, or Codex skips it without a word.
func (d *doctor) checkCodex() {
	if d.Env.CodexDir == "" {
		return
	}
	cfg, _ := config.Load(d.Env, "", "")
	st, err := install.CodexState(d.Env.CodexDir, install.LibDir(d.Prefix), cfg.Guard.Tools)
	if err != nil {
		d.add(false, "Codex hooks", err.Error())
		return
	}
	var registered, untrusted []string
	for _, t := range st {
		if t.Registered {
			registered = append(registered, t.Event)
			if !t.Trusted {
				untrusted = append(untrusted, t.Event)
			}
		}
	}
	switch {
	case len(registered) == 0:
		return // not served: nothing to say
	case len(untrusted) > 0:
		d.add(false, "Codex hooks", fmt.Sprintf("%s registered but not trusted: Codex skips them without a word (start codex and trust them when it asks, or run `ccmem install --codex --codex-trust`)", strings.Join(untrusted, ", ")))
	default:
		d.add(true, "Codex hooks", fmt.Sprintf("%d registered in %s and trusted", len(registered), d.Env.Tilde(install.CodexHooksFile(d.Env.CodexDir))))
	}
}
