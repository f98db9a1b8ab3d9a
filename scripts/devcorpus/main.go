// Command devcorpus lays out make recall's real-people corpus and helps
// label it (see internal/dev/devcorpus). Their text stays under the
// temporary directory; only ids, short hashes and labels are committed.
//
//	go run ./scripts/devcorpus lay [-mirror DIR]    copy each source out of its snapshot, redacted
//	go run ./scripts/devcorpus sample               list the prompts chosen for labelling
//	go run ./scripts/devcorpus pool ID...           what a labeller reads for a prompt: it, and the earlier sessions it may bear on
//	go run ./scripts/devcorpus check                labels.tsv against the laid-out corpus
//	go run ./scripts/devcorpus replay [-split S]    the chronological replay's report
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/ccmem/ccmem/internal/dev/devcorpus"
	"github.com/ccmem/ccmem/internal/dev/evalset"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "devcorpus:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: devcorpus lay|sample|pool|check|replay (see the command's doc comment)")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	dir := fs.String("dir", devcorpus.DefaultDir(), "where the corpus is laid out")
	mirror := fs.String("mirror", envOr("CCMEM_DEVCORPUS_MIRROR", "/work/.mirror"), "where the sources' snapshots are (<owner>+<name>/repo or <owner>/<name>)")
	only := fs.String("source", "", "only this source (its id)")
	split := fs.String("split", "", "only this split (dev or held-out)")
	verbose := fs.Bool("v", false, "each prompt's outcome")
	shift := fs.Float64("pointer-shift", 0, "replay as if use had moved the part of the bar a one-line pointer needs by this much")
	explain := fs.Bool("explain", false, "each dev prompt's text and how recall weighed it (this machine only: other people's text)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	sources := devcorpus.Sources
	if *only != "" {
		s, ok := devcorpus.SourceByID(*only)
		if !ok {
			return fmt.Errorf("no source %q", *only)
		}
		sources = []devcorpus.Source{s}
	}
	switch args[0] {
	case "lay":
		for _, s := range sources {
			git, err := devcorpus.Snapshot(*mirror, s)
			if err != nil {
				return err
			}
			rep, err := devcorpus.Lay(git, *dir, s)
			if err != nil {
				return fmt.Errorf("%s: %v", s.Repo, err)
			}
			fmt.Printf("%s %-32s %6d prompts, %4d sessions, %4d subagent logs, %3d files missing from the snapshot, %4d secrets redacted\n",
				s.ID, s.Repo, rep.History, rep.Sessions, rep.Subagents, rep.Missing, rep.Redacted)
		}
		fmt.Printf("laid out under %s\n", *dir)
		return nil
	case "sample":
		return devcorpus.PrintSample(os.Stdout, *dir, sources)
	case "pool":
		return devcorpus.PrintPool(context.Background(), os.Stdout, *dir, fs.Args())
	case "check":
		_, err := devcorpus.CheckLabels(*dir, sources)
		return err
	case "replay":
		o := devcorpus.ReplayOptions{Split: *split, Verbose: *verbose, Explain: *explain, Log: os.Stdout}
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "pointer-shift" {
				o.PointerShift = shift
			}
		})
		rep, err := devcorpus.Replay(context.Background(), *dir, sources, o)
		if err != nil {
			return err
		}
		rep.Print(os.Stdout)
		fmt.Println()
		evalset.PrintAssociations(os.Stdout, rep.Associations())
		return nil
	}
	return fmt.Errorf("unknown command %q", args[0])
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
