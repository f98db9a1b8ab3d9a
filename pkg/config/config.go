// Package config is ccmem's configuration: the defaults, how the global and
// the project file merge, what values are allowed, and the one edit ccmem
// makes to a config file itself (enabled: true/false).
package config

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/triage"
)

// DefaultYAML is the documented default configuration; every key a config
// file may set appears in it.
//
//go:embed default-config.yaml
var DefaultYAML []byte

// The hooks' deadline: by default 4 s, at most 5 s, the time the client
// gives each hook.
const (
	DefaultDeadline = 4 * time.Second
	MaxDeadline     = 5 * time.Second
)

// Config is the effective configuration of one project.
type Config struct {
	Enabled        bool          `yaml:"enabled" json:"enabled"`
	BudgetChars    int           `yaml:"budget_chars" json:"budget_chars"`
	Caps           Caps          `yaml:"caps" json:"caps"`
	Shares         Shares        `yaml:"shares" json:"shares"`
	LineChars      int           `yaml:"line_chars" json:"line_chars"`
	NudgeThreshold int           `yaml:"nudge_threshold" json:"nudge_threshold"`
	Deadline       time.Duration `yaml:"deadline" json:"deadline"`
	OrphanAfter    time.Duration `yaml:"orphan_after" json:"orphan_after"`
	RetentionDays  int           `yaml:"retention_days" json:"retention_days"`
	MaxEpisodes    int           `yaml:"max_episodes" json:"max_episodes"`
	// KeepNewest is how many of a project's newest sessions (a person's,
	// not automated runs) age never archives: coming back after a long
	// break finds a menu.
	KeepNewest int     `yaml:"keep_newest" json:"keep_newest"`
	Capture    Capture `yaml:"capture" json:"capture"`
	// PreCompactInstructions is printed by the PreCompact hook; "" is off.
	PreCompactInstructions string  `yaml:"precompact_instructions" json:"precompact_instructions"`
	Triage                 Triage  `yaml:"triage" json:"triage"`
	Recall                 Recall  `yaml:"recall" json:"recall"`
	Guard                  Guard   `yaml:"guard" json:"guard"`
	Records                Records `yaml:"records" json:"records"`
	Sync                   Sync    `yaml:"sync" json:"sync"`
	MCP                    MCP     `yaml:"mcp" json:"mcp"`
}

// MCP configures what ccmem's MCP server gives the model (read from the
// global config only).
type MCP struct {
	// OtherProjects lets the model search and read the memory of every
	// project, not only the one the server runs in (off by default:
	// project memory never reaches another project unless the person
	// says so).
	OtherProjects bool `yaml:"other_projects" json:"other_projects"`
}

// Sync configures the automatic `ccmem sync` (read from the global config):
// off by default; when on, a session start runs a sync in the background
// once the last is older than Interval.
type Sync struct {
	Auto     bool          `yaml:"auto" json:"auto"`
	Interval time.Duration `yaml:"interval" json:"interval"`
}

// Records configures the project records (their settings).
type Records struct {
	// MaxRetained is how many session summaries stay active (the oldest
	// beyond are retired).
	MaxRetained int `yaml:"max_retained" json:"max_retained"`
	// GracePeriodDays is how long a retired record is kept before
	// `ccmem record gc` archives it.
	GracePeriodDays int `yaml:"grace_period_days" json:"grace_period_days"`
	// MaxPerCategory caps the active records of one category.
	MaxPerCategory int `yaml:"max_per_category" json:"max_per_category"`
	// Categories sets each category apart: on or off, its description
	// (what triage tells the model it is for), and after how many days
	// without an update `ccmem record gc` retires its records (0: never).
	Categories map[string]RecordCategory `yaml:"categories" json:"categories"`
}

// RecordCategory is one category's settings.
type RecordCategory struct {
	Enabled       *bool  `yaml:"enabled" json:"enabled,omitempty"`
	Description   string `yaml:"description" json:"description,omitempty"`
	RetentionDays int    `yaml:"retention_days" json:"retention_days,omitempty"`
}

// On tells whether a category is turned on (it is unless set off).
func (r Records) On(category string) bool {
	c, ok := r.Categories[category]
	return !ok || c.Enabled == nil || *c.Enabled
}

// Guard configures memory at the point of action: the pretooluse hook
// (the user's standing rules that bear on a command or a file about to be
// written), the posttoolusefailure hook (the fix an earlier session found
// for the same error) and the subagentstart hook (a subagent's compact
// block).
type Guard struct {
	Enabled bool `yaml:"enabled" json:"enabled"`
	// Tools are the tools whose calls pretooluse looks at; install
	// registers them as its matcher.
	Tools []string `yaml:"tools" json:"tools"`
	// MaxLines is the most rules one tool call is given.
	MaxLines int `yaml:"max_lines" json:"max_lines"`
	// Fixes turns on the earlier fix after a failed tool call.
	Fixes bool `yaml:"fixes" json:"fixes"`
	// Hold lets a rule the person accepted that names a command hold the
	// first such call of a session, with the rule as the reason (the
	// client gives a PreToolUse hook's context only after the call ran);
	// the same call again runs. A rule marked advisory never holds.
	Hold bool `yaml:"hold" json:"hold"`
	// SubagentChars is the budget of a subagent's block; 0 gives none.
	SubagentChars int `yaml:"subagent_chars" json:"subagent_chars"`
}

// DefaultGuardTools are the tools pretooluse looks at by default: those
// that run a command or write a file, and Skill (a skill's profile).
var DefaultGuardTools = []string{"Bash", "Edit", "Write", "MultiEdit", "NotebookEdit", "Skill"}

// Watches tells whether pretooluse looks at calls of the tool.
func (g Guard) Watches(tool string) bool { return slices.Contains(g.Tools, tool) }

// Capture configures what a session's record keeps (the Stop hook).
type Capture struct {
	// DigestBytes caps a session's record (its episode, digest included);
	// 0 keeps no digest.
	DigestBytes int `yaml:"digest_bytes" json:"digest_bytes"`
	// Prompts, Answers, Failures and Commands turn the digest's parts on
	// and off: the prompts a person typed, each turn's conclusion, failed
	// commands and their fixes, and the commands run and files read.
	Prompts  bool `yaml:"prompts" json:"prompts"`
	Answers  bool `yaml:"answers" json:"answers"`
	Failures bool `yaml:"failures" json:"failures"`
	Commands bool `yaml:"commands" json:"commands"`
	// Automation is how sessions another program started are told:
	// "detect" (a client started by another client's process, or a CI
	// environment) or "off" (every session is a person's).
	Automation string `yaml:"automation" json:"automation"`
}

// Recall configures per-prompt recall (the userpromptsubmit hook).
type Recall struct {
	Enabled bool `yaml:"enabled" json:"enabled"`
	// MaxItems and MaxChars bound what one prompt gets.
	MaxItems int `yaml:"max_items" json:"max_items"`
	MaxChars int `yaml:"max_chars" json:"max_chars"`
	// MinScore and MinMatched are the relevance a memory needs: its score,
	// and the share of the prompt's weight it matches.
	MinScore   float64 `yaml:"min_score" json:"min_score"`
	MinMatched float64 `yaml:"min_matched" json:"min_matched"`
	// Sources are the prompt sources recall answers (UserPromptSubmit's
	// "source"; a prompt without one is a person's, "user"): by default a
	// person's prompts only, not a scheduled task's or a loop's wake-up.
	Sources []string `yaml:"sources" json:"sources"`
}

// PromptSources are the sources a UserPromptSubmit may name.
var PromptSources = []string{"user", "sdk", "system", "loop_wakeup", "schedule_wakeup", "poll_event"}

// Answers tells whether recall answers a prompt of source ("" is "user").
func (r Recall) Answers(source string) bool {
	if source == "" {
		source = "user"
	}
	for _, s := range r.Sources {
		if s == source {
			return true
		}
	}
	return false
}

// Triage configures keyword triage at Stop. On, it notes in the session's
// record what looks worth keeping (`ccmem triage` lists it for the person
// to keep or dismiss); AskModel also hands it to the model with the next
// prompt, asking it to save a record.
type Triage struct {
	Enabled    bool               `yaml:"enabled" json:"enabled"`
	AskModel   bool               `yaml:"ask_model" json:"ask_model"`
	Thresholds map[string]float64 `yaml:"thresholds" json:"thresholds"`
}

// Caps are the most lines each section of the injected block may show.
type Caps struct {
	Global   int `yaml:"global" json:"global"`
	Learned  int `yaml:"learned" json:"learned"`
	Briefing int `yaml:"briefing" json:"briefing"`
	Project  int `yaml:"project" json:"project"`
	Records  int `yaml:"records" json:"records"`
	Episodes int `yaml:"episodes" json:"episodes"`
}

// Shares are the fractions of the block each section is guaranteed when
// it needs them (what one leaves unused goes to the others).
type Shares struct {
	Global   float64 `yaml:"global" json:"global"`
	Learned  float64 `yaml:"learned" json:"learned"`
	Briefing float64 `yaml:"briefing" json:"briefing"`
	Project  float64 `yaml:"project" json:"project"`
	Records  float64 `yaml:"records" json:"records"`
	Episodes float64 `yaml:"episodes" json:"episodes"`
}

// Of is the share of the section named name (0 for any other).
func (s Shares) Of(name string) float64 {
	switch name {
	case "global":
		return s.Global
	case "learned":
		return s.Learned
	case "briefing":
		return s.Briefing
	case "project":
		return s.Project
	case "records":
		return s.Records
	case "episodes":
		return s.Episodes
	}
	return 0
}

// Default is default-config.yaml as Go, so a hook pays no YAML parsing
// when there is no config file (TestDefaultMatchesYAML keeps the two the
// same).
func Default() Config {
	return Config{
		Enabled:        true,
		BudgetChars:    9500,
		Caps:           Caps{Global: 200, Learned: 40, Briefing: 80, Project: 200, Records: 40, Episodes: 10},
		Shares:         Shares{Global: 0.30, Learned: 0.10, Briefing: 0.10, Project: 0.30, Records: 0.05, Episodes: 0.10},
		LineChars:      500,
		NudgeThreshold: 10,
		Deadline:       DefaultDeadline,
		OrphanAfter:    30 * time.Minute,
		RetentionDays:  90,
		MaxEpisodes:    200,
		KeepNewest:     10,
		Capture:        Capture{DigestBytes: 32 << 10, Prompts: true, Answers: true, Failures: true, Commands: true, Automation: "detect"},
		PreCompactInstructions: "When summarising, keep: every decision with its reason; the user's " +
			"corrections and stated preferences, in their words; errors that are not " +
			"yet resolved, with the exact messages; and the files being worked on, " +
			"with what is left to do in each.",
		Triage:  Triage{Enabled: true, Thresholds: maps.Clone(triage.DefaultThresholds)},
		Recall:  Recall{Enabled: true, MaxItems: 5, MaxChars: 1500, MinScore: 2.5, MinMatched: 0.1, Sources: []string{"user"}},
		Guard:   Guard{Enabled: true, Tools: slices.Clone(DefaultGuardTools), MaxLines: 2, Fixes: true, Hold: true, SubagentChars: 1500},
		Records: Records{MaxRetained: 5, GracePeriodDays: 30, MaxPerCategory: 100, Categories: map[string]RecordCategory{}},
		Sync:    Sync{Interval: time.Hour},
	}
}

// Upper bounds of the counts and durations a config may set: beyond them a
// value is a typo, not a wish (and retention_days would overflow).
const (
	maxCount         = 1_000_000
	MaxRetentionDays = 36_500
	maxOrphanAfter   = 365 * 24 * time.Hour
)

// intRange is a whole-number setting and its allowed range; zero, when
// set, says what 0 means outside the range ("no digest"); note follows
// the upper bound in the message.
type intRange struct {
	name       string
	v, lo, hi  int
	zero, note string
}

// floatRange and durRange are the same for fractions and durations.
type floatRange struct {
	name      string
	v, lo, hi float64
}

type durRange struct {
	name      string
	v, lo, hi time.Duration
	loText    string
}

// Validate reports the first value out of its allowed range: the ranges
// are one table, the checks that are not ranges follow.
func (c Config) Validate() error {
	ints := []intRange{
		{name: "budget_chars", v: c.BudgetChars, lo: 1000, hi: claudecode.MaxInline},
		{name: "caps.global", v: c.Caps.Global, hi: maxCount}, {name: "caps.learned", v: c.Caps.Learned, hi: maxCount},
		{name: "caps.briefing", v: c.Caps.Briefing, hi: maxCount}, {name: "caps.project", v: c.Caps.Project, hi: maxCount},
		{name: "caps.episodes", v: c.Caps.Episodes, hi: maxCount}, {name: "caps.records", v: c.Caps.Records, hi: maxCount},
		{name: "nudge_threshold", v: c.NudgeThreshold, hi: maxCount},
	}
	for _, r := range ints {
		if err := r.check(); err != nil {
			return err
		}
	}
	sum := 0.0
	for _, f := range []floatRange{
		{"global", c.Shares.Global, 0, 1}, {"learned", c.Shares.Learned, 0, 1}, {"briefing", c.Shares.Briefing, 0, 1},
		{"project", c.Shares.Project, 0, 1}, {"records", c.Shares.Records, 0, 1}, {"episodes", c.Shares.Episodes, 0, 1},
	} {
		if f.v < 0 || f.v > 1 || math.IsNaN(f.v) {
			return fmt.Errorf("shares.%s must be between 0 and 1, not %v", f.name, f.v)
		}
		sum += f.v
	}
	if sum > 1.0001 {
		return fmt.Errorf("shares add up to %.2f; they must add up to at most 1", sum)
	}
	if err := (intRange{name: "line_chars", v: c.LineChars, lo: 80, hi: claudecode.MaxInline}).check(); err != nil {
		return err
	}
	for _, d := range []durRange{
		{"deadline", c.Deadline, 100 * time.Millisecond, MaxDeadline, "100ms"},
		{"orphan_after", c.OrphanAfter, time.Minute, maxOrphanAfter, "1m"},
		{"sync.interval", c.Sync.Interval, time.Minute, maxOrphanAfter, "1m"},
	} {
		if d.v < d.lo || d.v > d.hi {
			return fmt.Errorf("%s must be between %s and %s, not %s", d.name, d.loText, d.hi, d.v)
		}
	}
	// Days beyond a century would overflow a time.Duration (about 292
	// years) on the way, and keep everything anyway.
	for _, r := range []intRange{
		{name: "retention_days", v: c.RetentionDays, lo: 1, hi: MaxRetentionDays, note: " (a century)"},
		{name: "max_episodes", v: c.MaxEpisodes, lo: 1, hi: maxCount},
		{name: "keep_newest", v: c.KeepNewest, hi: maxCount},
		{name: "capture.digest_bytes", v: c.Capture.DigestBytes, lo: 1024, hi: 1 << 20, zero: "no digest"},
	} {
		if err := r.check(); err != nil {
			return err
		}
	}
	if a := c.Capture.Automation; a != "detect" && a != "off" {
		return fmt.Errorf("capture.automation must be detect or off, not %q", a)
	}
	if err := (intRange{name: "recall.max_items", v: c.Recall.MaxItems, hi: 20}).check(); err != nil {
		return err
	}
	if err := (intRange{name: "recall.max_chars", v: c.Recall.MaxChars, lo: 200, hi: claudecode.MaxInline}).check(); err != nil {
		return err
	}
	for _, f := range []floatRange{{"recall.min_score", c.Recall.MinScore, 0, 1000}, {"recall.min_matched", c.Recall.MinMatched, 0, 1}} {
		if f.v < f.lo || f.v > f.hi || math.IsNaN(f.v) {
			return fmt.Errorf("%s must be between %v and %v, not %v", f.name, f.lo, f.hi, f.v)
		}
	}
	for _, src := range c.Recall.Sources {
		if !slices.Contains(PromptSources, src) {
			return fmt.Errorf("recall.sources: %q is not a prompt source (one of %s)", src, strings.Join(PromptSources, ", "))
		}
	}
	if err := (intRange{name: "guard.max_lines", v: c.Guard.MaxLines, hi: 5}).check(); err != nil {
		return err
	}
	for _, t := range c.Guard.Tools {
		if t == "" || strings.Trim(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
			return fmt.Errorf("guard.tools: %q is not a tool name (letters, digits and _, as Bash or mcp__server__tool)", t)
		}
	}
	for _, r := range []intRange{
		{name: "guard.subagent_chars", v: c.Guard.SubagentChars, lo: 200, hi: claudecode.MaxInline, zero: "no block"},
		{name: "records.max_retained", v: c.Records.MaxRetained, lo: 1, hi: 1000},
		{name: "records.grace_period_days", v: c.Records.GracePeriodDays, hi: MaxRetentionDays},
		{name: "records.max_per_category", v: c.Records.MaxPerCategory, lo: 1, hi: 100_000},
	} {
		if err := r.check(); err != nil {
			return err
		}
	}
	for name, rc := range c.Records.Categories {
		if !slices.Contains(triage.Categories, name) {
			return fmt.Errorf("records.categories.%s: no such category (one of %s)", name, strings.Join(triage.Categories, ", "))
		}
		if err := (intRange{name: "records.categories." + name + ".retention_days", v: rc.RetentionDays, hi: MaxRetentionDays}).check(); err != nil {
			return err
		}
		if len(rc.Description) > 500 {
			return fmt.Errorf("records.categories.%s.description is over 500 characters", name)
		}
	}
	for k, v := range c.Triage.Thresholds {
		if _, ok := triage.DefaultThresholds[k]; !ok {
			return fmt.Errorf("triage.thresholds.%s: no such category (one of %s)", k, strings.Join(triage.Categories, ", "))
		}
		if v <= 0 || v > 1 {
			return fmt.Errorf("triage.thresholds.%s must be above 0 and at most 1, not %v", k, v)
		}
	}
	return nil
}

// check reports a value out of its range, in the words every range uses.
func (r intRange) check() error {
	if r.zero != "" && r.v == 0 || r.v >= r.lo && r.v <= r.hi {
		return nil
	}
	if r.zero != "" {
		return fmt.Errorf("%s must be 0 (%s) or between %d and %d%s, not %d", r.name, r.zero, r.lo, r.hi, r.note, r.v)
	}
	return fmt.Errorf("%s must be between %d and %d%s, not %d", r.name, r.lo, r.hi, r.note, r.v)
}

// File is one layer of configuration and what became of it.
type File struct {
	Path    string `json:"path"`
	Present bool   `json:"present"`
	// Err is set when the file could not be used; its keys were then ignored.
	Err error `json:"-"`
	// Unknown lists keys the file sets that ccmem does not know; Nearest
	// maps one to the known key it is likely a typo of.
	Unknown []string          `json:"unknown,omitempty"`
	Nearest map[string]string `json:"nearest,omitempty"`
}

// Merge merges the defaults and the files at paths, in that order, each
// key overriding the one before. A file that cannot be read, parsed or
// validated is skipped whole and reported in its File.
func Merge(read func(string) ([]byte, error), paths ...string) (Config, []File) {
	cfg := Default()
	files := make([]File, 0, len(paths))
	for i, p := range paths {
		cf := File{Path: p}
		data, err := read(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			files = append(files, cf)
			continue
		case err != nil:
			cf.Present, cf.Err = true, err
			files = append(files, cf)
			continue
		}
		cf.Present = true
		next, unknown, err := applyConfig(cfg, data)
		for _, u := range unknown {
			cf.Unknown = append(cf.Unknown, u.key)
			if u.nearest != "" {
				if cf.Nearest == nil {
					cf.Nearest = map[string]string{}
				}
				cf.Nearest[u.key] = u.nearest
			}
		}
		if err != nil {
			cf.Err = err
		} else {
			if i > 0 {
				// sync and what the MCP server may read across projects
				// are the person's, across projects: a repository (or a
				// project's personal file) cannot turn them on.
				next.Sync = cfg.Sync
				next.MCP = cfg.MCP
			}
			cfg = next
		}
		files = append(files, cf)
	}
	return cfg, files
}

func applyConfig(base Config, data []byte) (Config, []unknownKey, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return base, nil, nil
	}
	next := base
	next.Triage.Thresholds = maps.Clone(base.Triage.Thresholds)
	next.Recall.Sources = slices.Clone(base.Recall.Sources)
	next.Guard.Tools = slices.Clone(base.Guard.Tools)
	next.Records.Categories = maps.Clone(base.Records.Categories)
	unknown, err := decodeConfig(data, &next)
	if err != nil {
		return base, nil, err
	}
	if err := next.Validate(); err != nil {
		return base, nil, err
	}
	return next, unknown, nil
}

// unknownKey is a key a config file sets that ccmem does not know, and
// the known key of the same table nearest to it.
type unknownKey struct{ key, nearest string }

// Paths are the config files of a project, in the order they merge: the
// global file, the repository's (committed, the team's) and the user's own
// for this project in the store, which wins. root and key may be empty when
// there is no project.
func Paths(e store.Env, root, key string) []string {
	paths := []string{e.GlobalConfig()}
	if root != "" {
		paths = append(paths, store.RepoConfig(root))
	}
	if key != "" {
		paths = append(paths, e.PersonalConfig(key))
	}
	return paths
}

// Load reads the effective configuration of the project rooted at root
// with store key key ("" for none).
func Load(e store.Env, root, key string) (Config, []File) {
	return Merge(func(p string) ([]byte, error) {
		if root != "" && p == store.RepoConfig(root) {
			// The repository's file is untrusted: no symlink is followed.
			return store.ReadFileIn(root, p, 1<<20)
		}
		return store.ReadSmallFile(p, 1<<20)
	}, Paths(e, root, key)...)
}

// Problems turns the per-file outcome into warnings for people.
func Problems(e store.Env, files []File) []string {
	var out []string
	for _, f := range files {
		if f.Err != nil {
			err := f.Err
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the file is named already
			}
			out = append(out, fmt.Sprintf("%s ignored: %v", e.Tilde(f.Path), err))
		}
		if len(f.Unknown) > 0 {
			keys := make([]string, len(f.Unknown))
			for i, k := range f.Unknown {
				keys[i] = k
				if n := f.Nearest[k]; n != "" {
					keys[i] += " (did you mean " + n + "?)"
				}
			}
			what := "unknown key"
			if len(keys) > 1 {
				what = "unknown keys"
			}
			out = append(out, fmt.Sprintf("%s: %s %s", e.Tilde(f.Path), what, strings.Join(keys, ", ")))
		}
	}
	return out
}
