// Package devcorpus is make recall's real-people corpus: public
// repositories in which people pushed their own Claude Code home folder
// (prompts they typed, transcripts of their sessions). Their text is never
// committed: Lay copies the two parts ccmem may read (history.jsonl and
// the transcripts under projects/) out of a snapshot of each repository
// into a folder under the temporary directory, every string passed through
// ccmem's redactor first; this package commits only ids, short hashes of
// the prompts and the labels written by reading them (labels.tsv), and
// replays the prompts in time order against a store that holds only the
// sessions that ended before each (Replay).
package devcorpus

import (
	"os"
	"path/filepath"
)

// Source is one person's Claude Code folder, in a public repository.
type Source struct {
	// ID names the source in labels ("1" … "8"), Repo the repository
	// (owner/name) and Commit the commit measured (the owners of several
	// later removed the folder).
	ID, Repo, Commit string
	// Prefix is where the folder is in the repository ("" for its root),
	// with a trailing slash.
	Prefix string
	// Lang is the language most of the prompts are in, Split whether the
	// source is tuned on ("dev") or never ("held-out").
	Lang, Split string
	// Sample is how many of its prompts are labelled (0: SampleSize). A
	// larger sample takes the first ones by the same hash: it holds the
	// smaller one.
	Sample int
}

// Splits.
const (
	Dev     = "dev"
	HeldOut = "held-out"
)

// Sources are the folders of ../shared/docs/dev-corpus.md. The split is by
// person, fixed before any tuning: each language has a person in each
// part (the held-out Chinese writes traditional characters, the dev ones
// simplified).
var Sources = []Source{
	{ID: "1", Repo: "pshung/personal_git", Commit: "a8cbef1", Prefix: ".claude/", Lang: "en", Split: Dev},
	{ID: "2", Repo: "mlevison/dotfiles", Commit: "cb3ef9b", Prefix: "claude/", Lang: "en", Split: HeldOut},
	{ID: "3", Repo: "oliyoung/dotfiles", Commit: "bc47275", Prefix: ".claude/", Lang: "en", Split: Dev},
	{ID: "4", Repo: "awesumsawz/dotfiles-universal", Commit: "49d63c9", Prefix: ".claude/", Lang: "en", Split: HeldOut},
	{ID: "5", Repo: "JamesTiberiusKirk/dotsv2", Commit: "c4267e0", Prefix: ".claude/", Lang: "en", Split: HeldOut},
	{ID: "6", Repo: "LZY2333/LZY-FE-JumpTrack", Commit: "6d0b899", Prefix: "agent-configs/.claude/", Lang: "zh", Split: Dev},
	// The held-out Chinese sample was enlarged from 60 to 140 (issue 48):
	// 60 gave 7 small-talk prompts and 35 tasks in Chinese.
	{ID: "7", Repo: "hannibal8856/claude_backup", Commit: "e28e028", Prefix: ".claude/", Lang: "zh", Split: HeldOut, Sample: 140},
	{ID: "8", Repo: "mango319/myclaude", Commit: "8abfc6e", Prefix: "", Lang: "zh", Split: Dev},
}

// SourceByID is the source with that id.
func SourceByID(id string) (Source, bool) {
	for _, s := range Sources {
		if s.ID == id {
			return s, true
		}
	}
	return Source{}, false
}

// DefaultDir is where the corpus is laid out: the temporary directory,
// never the repository.
func DefaultDir() string {
	if d := os.Getenv("CCMEM_DEVCORPUS"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "ccmem-devcorpus")
}
