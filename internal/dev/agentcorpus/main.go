package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agentcorpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mirror := fs.String("mirror", "/work/.mirror", "where the repositories' snapshots are (a git directory per repository; CCMEM_MIRROR sets it too)")
	dir := fs.String("dir", defaultDir(), "where the folders are laid out (never the repository)")
	asJSON := fs.Bool("json", false, "print the figures as JSON")
	verbose := fs.Bool("v", false, "say where each session's figures differ (names from their files: for this terminal only)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if env := os.Getenv("CCMEM_MIRROR"); env != "" && !isSet(fs, "mirror") {
		*mirror = env
	}
	var all []Figures
	for _, s := range Sources {
		if held(s.Repo) {
			fmt.Fprintf(stderr, "agentcorpus: %s is held out (dev-corpus.md): not measured\n", s.Repo)
			continue
		}
		git, err := snapshot(*mirror, s)
		if err != nil {
			fmt.Fprintf(stderr, "agentcorpus: %s skipped: %v\n", s.ID, err)
			continue
		}
		l, err := lay(git, *dir, s)
		if err != nil {
			fmt.Fprintf(stderr, "agentcorpus: %s: %v\n", s.ID, err)
			return 1
		}
		f, err := measure(context.Background(), l)
		if err != nil {
			fmt.Fprintf(stderr, "agentcorpus: %s: %v\n", s.ID, err)
			return 1
		}
		all = append(all, f)
	}
	if len(all) == 0 {
		fmt.Fprintln(stderr, "agentcorpus: no source's snapshot is on this machine (hint: -mirror DIR, or clone the repositories sources.go names)")
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(all); err != nil {
			return 1
		}
		return 0
	}
	print(stdout, all)
	if *verbose {
		for _, f := range all {
			for _, d := range f.Diffs {
				fmt.Fprintf(stdout, "%s %s\n", f.ID, d)
			}
		}
	}
	return 0
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// print writes the figures, a line per source and a total per agent.
func print(w io.Writer, all []Figures) {
	fmt.Fprintln(w, "Other agents' sessions, real people's folders, imported by ccmem (the raw files counted by this command's own reading)")
	fmt.Fprintf(w, "%-4s %-11s %-28s %-9s %-9s %-16s %-11s %-11s %s\n", "id", "agent", "repository", "files", "sessions", "prompts", "files", "projects", "dropped")
	fmt.Fprintf(w, "%-4s %-11s %-28s %-9s %-9s %-16s %-11s %-11s %s\n", "", "", "", "(missing)", "found/exp", "kept/typed(/)", "changed/ed", "right/with", "(by the import)")
	totals := map[string]*Figures{}
	var order []string
	line := func(f Figures, id, repo string) {
		typed := fmt.Sprintf("%d/%d", f.Kept, f.Typed-f.Slash)
		if !f.Logged {
			typed = fmt.Sprintf("%d/%d msgs", f.Kept, f.Messages)
		}
		dropped := ""
		for _, d := range f.Dropped {
			dropped += fmt.Sprintf("%d: %s; ", d.N, d.Cause)
		}
		fmt.Fprintf(w, "%-4s %-11s %-28s %-9s %-9s %-16s %-11s %-11s %s\n", id, agentName(f.Agent), repo,
			fmt.Sprintf("%d (%d)", f.Files, f.Missing), fmt.Sprintf("%d/%d", f.Found, f.Expected), typed,
			fmt.Sprintf("%d/%d", f.Changed, f.Edited), fmt.Sprintf("%d/%d", f.Right, f.Projects), dropped)
	}
	for _, f := range all {
		line(f, f.ID, f.Repo)
		t := totals[f.Agent]
		if t == nil {
			t = &Figures{Agent: f.Agent, Logged: true}
			totals[f.Agent] = t
			order = append(order, f.Agent)
		}
		t.Files += f.Files
		t.Missing += f.Missing
		t.Found += f.Found
		t.Expected += f.Expected
		t.Kept += f.Kept
		t.Typed += f.Typed
		t.Slash += f.Slash
		t.Messages += f.Messages
		t.Logged = t.Logged && f.Logged
		t.Changed += f.Changed
		t.Edited += f.Edited
		t.Right += f.Right
		t.Projects += f.Projects
		t.Dropped = append(t.Dropped, f.Dropped...)
	}
	for _, a := range order {
		line(*totals[a], "all", "")
	}
	fmt.Fprintln(w, "prompts: turns the episodes record / prompts the client's own log lists (its slash commands left out); files: changed in the episodes / named by the sessions' edits")
}
