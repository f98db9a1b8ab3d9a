// Command agentcorpus measures ccmem's import of other agents' sessions
// (Codex CLI, Gemini CLI, opencode) on real people's folders, found in
// public repositories as ../shared/docs/dev-corpus.md says: it lays each
// folder out under the temporary directory (the session files only, every
// JSON string through ccmem's redactor), counts what the raw files hold by
// its own reading (sessions, the prompts the person typed as the client's
// own prompt log lists them, the files the session's edits name, each
// session's folder), imports the folder into a fresh store with ccmem's
// importer, and prints both side by side, per agent. Their text never
// leaves /tmp: this package commits only repositories, commits and paths.
//
//	go run ./internal/dev/agentcorpus [-mirror DIR] [-dir DIR] [-json]
//
// (make agents). A source whose snapshot is not on this machine is named
// with the command that brings it, and skipped.
package main

import (
	"os"
	"path/filepath"
)

// Source is one person's folder of an agent, in a public repository.
type Source struct {
	// ID names the source ("c1", "g1"), Agent the client ("codex",
	// "gemini", "opencode"), Repo the repository (owner/name) and Commit
	// the commit measured (several owners later removed the folder).
	ID, Agent, Repo, Commit string
	// Prefix is where the agent's folder is in the repository (".codex/").
	Prefix string
}

// Sources are the folders measured. None is of an owner dev-corpus.md
// holds out.
var Sources = []Source{
	{ID: "c1", Agent: "codex", Repo: "Kooksun/Lotto645", Commit: "e01e9ea", Prefix: ".codex/"},
	{ID: "c2", Agent: "codex", Repo: "Kooksun/RPS_3", Commit: "792ab08", Prefix: ".codex/"},
	// Added after the fix c1 and c2 showed (a patch given to the shell);
	// c5 then showed a resumed Codex 0.36 session's copied lines, since
	// passed over (docs/agents.md).
	{ID: "c3", Agent: "codex", Repo: "LeroySalih/planner-004", Commit: "ea5fce0", Prefix: ".codex/"},
	{ID: "c4", Agent: "codex", Repo: "Maidang1/madinah", Commit: "d4353b0", Prefix: ".codex/"},
	{ID: "c5", Agent: "codex", Repo: "Hoper-J/cpolar-connect", Commit: "70b17db", Prefix: ".codex/"},
	{ID: "g1", Agent: "gemini", Repo: "AnthonyontheHub/TP-Tutor", Commit: "6b23abb", Prefix: ".gemini/"},
}

// heldOut are the owners whose repositories are never fetched or used
// (dev-corpus.md): a figure tuned on them means nothing.
var heldOut = []string{"LAF-US", "Xu-Wentao", "blubber", "fabien-lessirard", "richardaiand",
	"Saintcyberwarrior", "Cleanskiier27", "Jason-liu-0219", "Eduardodmb"}

// defaultDir is where the folders are laid out: the temporary directory,
// never the repository.
func defaultDir() string {
	return filepath.Join(os.TempDir(), "ccmem-agentcorpus")
}
