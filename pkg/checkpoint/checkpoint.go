// Package checkpoint is a session's record as ccmem writes it — the
// checkpoint a live session keeps and, once it is over, its episode — its
// fields, the bound its digest is fitted to (Digest.Fit), and its
// hand-written JSON codec (Marshal, Unmarshal). pkg/session keeps it up to
// date from transcripts; pkg/episode is what its readers decode.
package checkpoint

import (
	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/triage"
)

// Record is the record of one session: live in checkpoints/ while the
// session runs, then archived unchanged (plus archived_at) as its episode.
// Every string in it passed the redactor.
type Record struct {
	SessionID   string `json:"session_id"`
	ProjectRoot string `json:"project_root"`
	// Goal is the first prompt as it was (shortened); Title what a person
	// would call the session (see titleOf), which the menu shows.
	Goal  string         `json:"goal"`
	Title string         `json:"title,omitempty"`
	Turns int            `json:"turns"`
	Tools map[string]int `json:"tools"`
	// SubagentTools counts the tool uses of the session's subagents (the
	// Agent tool's), apart from its own; their errors and file changes
	// are in ToolErrors and FilesChanged.
	SubagentTools map[string]int `json:"subagent_tools,omitempty"`
	ToolErrors    int            `json:"tool_errors"`
	// Declined counts the tool calls the user said no to, a permission
	// denied or a hook blocked: not errors of the work.
	Declined     int      `json:"declined,omitempty"`
	FilesChanged []string `json:"files_changed"`
	// SkillsUsed are the skills the session ran (the Skill tool), once
	// each, in the order first run.
	SkillsUsed  []string `json:"skills_used,omitempty"`
	Compactions int      `json:"compactions"`
	StartedAt   string   `json:"started_at"`
	EndedAt     string   `json:"ended_at"`
	// DurationSeconds is from the first message to the last.
	DurationSeconds int64  `json:"duration_seconds,omitempty"`
	GitBranch       string `json:"git_branch"`
	// GitRemote is the project's remote (without credentials) when the
	// session ran.
	GitRemote     string `json:"git_remote,omitempty"`
	Model         string `json:"model"`
	ClientVersion string `json:"client_version"`
	// Agent is the coding agent the session ran in: "" for Claude Code,
	// AgentCodex for Codex CLI (its rollout is read by
	// transcript.ParseCodex).
	Agent string `json:"agent,omitempty"`
	// Entrypoint is how the client was run, as its first prompt records it
	// (cli, sdk-cli for claude -p, claude-vscode, sdk-ts…).
	Entrypoint string `json:"entrypoint,omitempty"`
	// PromptQueued is set when the transcript opens with the client
	// dequeuing its first prompt: the prompt came with the command
	// (`claude -p "…"`), as clients that write no entrypoint show it.
	PromptQueued bool   `json:"prompt_queued,omitempty"`
	Outcome      string `json:"outcome"`
	// Automated is set on a session another program started (see
	// AutomatedBy for what): kept, counted and searched, but out of the
	// menu.
	Automated   bool   `json:"automated,omitempty"`
	AutomatedBy string `json:"automated_by,omitempty"`
	// Parent is the session a forked session was forked from.
	Parent     string          `json:"parent_session,omitempty"`
	Friction   friction.Result `json:"friction"`
	Redactions int             `json:"redactions"`
	// Digest is what was said (see Digest).
	Digest Digest `json:"digest"`
	// Transcript is where reading resumes.
	Transcript TranscriptPos `json:"transcript"`
	// Process is the claude process, to tell a live session from an orphan.
	Process    proc.Info `json:"process"`
	UpdatedAt  string    `json:"updated_at"`
	ArchivedAt string    `json:"archived_at,omitempty"`
	// Use is what the session did with what recall gave it, told when it
	// was archived (see use.go).
	Use *Use `json:"use,omitempty"`
	// State is what incremental reading needs between hook runs.
	State CaptureState `json:"state"`
}

// TranscriptPos says how far a transcript has been read.
type TranscriptPos struct {
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
	// Skip is how much of the line at Offset was read already: a line
	// longer than transcript.MaxLine that has no end yet (a multi-GB tail)
	// is skipped, and the next run goes on from Offset+Skip instead of
	// reading it all again.
	Skip  int64  `json:"skip,omitempty"`
	Size  int64  `json:"size"`
	Inode uint64 `json:"inode"`
	// Tail is a checksum of the bytes just before Offset: a file whose
	// part read already changed (rewritten in place, same name and
	// inode, no shorter) is read again from its start.
	Tail uint64 `json:"tail,omitempty"`
}

// CaptureState is internal bookkeeping kept with the checkpoint.
type CaptureState struct {
	Friction friction.State `json:"friction"`
	// PendingFiles maps tool-use ids of file edits to their paths until
	// their result says whether the edit happened.
	PendingFiles map[string]string `json:"pending_files,omitempty"`
	// Boundaries counts compact_boundary lines; PreCompacts counts
	// PreCompact hook runs. Compactions is the larger: each sees every
	// compaction, but at different moments.
	Boundaries     int    `json:"boundaries,omitempty"`
	PreCompacts    int    `json:"precompacts,omitempty"`
	CompactTrigger string `json:"compact_trigger,omitempty"`
	// Redaction counts by field: the goal's is fixed once set, the
	// outcome's is replaced with the outcome, the files' add up.
	GoalRedactions    int `json:"goal_redactions,omitempty"`
	OutcomeRedactions int `json:"outcome_redactions,omitempty"`
	OtherRedactions   int `json:"other_redactions,omitempty"`
	// TriageFired lists the categories triage already asked about in this
	// session: each fires at most once.
	TriageFired []string `json:"triage_fired,omitempty"`
	// TriagePending holds what triage found after a turn until the next
	// prompt carries it to the model (CommitPrompt).
	TriagePending []triage.Hit `json:"triage_pending,omitempty"`
	// Shown holds what the session's model has been shown of memory (the
	// start-up block, per-prompt recall): the sorted 8-byte keys of memory
	// refs (see ShownKey), one run of bytes (base64 in the JSON, cheap to
	// read): recall does not show it again.
	Shown []byte `json:"shown,omitempty"`
	// Given are the memories per-prompt recall gave the model, in order
	// (at most maxGiven): whether they were used is told when the session
	// is over (see Use).
	Given []Given `json:"given,omitempty"`
	// Guarded holds, as Shown does, the rules and earlier fixes the
	// point-of-action hooks (before a tool call, after a failed one) gave
	// the model: each once a session.
	Guarded []byte `json:"guarded,omitempty"`
	// Subagents is how far each subagent transcript (by file name) was
	// read.
	Subagents map[string]TranscriptPos `json:"subagents,omitempty"`
	// Calls maps tool-use ids of shell calls to their command until their
	// result comes; Failing holds the failed commands a later run may fix
	// (for the digest).
	Calls   map[string]string   `json:"calls,omitempty"`
	Failing map[string]*Failing `json:"failing,omitempty"`
	// TitleOpen is set while the title's request has had no answer: aborted
	// then, it is given up for the next substantive prompt.
	TitleOpen bool `json:"title_open,omitempty"`
	// ForkedAt is when a forked session started: what its transcript holds
	// from before is the parent's.
	ForkedAt string `json:"forked_at,omitempty"`
	// CommandOpen is a slash command (shortened, redacted) no answer
	// followed yet: it becomes a turn when the model answers it.
	CommandOpen string `json:"command_open,omitempty"`
	// Checked is set once the session was checked for automation.
	Checked bool `json:"automation_checked,omitempty"`
	// Spawned holds when an imported session's shell calls started a
	// headless client (`claude -p`): kept so that an import stopped before
	// it judged the runs they started is judged right by the next.
	Spawned []string `json:"spawned_headless,omitempty"`
}

// Digest is what a session said (see above).
type Digest struct {
	Notes []Note `json:"notes,omitempty"`
	// Commands are the distinct shell commands run, in the order first run.
	Commands []string `json:"commands,omitempty"`
	// Read are the files read, relative to the project root when inside it.
	Read []string `json:"files_read,omitempty"`
	// Dropped counts the notes that gave way to the size cap, and Cut the
	// characters cut from notes that were kept shorter.
	Dropped int `json:"dropped,omitempty"`
	Cut     int `json:"cut,omitempty"`
}

// Note is one entry of a digest.
type Note struct {
	Turn int    `json:"turn"`
	At   string `json:"at,omitempty"`
	// Kind is prompt (what a person typed), answer (a turn's conclusion),
	// failure (a command that failed, Cmd, and its error line), fix (a later
	// run of a failed command that succeeded, and what changed in between)
	// or triage (what triage found worth saving).
	Kind string `json:"kind"`
	Cmd  string `json:"cmd,omitempty"`
	Text string `json:"text"`
	// After, on a fix, are the other commands that succeeded between the
	// failure and the fix (the last few, oldest first): what may have
	// made it pass ("make codegen" before "make build").
	After []string `json:"after,omitempty"`

	// Limit, while set, marks a note read in this run and not yet kept:
	// its text is as the transcript had it (a window of it), to be
	// redacted and cut to Limit by capture. A long first pass drops most
	// of its notes to the cap, and only those kept are redacted. It is
	// never written.
	Limit int `json:"-"`
}

// Failing is a shell command that failed, kept until a later run of the
// same command succeeds: its turn, and the files changed since (for the
// fix's note).
type Failing struct {
	Turn    int      `json:"turn"`
	Cmd     string   `json:"cmd"`
	Changed []string `json:"changed,omitempty"`
	// Ran are the other commands that succeeded since (the last maxRan).
	Ran []string `json:"ran,omitempty"`
}

// Given is one memory recall gave a session: its ref (a path, "#" and a
// turn or line), the kind, and the turn of the session it was given at.
type Given struct {
	Ref  string `json:"ref"`
	Kind string `json:"kind"`
	Turn int    `json:"turn"`
}

// Use is what a session did with what recall gave it.
type Use struct {
	// Given and Used count the memories of each kind given and used.
	Given map[string]int `json:"given"`
	Used  map[string]int `json:"used"`
}
