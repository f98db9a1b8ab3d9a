// Command staleset measures ccmem's check of memory against the code on
// real repositories' history (see internal/dev/staleset) and prints the
// marks' precision and recall beside their cost.
//
//	go run ./scripts/staleset [-mirror DIR] [-v] [-w]
//
// -w writes internal/dev/staleset/set.tsv (repositories, commits, short
// hashes of the names and their labels: never the names); without it the
// run is compared with that file.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ccmem/ccmem/internal/dev/staleset"
)

func main() {
	mirror := flag.String("mirror", "/work/.mirror", "where the repositories' snapshots are (<owner>+<name>/repo)")
	verbose := flag.Bool("v", false, "each name's label and mark (this machine only: other people's text)")
	write := flag.Bool("w", false, "write the set's labels to "+staleset.SetFile)
	flag.Parse()
	work, err := os.MkdirTemp("", "ccmem-staleset-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "staleset:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(work)
	res, err := staleset.Measure(*mirror, work)
	if err != nil {
		fmt.Fprintln(os.Stderr, "staleset:", err)
		os.Exit(1)
	}
	if *verbose {
		for _, m := range res.Mentions {
			fmt.Printf("%-6s marked=%-5v %s %s %s\n", m.Label, m.Marked, m.Repo, m.File, m.Name)
		}
	}
	res.Print(os.Stdout)
	set := filepath.FromSlash(staleset.SetFile)
	if *write {
		if err := os.WriteFile(set, res.TSV(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "staleset:", err)
			os.Exit(1)
		}
		return
	}
	if diff := staleset.Compare(set, res); diff != "" {
		fmt.Fprintln(os.Stderr, "staleset: this run differs from", set+":", diff)
		os.Exit(1)
	}
}
