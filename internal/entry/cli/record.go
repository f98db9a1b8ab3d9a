package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdRecord = &command.Command{
	Name: "record", Args: "create|update|retire|archive|restore|gc|list|show [flags] [CATEGORY/ID]",
	Summary: "structured project records: decisions, constraints, preferences, runbooks, tech debt, sessions",
	Help: `Records live in <repo>/.claude/memory/records/<category>/<id>.json (committed,
shared) and change only through this command, which validates every write.

Input for create: {"title": "...", "tags": ["..."], "content": {...}} (id
defaults to the title's slug; confidence to 0.8). For update, the same plus
at least one new entry in "changes": [{"summary": "what changed"}], and
--hash from show: a record changed since it was read is refused. A retired
id cannot be re-created for 24 hours. Only 5 session summaries stay active.

Categories and their content fields (* required):
` + categoryHelp(),
	Subs: []*command.Command{
		cmdRecordCreate, cmdRecordUpdate,
		recordStatusCommand("retire", records.StatusRetired, "retired", "retire a record (archived by gc after 30 days)"),
		recordStatusCommand("archive", records.StatusArchived, "archived", "archive a record (kept for good, not injected)"),
		recordStatusCommand("restore", records.StatusActive, "restored", "make a retired or archived record active again"),
		cmdRecordGC, cmdRecordList, cmdRecordShow,
	},
}

func categoryHelp() string {
	var b strings.Builder
	for _, c := range records.Categories {
		fmt.Fprintf(&b, "- %s: %s\n", c, records.ContentFields(c))
	}
	return b.String()
}

// recordFlags are the flags every record sub-command has.
type recordFlags struct {
	cwd    *string
	asJSON *bool
}

func addRecordFlags(fs *flag.FlagSet) recordFlags {
	return recordFlags{
		cwd:    command.CwdFlag(fs),
		asJSON: fs.Bool("json", false, "print JSON"),
	}
}

func (f recordFlags) open(c *command.Ctx) (*records.Store, error) {
	dir, err := startDir(*f.cwd)
	if err != nil {
		return nil, err
	}
	s, err := records.Open(c.Env, dir)
	if err != nil {
		return nil, err
	}
	cfg, files := config.Load(c.Env, s.Root, s.Key)
	for _, pr := range config.Problems(c.Env, files) {
		fmt.Fprintf(c.Stderr, "ccmem: warning: %s\n", pr)
	}
	s.Policy = cfg.Records
	return s, nil
}

// report prints the outcome of a write.
func (f recordFlags) report(c *command.Ctx, verb string, rf records.File, err error) error {
	if err != nil {
		return recordError(err)
	}
	if *f.asJSON {
		return c.PrintJSON(rf)
	}
	fmt.Fprintf(c.Stdout, "%s %s/%s (hash %s) in %s\n", verb, rf.Record.Category, rf.Record.ID, rf.Hash, c.Env.Tilde(rf.Path))
	for _, r := range rf.Retired {
		fmt.Fprintf(c.Stdout, "retired %s (%q): the newest session summaries stay active (records.max_retained); `ccmem record restore %s` brings it back\n",
			r.Ref, textfmt.Line(r.Title), r.Ref)
	}
	return nil
}

// recordRef reads the one CATEGORY/ID argument of a sub-command.
func recordRef(fs *flag.FlagSet, args []string) (category, id string, err error) {
	if len(args) == 0 {
		return "", "", command.Usagef("name the record as CATEGORY/ID, such as decision/use-postgres", "%s needs a record", strings.TrimPrefix(fs.Name(), "ccmem "))
	}
	if err := command.NoArgs(fs, args[1:]); err != nil {
		return "", "", err
	}
	category, id, ok := strings.Cut(args[0], "/")
	if !ok || category == "" || id == "" {
		return "", "", command.Usagef("name a record as CATEGORY/ID, such as decision/use-postgres", "bad record name %q", args[0])
	}
	return category, strings.TrimSuffix(id, ".json"), nil
}

var cmdRecordCreate = &command.Command{
	Name: "create", Args: "--category C [--id ID] [--input FILE|-] [--force] [--cwd DIR] [--json]",
	Summary: "create a record from JSON (refused when one nearly the same exists, unless --force)",
	Help: `Creates an active record from JSON (see ccmem help record). It looks
before it creates: the project's active records of the same
category are scored against the new one — the words of the title, the
tags and the content — and one scoring 0.5 or more is taken for the same
record: the create is refused, listing them (--json: "candidates", each
with its ref, title, hash and score) with the command that updates one
instead. --force creates it anyway.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		rf := addRecordFlags(fs)
		category := fs.String("category", "", "the record's `category`")
		id := fs.String("id", "", "the record's `id` (default: the title's slug)")
		input := fs.String("input", "-", "the record JSON: a `file`, or - for standard input")
		force := fs.Bool("force", false, "create it even when a record nearly the same exists")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			s, err := rf.open(c)
			if err != nil {
				return err
			}
			r, err := readRecordInput(c, *input)
			if err != nil {
				return err
			}
			if *category != "" {
				if r.Category != "" && r.Category != *category {
					return command.Usagef("", "--category %s but the input says %q", *category, r.Category)
				}
				r.Category = *category
			}
			if *id != "" {
				r.ID = *id
			}
			if r.Category == "" {
				return command.Usagef("categories: "+strings.Join(records.Categories, ", "), "record create needs --category")
			}
			if !*force {
				if cands := notes.RecordCandidates(s.Root, r); len(cands) > 0 {
					best := cands[0]
					err := fmt.Errorf("CANDIDATES: %s (%q, score %.2f) looks like the same record: update it instead, or create this one anyway with --force", best.Ref, best.Title, best.Score)
					return command.WithHint(detailed{codedError{err, "CANDIDATES"}, map[string]any{"candidates": cands}},
						fmt.Sprintf("ccmem record update %s --hash %s --input FILE", best.Ref, best.Hash))
				}
			}
			f, err := s.Create(r)
			return rf.report(c, "created", f, err)
		}
	},
}

var cmdRecordUpdate = &command.Command{
	Name: "update", Args: "CATEGORY/ID --hash H [--input FILE|-] [--cwd DIR] [--json]",
	Summary: "merge changes into a record read at hash H",
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		rf := addRecordFlags(fs)
		hash := fs.String("hash", "", "the `hash` of the record as you read it (from show)")
		input := fs.String("input", "-", "the changes as record JSON: a `file`, or - for standard input")
		return func(c *command.Ctx, args []string) error {
			category, id, err := recordRef(fs, args)
			if err != nil {
				return err
			}
			if *hash == "" {
				return command.Usagef("read it first: `ccmem record show "+category+"/"+id+"` prints its hash", "record update needs --hash")
			}
			s, err := rf.open(c)
			if err != nil {
				return err
			}
			r, err := readRecordInput(c, *input)
			if err != nil {
				return err
			}
			f, err := s.Update(category, id, *hash, r)
			return rf.report(c, "updated", f, err)
		}
	},
}

// recordStatusCommand is retire, archive or restore.
func recordStatusCommand(name, status, done, summary string) *command.Command {
	return &command.Command{
		Name: name, Args: "CATEGORY/ID [--reason R] [--cwd DIR] [--json]", Summary: summary,
		Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
			rf := addRecordFlags(fs)
			reason := fs.String("reason", "", "`why`, kept in the record's history")
			return func(c *command.Ctx, args []string) error {
				category, id, err := recordRef(fs, args)
				if err != nil {
					return err
				}
				s, err := rf.open(c)
				if err != nil {
					return err
				}
				// The deletion guard: retiring or archiving a record
				// others link to goes ahead, naming them.
				var linked []string
				if status != records.StatusActive {
					linked = s.LinkedBy(category, id)
					for _, l := range linked {
						fmt.Fprintf(c.Stderr, "ccmem: warning: %s/%s is linked from %s, which will point at a %s record\n", category, id, textfmt.Line(l), done)
					}
				}
				f, err := s.SetStatus(category, id, status, *reason)
				if err == nil && *rf.asJSON && len(linked) > 0 {
					return c.PrintJSON(map[string]any{"record": f, "linked_by": linked})
				}
				return rf.report(c, done, f, err)
			}
		},
	}
}

var cmdRecordGC = &command.Command{
	Name: "gc", Args: "[--dry-run] [--cwd DIR] [--json]",
	Summary: "retire expired records and archive retired ones past their grace (nothing deleted)",
	Help: `Retires the active records of a category with a retention
(records.categories.NAME.retention_days) not updated for that long, then
archives the retired records whose grace period has passed
(records.grace_period_days, 30 days by default). Nothing is deleted:
archived records are kept for good, never injected or recalled, and
ccmem record restore brings one back. --dry-run reports what it would do.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		rf := addRecordFlags(fs)
		dryRun := fs.Bool("dry-run", false, "report only")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			s, err := rf.open(c)
			if err != nil {
				return err
			}
			rep, err := s.GC(*dryRun)
			if err != nil {
				return err
			}
			if *rf.asJSON {
				return c.PrintJSON(map[string]any{"dry_run": *dryRun, "archived": rep.Archived, "expired": rep.Expired})
			}
			archived, expired := "archived", "retired"
			if *dryRun {
				archived, expired = "would archive", "would retire"
			}
			for _, p := range rep.Expired {
				fmt.Fprintf(c.Stdout, "%s %s (past its category's retention)\n", expired, c.Env.Tilde(p))
			}
			for _, p := range rep.Archived {
				fmt.Fprintf(c.Stdout, "%s %s\n", archived, c.Env.Tilde(p))
			}
			fmt.Fprintf(c.Stdout, "%s past their %d-day grace %s\n", textfmt.Plural(len(rep.Archived), "retired record", "retired records"), s.Policy.GracePeriodDays, archived)
			return nil
		}
	},
}

var cmdRecordList = &command.Command{
	Name: "list", Args: "[--category C] [--all] [--cwd DIR] [--json]",
	Summary: "list active records (--all: every one)",
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		rf := addRecordFlags(fs)
		category := fs.String("category", "", "only this `category`")
		all := fs.Bool("all", false, "retired and archived records too")
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			s, err := rf.open(c)
			if err != nil {
				return err
			}
			return listRecords(c, s, *category, *all, *rf.asJSON)
		}
	},
}

var cmdRecordShow = &command.Command{
	Name: "show", Args: "CATEGORY/ID [--cwd DIR] [--json]",
	Summary: "print a record and its hash",
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		rf := addRecordFlags(fs)
		return func(c *command.Ctx, args []string) error {
			category, id, err := recordRef(fs, args)
			if err != nil {
				return err
			}
			s, err := rf.open(c)
			if err != nil {
				return err
			}
			f, err := s.Read(category, id)
			if err != nil {
				return recordError(err)
			}
			if f.Record == nil && errors.Is(f.Err, os.ErrNotExist) {
				return recordError(fmt.Errorf("no record %s/%s: %w", category, id, records.ErrNotFound))
			}
			if *rf.asJSON {
				return c.PrintJSON(f)
			}
			data, err := os.ReadFile(f.Path)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.Stdout, "# %s/%s hash %s\n", category, id, f.Hash)
			if f.Err != nil {
				fmt.Fprintf(c.Stdout, "# %v\n", f.Err)
			}
			_, err = c.Stdout.Write(data)
			return err
		}
	},
}

// detailed is an error with more to say to a script (--json): the
// fields are added to the error's JSON.
type detailed struct {
	error
	fields map[string]any
}

func (e detailed) Unwrap() error              { return e.error }
func (e detailed) JSONFields() map[string]any { return e.fields }

// codedError is an error with the code of the rule that refused it, for
// --json.
type codedError struct {
	error
	code string
}

func (e codedError) Unwrap() error { return e.error }
func (e codedError) Code() string  { return e.code }

// recordError adds a hint to the pipeline's refusals.
func recordError(err error) error {
	hints := []struct {
		rule error
		hint string
	}{
		{records.ErrConflict, "run `ccmem record show CATEGORY/ID` for the current record and hash, merge, and update again"},
		{records.ErrResurrection, "`ccmem record restore CATEGORY/ID` brings the retired record back"},
		{records.ErrExists, "`ccmem record show CATEGORY/ID` prints it with its hash for `ccmem record update`"},
		{records.ErrInvalid, "`ccmem help record` lists each category's fields"},
	}
	for _, h := range hints {
		if errors.Is(err, h.rule) {
			code := records.Code(err)
			switch msg := err.Error(); {
			case strings.HasPrefix(msg, code) || strings.HasPrefix(msg, h.rule.Error()):
				err = codedError{err, code} // it names its rule already
			default:
				err = codedError{fmt.Errorf("%s: %w", code, err), code} // the rule, once
			}
			return command.WithHint(err, h.hint)
		}
	}
	return err
}

func readRecordInput(c *command.Ctx, input string) (*records.Record, error) {
	var data []byte
	var err error
	if input == "-" {
		data, err = io.ReadAll(io.LimitReader(c.P.Stdin, 4<<20))
	} else {
		data, err = os.ReadFile(input)
	}
	if err != nil {
		return nil, err
	}
	var r records.Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, command.WithHint(fmt.Errorf("record input is not a record: %w", err), "`ccmem help record` shows the shape")
	}
	return &r, nil
}

func listRecords(c *command.Ctx, s *records.Store, category string, all, asJSON bool) error {
	var rows []records.File
	invalid := 0
	for _, rf := range records.List(s.Root) {
		if rf.Err != nil {
			invalid++
			rows = append(rows, rf)
			continue
		}
		if category != "" && rf.Record.Category != category {
			continue
		}
		if !all && rf.Record.RecordStatus != records.StatusActive {
			continue
		}
		rows = append(rows, rf)
	}
	if invalid > 0 {
		fmt.Fprintf(c.Stderr, "ccmem: warning: %s (listed as INVALID); fix or remove %s\n",
			textfmt.Plural(invalid, "record file is invalid", "record files are invalid"), map[bool]string{true: "it", false: "them"}[invalid == 1])
	}
	if asJSON {
		return c.PrintJSON(orEmpty(rows))
	}
	if len(rows) == 0 {
		fmt.Fprintf(c.Stdout, "no records in %s\n", c.Env.Tilde(records.Dir(s.Root)))
		return nil
	}
	tw := command.NewTable(c.Stdout)
	tw.Row("category", "id", "status", "title", "hash")
	for _, rf := range rows {
		if rf.Err != nil {
			// Named by where it lies: records/<category>/<id>.json.
			tw.Row(filepath.Base(filepath.Dir(rf.Path)), strings.TrimSuffix(filepath.Base(rf.Path), ".json"), "INVALID",
				textfmt.Shorten(rf.Err.Error(), 60), rf.Hash)
			continue
		}
		r := rf.Record
		tw.Row(r.Category, r.ID, r.RecordStatus, textfmt.Shorten(r.Title, 60), rf.Hash)
	}
	return tw.Flush()
}
