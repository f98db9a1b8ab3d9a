// Package start holds the SessionStart hook's body: the memory block a
// session starts with (pkg/memory).
package start

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/syncstate"
)

const sessionStartUsage = `usage: sessionstart < hook-input.json

sessionstart is ccmem's SessionStart hook for Claude Code. It reads the hook
JSON on stdin and prints the memory block to inject:
  {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"…"}}

Run "ccmem show" to see that block for a directory without Claude Code.
CCMEM_DISABLE=1 (or "enabled: false" in config.yaml) makes it do nothing.
`

// SessionStart is the body of the sessionstart hook. It always injects what
// it could read: a problem with the input, a file or the config is reported
// in one stderr line (and to the user as a system message) without taking
// the rest of the memory away. It exits 0 when it printed a block, 1 when it
// could not, and never 2.
func SessionStart(p hookio.Process) int {
	const name = "sessionstart"
	return hookio.Contain(name, p, false, func() int {
		r, code := hookio.Begin(name, sessionStartUsage, p)
		if r == nil {
			return code
		}
		var probs hookio.Problems
		probs.Add(r.InErr) // the block is still composed, without a project
		claude := proc.Claude(p.Getenv)
		inj := memory.Start(context.Background(), r.Env, memory.StartRequest{
			Cwd: r.In.Cwd, Source: r.In.Source, Started: r.Started,
			SessionID: r.In.SessionID, TranscriptPath: r.In.TranscriptPath, Process: claude,
			CCMem: hookio.CCMemCommand, Automation: func() string { return proc.Automation(p.Getenv, claude) },
		})
		if inj.Disabled {
			return 0
		}
		for _, w := range inj.Warnings {
			probs.Addf("%s", w)
		}
		line := probs.Line(name)
		hookio.WriteLine(p.Stderr, line)
		if inj.Block.Text == "" {
			return 1
		}
		msg := hookio.SystemMessage(line)
		if offer := commandOffer(p, r.Env, r.In.Source); offer != "" {
			msg = strings.TrimSpace(msg + "\n" + offer)
		}
		out := claudecode.Context("SessionStart", inj.Block.Text)
		out.SystemMessage = msg // why memory is incomplete, if it is
		data, err := out.Encode()
		if err != nil {
			hookio.WriteLine(p.Stderr, name+": encoding output: "+err.Error())
			return 1
		}
		if _, err := p.Stdout.Write(data); err != nil {
			if line == "" {
				hookio.WriteLine(p.Stderr, name+": writing output: "+err.Error())
			}
			return 1
		}
		// The automatic sync (sync.auto, off by default) runs in the
		// background: the session never waits on the network.
		if inj.Config.Sync.Auto && syncstate.Due(r.Env, inj.Config.Sync.Interval) {
			exe, _ := os.Executable()
			_ = syncstate.StartDetached(r.Env, claudecode.CCMemBeside(exe))
		}
		// Memory that changed since the search index was built (sessions
		// archived now, a sync, an import) is indexed in the background:
		// no prompt waits for it.
		if p := inj.Project; p != nil && inj.Config.Recall.Enabled {
			search.RefreshIfStale(r.Env, search.ScopeOf(p, false), hookio.CCMemBinary(), p.Root)
		}
		// Sessions an import follows (they began before install) are
		// brought up to date in the background, now and then.
		if session.FollowDue(r.Env) {
			exe, _ := os.Executable()
			_ = session.StartFollow(r.Env, claudecode.CCMemBeside(exe))
		}
		return 0
	})
}

// offerEvery is how often a plugin user without the `ccmem` command is
// offered it, at a session's start.
const offerEvery = 7 * 24 * time.Hour

// commandOffer is, for a plugin user who has no `ccmem` command in their
// terminal, the line that says how to get it (ccmem install, run by its
// full path, adds it, and the status line a plugin cannot set), at most
// once a week (the plugin's data folder remembers when it was said); ""
// otherwise.
func commandOffer(p hookio.Process, env store.Env, source string) string {
	data := p.Getenv("CLAUDE_PLUGIN_DATA")
	if p.Getenv("CLAUDE_PLUGIN_ROOT") == "" || data == "" || (source != "startup" && source != "") || env.Home == "" {
		return ""
	}
	name := "ccmem"
	if runtime.GOOS == "windows" {
		name = "ccmem.cmd"
	}
	if _, err := os.Stat(filepath.Join(env.Home, ".local", "bin", name)); err == nil {
		return ""
	}
	if _, err := exec.LookPath("ccmem"); err == nil {
		return ""
	}
	marker := filepath.Join(data, "command-offered")
	if fi, err := os.Stat(marker); err == nil && p.Now().Sub(fi.ModTime()) < offerEvery {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	ccmem := claudecode.CCMemBeside(exe)
	if _, err := os.Stat(ccmem); err != nil {
		return ""
	}
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		return "" // said once a week, or not at all
	}
	_ = os.Chtimes(marker, p.Now(), p.Now())
	return "ccmem: to have the `ccmem` command in your terminal (ccmem learn, show, search, ui) and its status line here, run once: " +
		claudecode.ShellQuote(filepath.ToSlash(ccmem)) + " install"
}
