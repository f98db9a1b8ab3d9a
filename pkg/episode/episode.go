// Package episode is the read view of a finished session's record
// (projects/KEY/episodes/*.json): what every reader but its writer needs —
// search indexing it, the failure hook looking for an earlier fix, the
// friction report. pkg/session writes the record with its own fast codec;
// a round-trip test there holds the two to one format. It imports nothing
// of ccmem, so every layer may read a record.
package episode

import "encoding/json"

// Record is what a session's record says, as far as its readers need.
type Record struct {
	SessionID    string   `json:"session_id"`
	Goal         string   `json:"goal"`
	Title        string   `json:"title"`
	Outcome      string   `json:"outcome"`
	Turns        int      `json:"turns"`
	FilesChanged []string `json:"files_changed"`
	StartedAt    string   `json:"started_at"`
	EndedAt      string   `json:"ended_at"`
	GitBranch    string   `json:"git_branch"`
	Automated    bool     `json:"automated"`
	// Agent is the coding agent the session ran in ("codex"); "" for
	// Claude Code.
	Agent    string `json:"agent"`
	Friction struct {
		Class string `json:"class"`
	} `json:"friction"`
	Digest Digest `json:"digest"`
}

// Name is the session's title, or its goal when it has none.
func (r Record) Name() string {
	if r.Title != "" {
		return r.Title
	}
	return r.Goal
}

// Digest is what the session said: its notes, the commands it ran, the
// files it read.
type Digest struct {
	Notes    []Note   `json:"notes"`
	Commands []string `json:"commands"`
	Read     []string `json:"files_read"`
}

// Note is one entry of a digest: a prompt, a turn's conclusion, a failed
// command and its error line, a fix (with the commands that ran between
// the failure and it), what triage found, the opening.
type Note struct {
	Turn  int      `json:"turn"`
	At    string   `json:"at"`
	Kind  string   `json:"kind"`
	Cmd   string   `json:"cmd"`
	Text  string   `json:"text"`
	After []string `json:"after"`
}

// The kinds of Note.
const (
	NotePrompt  = "prompt"
	NoteAnswer  = "answer"
	NoteFailure = "failure"
	NoteFix     = "fix"
	NoteTriage  = "triage"
	NoteOpening = "opening"
)

// Decode reads a record.
func Decode(data []byte) (Record, error) {
	var r Record
	err := json.Unmarshal(data, &r)
	return r, err
}
