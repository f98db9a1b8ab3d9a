package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/install"
	"github.com/ccmem/ccmem/internal/settings"
	"github.com/ccmem/ccmem/internal/str"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/store"
)

var cmdDoctor = &command{
	name: "doctor", args: "[--settings FILE] [--prefix DIR] [--fix] [--json]",
	summary: "check the install: binaries, registrations, store permissions, config, hooks",
	help: `Checks that ccmem's binaries are present and executable, that settings.json
registers each hook exactly once and at the installed binary, that the store
is private (folders 0700, files 0600), that the config files parse, and runs
each hook once on a harmless sample, timed. It exits 1 with the list of
problems when something is wrong. --fix makes store files and folders
private; anything else it names a command for.`,
	setup: func(fs *flag.FlagSet) func(c *ctx, args []string) error {
		d := &doctor{}
		fs.StringVar(&d.settings, "settings", "", "the settings.json `file` to check (default: ~/.claude/settings.json)")
		fs.StringVar(&d.prefix, "prefix", "", "where ccmem was installed: `DIR`/bin, DIR/lib/ccmem (default: where this ccmem runs from, else ~/.local)")
		fs.BoolVar(&d.fix, "fix", false, "make the store's files 0600 and folders 0700")
		asJSON := fs.Bool("json", false, "print the checks as JSON")
		return func(c *ctx, args []string) error {
			if err := noArgs(fs, args); err != nil {
				return err
			}
			return runDoctor(c, d, *asJSON)
		}
	},
}

// check is one line of the doctor's report.
type check struct {
	OK     bool   `json:"ok"`
	What   string `json:"what"`
	Detail string `json:"detail,omitempty"`
}

// doctor is one run of the checks.
type doctor struct {
	settings, prefix string
	fix              bool
	c                *ctx
	checks           []check
}

func (d *doctor) add(ok bool, what, detail string) {
	d.checks = append(d.checks, check{ok, what, detail})
}

func runDoctor(c *ctx, d *doctor, asJSON bool) error {
	d.c = c
	if d.settings == "" {
		d.settings = c.env.Settings()
	}
	if d.prefix == "" {
		d.prefix = defaultPrefix(c.env)
	}
	cwd, _ := os.Getwd()
	d.checkBinaries()
	d.checkRegistrations()
	d.checkStore()
	d.checkConfig(cwd)
	d.checks = append(d.checks, dryRuns(c, install.LibDir(d.prefix), cwd)...)

	failed := 0
	for _, ch := range d.checks {
		if !ch.OK {
			failed++
		}
	}
	if asJSON {
		if err := c.printJSON(struct {
			OK     bool    `json:"ok"`
			Checks []check `json:"checks"`
		}{failed == 0, d.checks}); err != nil {
			return err
		}
	} else {
		for _, ch := range d.checks {
			mark := "ok  "
			if !ch.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(c.out, "%s  %-21s %s\n", mark, ch.What, ch.Detail)
		}
	}
	if failed > 0 {
		return fmt.Errorf("doctor found %s", plural(failed, "problem", "problems"))
	}
	if !asJSON {
		fmt.Fprintln(c.out, "no problems found")
	}
	return nil
}

// checkBinaries: ccmem and each hook binary are installed and executable.
func (d *doctor) checkBinaries() {
	lib := install.LibDir(d.prefix)
	for _, name := range append([]string{"ccmem"}, hookBinaries()...) {
		path := filepath.Join(lib, name)
		if name == "ccmem" {
			path = filepath.Join(install.BinDir(d.prefix), "ccmem")
		}
		d.add(executable(path), name+" binary", d.c.env.Tilde(path)+problemOf(path))
	}
}

// checkRegistrations: settings.json registers each hook once, at the
// installed binary, and ccmem's status line when it is ccmem's.
func (d *doctor) checkRegistrations() {
	e := d.c.env
	data, err := os.ReadFile(d.settings)
	if err != nil {
		d.add(false, "settings", fmt.Sprintf("%s: %v (run `ccmem install`)", e.Tilde(d.settings), pathErrText(err)))
		return
	}
	root, err := settings.Parse(data)
	if err != nil {
		d.add(false, "settings", fmt.Sprintf("%s: %v", e.Tilde(d.settings), err))
		return
	}
	lib := install.LibDir(d.prefix)
	for _, h := range install.Hooks {
		want := filepath.Join(lib, h.Binary)
		cmds := registered(root, h.Event)
		switch {
		case len(cmds) == 0:
			d.add(false, h.Event+" hook", "not registered (run `ccmem install`)")
		case len(cmds) > 1:
			d.add(false, h.Event+" hook", fmt.Sprintf("registered %d times: %s", len(cmds), strings.Join(cmds, ", ")))
		case settings.CommandPath(cmds[0]) != want:
			d.add(false, h.Event+" hook", fmt.Sprintf("points to %s, not the installed %s (run `ccmem install`)", cmds[0], e.Tilde(want)))
		case !executable(want):
			d.add(false, h.Event+" hook", fmt.Sprintf("%s%s (run `ccmem install`)", e.Tilde(want), problemOf(want)))
		default:
			d.add(true, h.Event+" hook", e.Tilde(want))
		}
	}
	if sl := root.Get("statusLine"); sl != nil {
		if cmd, _ := sl.Get("command").Str(); install.OwnedStatusLine(cmd) {
			p := settings.CommandPath(cmd)
			d.add(executable(p), "status line", e.Tilde(p)+problemOf(p))
		}
	}
}

// checkStore: the store is private (and made so with --fix).
func (d *doctor) checkStore() {
	e := d.c.env
	if d.fix {
		fixPermissions(e.Store)
	}
	bad, n := storePermissions(e.Store)
	switch {
	case n == 0:
		d.add(true, "store", e.Tilde(e.Store)+" not created yet")
	case len(bad) == 0:
		d.add(true, "store", fmt.Sprintf("%s is private (%d entries checked)", e.Tilde(e.Store), n))
	}
	for _, b := range bad {
		d.add(false, "store", b+" (run `ccmem doctor --fix`)")
	}
}

// checkConfig: the config files of the current directory's project parse
// and hold only known keys and allowed values.
func (d *doctor) checkConfig(cwd string) {
	root := ""
	if p, err := store.ResolveProject(d.c.env, cwd); err == nil {
		root = p.Root
	}
	_, files := config.Load(d.c.env, root)
	problems := config.Problems(d.c.env, files)
	if len(problems) == 0 {
		d.add(true, "config", "parses")
	}
	for _, p := range problems {
		d.add(false, "config", p)
	}
}

func hookBinaries() []string {
	var out []string
	for _, h := range install.Hooks {
		out = append(out, h.Binary)
	}
	return out
}

// defaultPrefix is the install prefix of the running ccmem when it runs
// from PREFIX/bin, else ~/.local.
func defaultPrefix(e store.Env) string {
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
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func problemOf(p string) string {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return ": " + pathErrText(err)
	case !fi.Mode().IsRegular():
		return ": not a regular file"
	case fi.Mode().Perm()&0o111 == 0:
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

// registered lists the ccmem commands registered for an event.
func registered(root *settings.Value, event string) []string {
	var out []string
	hooks := root.Get("hooks")
	if hooks == nil || hooks.Kind != settings.Object {
		return nil
	}
	groups := hooks.Get(event)
	if groups == nil || groups.Kind != settings.Array {
		return nil
	}
	for _, g := range groups.Items {
		hs := g.Get("hooks")
		if hs == nil || hs.Kind != settings.Array {
			continue
		}
		for _, e := range hs.Items {
			if cmd, _ := e.Get("command").Str(); cmd != "" && install.Owned(cmd) {
				out = append(out, cmd)
			}
		}
	}
	return out
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
// stop and precompact on a throwaway store and transcript.
func dryRuns(c *ctx, lib, cwd string) []check {
	var out []check
	tmp, err := os.MkdirTemp("", "ccmem-doctor-")
	if err != nil {
		return []check{{false, "dry run", err.Error()}}
	}
	defer os.RemoveAll(tmp)
	transcript := filepath.Join(tmp, "t.jsonl")
	os.WriteFile(transcript, []byte(`{"type":"user","message":{"role":"user","content":"doctor"},"timestamp":"2026-01-01T00:00:00Z"}`+"\n"), 0o600)
	repo := filepath.Join(tmp, "repo")
	os.MkdirAll(repo, 0o700)
	type run struct {
		name, payload string
		env           []string
		check         func(stdout []byte) string
	}
	base := os.Environ()
	runs := []run{
		{"sessionstart", fmt.Sprintf(`{"cwd":%q,"hook_event_name":"SessionStart","source":"startup"}`, cwd), base, func(out []byte) string {
			var v struct {
				H struct {
					C string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
			}
			if json.Unmarshal(out, &v) != nil || v.H.C == "" {
				return "printed no memory block"
			}
			return fmt.Sprintf("%d characters injected", str.Chars(v.H.C))
		}},
		{"stop", fmt.Sprintf(`{"session_id":"doctor","transcript_path":%q,"cwd":%q,"hook_event_name":"Stop"}`, transcript, repo),
			append(base, "CCMEM_HOME="+filepath.Join(tmp, "store")), func(out []byte) string {
				if len(out) > 0 {
					return "printed output (a Stop hook must be silent)"
				}
				return "checkpoint written"
			}},
		{"precompact", fmt.Sprintf(`{"session_id":"doctor","transcript_path":%q,"cwd":%q,"hook_event_name":"PreCompact","trigger":"manual"}`, transcript, repo),
			append(base, "CCMEM_HOME="+filepath.Join(tmp, "store")), func(out []byte) string {
				return fmt.Sprintf("%d bytes of compaction instructions", len(bytes.TrimSpace(out)))
			}},
	}
	for _, r := range runs {
		path := filepath.Join(lib, r.name)
		if !executable(path) {
			out = append(out, check{false, r.name + " dry run", "not run: the binary is missing"})
			continue
		}
		cmd := exec.Command(path)
		cmd.Env = r.env
		cmd.Dir = cwd
		cmd.Stdin = strings.NewReader(r.payload)
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
		out = append(out, check{ok, r.name + " dry run", detail})
	}
	return out
}
