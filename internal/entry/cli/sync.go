package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/gitsync"
	"github.com/ccmem/ccmem/pkg/syncstate"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdSync = &command.Command{
	Name: "sync", Args: "[--json] [--accept-deletions | --keep-deleted | --undo] | init REMOTE | status",
	Summary: "carry the private store between your machines through git",
	Help: `Syncs the store (~/.claude/ccmem: global memory, learned entries, review,
archive, each project's briefing, profiles and episodes) with a git remote
you own, through your own git (its credentials, ssh config and hooks).

ccmem sync init REMOTE makes the store a git repository syncing with
REMOTE; where REMOTE already holds a store (a second machine), it joins
it: the two are merged, nothing lost. ccmem sync commits what changed
here, fetches, integrates and pushes. ccmem sync status says where things
stand, without the network.

Nothing is merged by hand: MEMORY.md and the topic files beside it merge as
a union of lines (duplicates removed after); when two machines changed the
same entry, the newer stays and the older is kept in archive/sync/ with
where it came from. What is derived or this machine's own (INDEX.md, the
search index, status, checkpoints, project.json, caches, locks) is not
synced and is rebuilt after. Before a commit every changed file and its
name pass the redactor: a file that still holds a secret stays on this
machine, and the sync names it.

The remote is trusted with nothing it could use to act here: only
ccmem's own files, plainly named, are taken from it (anything else is
refused and named), settings (config.yaml) stay on each machine, and what
syncs take away — files deleted, emptied or moved into the archive there
— is counted from one sync to the next: once it reaches a quarter of your
memory, the sync stops until you say what to do. --accept-deletions
follows the remote (and counts from zero again); --keep-deleted keeps
what it took since you last confirmed and puts it back on the remote;
--undo puts back what the last sync took away, from the store's own
history.

A project with a git remote has the same key on every machine, so its
episodes from both machines share one menu. With sync.auto: true in the
global config, a session start runs ccmem sync in the background when the
last one is older than sync.interval (never waiting for it). CCMEM_GIT names
another git binary.`,
	Subs: []*command.Command{cmdSyncInit, cmdSyncStatus},
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		asJSON := fs.Bool("json", false, "print the report as JSON")
		auto := fs.Bool("auto", false, "run as the automatic sync: quietly, and only when the last is older than sync.interval")
		accept := fs.Bool("accept-deletions", false, "when the remote deletes most of the store, delete those files here too")
		keep := fs.Bool("keep-deleted", false, "keep what syncs took away since you last confirmed, and put it back on the remote")
		undo := fs.Bool("undo", false, "put back what the last sync took away, then sync")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			if *accept && *keep || *undo && (*accept || *keep) {
				return command.Usagef("", "--accept-deletions, --keep-deleted and --undo are answers to one question: give one")
			}
			if *undo {
				return runUndo(c, *asJSON)
			}
			d := gitsync.AskFirst
			switch {
			case *accept:
				d = gitsync.AcceptDeletions
			case *keep:
				d = gitsync.KeepDeleted
			}
			return runSync(c, *asJSON, *auto, d)
		}
	},
}

var cmdSyncInit = &command.Command{
	Name: "init", Args: "[--move] [--json] REMOTE",
	Summary: "make the store a git repository syncing with REMOTE (or join the store there)",
	Help: `Makes the store a git repository whose remote is REMOTE (any URL or path git
takes: git@github.com:you/memory.git, /mnt/usb/memory.git), writes its
.gitignore and .gitattributes, and syncs: on the first machine the store is
pushed there; where REMOTE already holds a store, this one joins it and the
two are merged, nothing lost. Use a private remote: the store is your
private memory.

A store that syncs already stays with its remote; --move makes it sync with
REMOTE instead (when git refuses what the old one holds, or someone else
could write to it): this machine's store, history and all, is pushed there,
or joins the store REMOTE holds. Move each machine the same way.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		asJSON := fs.Bool("json", false, "print the report as JSON")
		move := fs.Bool("move", false, "sync with REMOTE instead of the remote the store syncs with now")
		return func(c *command.Ctx, args []string) error {
			if len(args) != 1 {
				return command.Usagef("for example: ccmem sync init git@github.com:you/ccmem-memory.git", "sync init takes one remote")
			}
			s := syncer(c)
			init := s.Init
			if *move {
				init = s.Move
			}
			rep, err := init(c, args[0])
			if err != nil {
				return syncError(err)
			}
			return printSync(c, rep, *asJSON, "synced with "+args[0])
		}
	},
}

var cmdSyncStatus = &command.Command{
	Name: "status", Args: "[--json]",
	Summary: "where the store stands against its remote (no network)",
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		asJSON := fs.Bool("json", false, "print as JSON")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			st, err := syncer(c).Status(c)
			if err != nil {
				return syncError(err)
			}
			if *asJSON {
				return c.PrintJSON(st)
			}
			w := c.Stdout
			if !st.SetUp {
				fmt.Fprintln(w, "not synced: `ccmem sync init REMOTE` sets it up")
				return nil
			}
			fmt.Fprintf(w, "remote: %s\n", st.Remote)
			fmt.Fprintf(w, "here: %s changed since the last sync, %s not pushed; %s fetched and not integrated\n",
				textfmt.Plural(st.Changed, "file", "files"), textfmt.Plural(st.Ahead, "commit", "commits"), textfmt.Plural(st.Behind, "commit", "commits"))
			switch l := st.Last; {
			case st.Running:
				fmt.Fprintf(w, "a sync is running (since %s)\n", l.Started.Local().Format("2006-01-02 15:04"))
			case l.Finished.IsZero():
				fmt.Fprintln(w, "never synced")
			case l.OK:
				fmt.Fprintf(w, "last sync: %s, ok\n", l.Finished.Local().Format("2006-01-02 15:04"))
			default:
				fmt.Fprintf(w, "last sync: %s, failed: %s\n", l.Finished.Local().Format("2006-01-02 15:04"), l.Error)
			}
			for _, h := range st.Last.Report.Held {
				fmt.Fprintf(w, "held here (%s): %s\n", strings.Join(h.Kinds, ", "), strconv.Quote(h.Path))
			}
			for _, r := range st.Last.Report.Refused {
				fmt.Fprintf(w, "refused from the remote's commit %s (%s): %s\n", r.Commit, r.Why, strconv.Quote(r.Path))
			}
			return nil
		}
	},
}

func syncer(c *command.Ctx) *gitsync.Syncer {
	return &gitsync.Syncer{Env: c.Env, Git: c.P.Getenv("CCMEM_GIT"), Machine: c.P.Getenv("CCMEM_MACHINE")}
}

func syncError(err error) error {
	switch {
	case errors.Is(err, gitsync.ErrNotSetUp):
		return command.WithHint(err, "`ccmem sync init REMOTE` sets it up (a private git remote you own)")
	case errors.Is(err, gitsync.ErrNoGit):
		return command.WithHint(err, "install git, then run this again")
	case errors.Is(err, gitsync.ErrOtherRemote):
		return command.WithHint(err, "to sync with the new one instead: ccmem sync init --move REMOTE")
	case errors.Is(err, gitsync.ErrOldGit):
		return command.WithHint(err, "update git (it merges in its object store from 2.38 on, so the store's files are never half written)")
	}
	var re *gitsync.RefusedError
	if errors.As(err, &re) {
		return command.WithHint(err, "someone may have written to that remote: make a new private one and move there, on each machine: ccmem sync init --move NEW_REMOTE")
	}
	var de *gitsync.DeletionError
	if errors.As(err, &de) {
		return command.WithHint(err, "if that was you (or your other machine), ccmem sync --accept-deletions; to keep them and put them back on the remote, ccmem sync --keep-deleted")
	}
	var ge *gitsync.GitError
	if errors.As(err, &ge) && (ge.Args[0] == "push" || ge.Args[0] == "fetch") {
		return command.WithHint(err, "check that the remote exists and that `git -C ~/.claude/ccmem "+ge.Args[0]+"` works with your credentials")
	}
	return err
}

func runSync(c *command.Ctx, asJSON, auto bool, d gitsync.Deletions) error {
	s := syncer(c)
	s.Deletions = d
	if auto {
		cfg := globalConfig(c)
		last := syncstate.ReadState(c.Env)
		if !last.Finished.IsZero() && c.Env.Time().Sub(last.Finished) < cfg.Sync.Interval {
			return nil
		}
	}
	ctx := context.Context(c)
	if auto {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(c, syncstate.MaxDuration)
		defer cancel()
	}
	rep, err := s.Sync(ctx)
	if err != nil {
		return syncError(err)
	}
	return printSync(c, rep, asJSON, "synced")
}

// runUndo puts back what the last sync took away, and syncs.
func runUndo(c *command.Ctx, asJSON bool) error {
	s := syncer(c)
	back, err := s.Undo(c)
	if errors.Is(err, gitsync.ErrNothingToUndo) {
		return command.WithHint(err, "ccmem sync status says what the last sync did")
	}
	if err != nil {
		return syncError(err)
	}
	rep, err := s.Sync(c)
	rep.Restored = back.Restored
	if err != nil {
		return syncError(err)
	}
	return printSync(c, rep, asJSON, "put back "+textfmt.Plural(len(back.Restored), "file", "files")+" the last sync took away, and synced")
}

func printSync(c *command.Ctx, rep syncstate.Report, asJSON bool, what string) error {
	if asJSON {
		return c.PrintJSON(rep)
	}
	w := c.Stdout
	parts := []string{textfmt.Plural(rep.Committed, "file", "files") + " committed"}
	if rep.Joined {
		parts = append(parts, "joined the store there")
	}
	if rep.Merged {
		parts = append(parts, "the other machines' changes integrated")
	}
	if rep.Pushed {
		parts = append(parts, "pushed")
	}
	fmt.Fprintf(w, "%s: %s\n", what, strings.Join(parts, ", "))
	if rep.RemoteEmpty {
		fmt.Fprintln(w, "the remote held no memory yet: this machine's is there now. Another machine's memory arrives when that machine syncs (`ccmem sync init REMOTE` there, or `ccmem sync` if it is set up); then `ccmem sync` here brings it")
	}
	if n := len(rep.Unsettled); n > 0 {
		fmt.Fprintf(w, "both machines changed %s differently (in %s): both versions are kept until you choose one with `ccmem learn review`\n",
			textfmt.Plural(n, "fact", "facts"), strings.Join(slices.Compact(slices.Sorted(slices.Values(rep.Unsettled))), ", "))
	}
	if len(rep.Restored) > 0 {
		fmt.Fprintf(w, "kept %s the remote had taken away, and put them back there\n", textfmt.Plural(len(rep.Restored), "file", "files"))
	}
	if len(rep.Removed) > 0 {
		fmt.Fprintf(w, "the remote took away %s here (deleted, emptied or archived there): ccmem sync --undo puts them back\n", textfmt.Plural(len(rep.Removed), "file", "files"))
	}
	if rep.RemovedLines > 0 {
		fmt.Fprintf(w, "the remote took %s of MEMORY.md and its topic files away here: ccmem sync --undo puts them back\n", textfmt.Plural(rep.RemovedLines, "line", "lines"))
	}
	if rep.Deleted > 0 {
		fmt.Fprintf(w, "deleted %s here, as the remote did\n", textfmt.Plural(rep.Deleted, "file", "files"))
	}
	for _, h := range rep.Held {
		fmt.Fprintf(c.Stderr, "ccmem: %s kept on this machine, not pushed (%s); remove or fix it, then sync again\n", strconv.Quote(h.Path), strings.Join(h.Kinds, ", "))
	}
	for _, r := range rep.Refused {
		fmt.Fprintf(c.Stderr, "ccmem: refused %s from the remote's commit %s: %s\n", strconv.Quote(r.Path), r.Commit, r.Why)
	}
	return nil
}

// globalConfig is the global config alone (sync settings live there).
func globalConfig(c *command.Ctx) config.Config {
	cfg, _ := config.Load(c.Env, "", "")
	return cfg
}
