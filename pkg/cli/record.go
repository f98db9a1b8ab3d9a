package cli

import (
	"bytes"
	"encoding/json"
	"errors"

	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/ccmem/ccmem/pkg/memory"
)

func init() {
	register(&command{
		name: "record", args: "create|update|retire|archive|restore|gc|list|show [flags] [CATEGORY/ID]",
		summary: "structured project records: decisions, constraints, preferences, runbooks, tech debt, sessions",
		help: `Records live in <repo>/.claude/memory/records/<category>/<id>.json (committed,
shared) and change only through this command, which validates every write.

  ccmem record create --category C [--input FILE|-]     a new record from JSON
  ccmem record update CATEGORY/ID --hash H [--input F]  merge changes into it
  ccmem record retire|archive|restore CATEGORY/ID [--reason R]
  ccmem record gc [--dry-run]                           purge retired records past 30 days
  ccmem record list [--category C] [--all] [--json]     active records (--all: every one)
  ccmem record show CATEGORY/ID [--json]                a record and its hash

Input for create: {"title": "...", "tags": ["..."], "content": {...}} (id
defaults to the title's slug; confidence to 0.8). For update, the same plus
at least one new entry in "changes": [{"summary": "what changed"}], and
--hash from show: a record changed since it was read is refused. A retired
id cannot be re-created for 24 hours. Only 5 session summaries stay active.

Categories and their content fields (* required):
` + categoryHelp(),
		run: runRecord,
	})
}

func categoryHelp() string {
	var b strings.Builder
	for _, c := range memory.RecordCategories {
		fmt.Fprintf(&b, "  %-16s %s\n", c, memory.ContentFields(c))
	}
	return b.String()
}

func runRecord(c *ctx, args []string) error {
	if len(args) == 0 {
		return usagef("run `ccmem help record`", "record needs a subcommand: create, update, retire, archive, restore, gc, list or show")
	}
	sub := args[0]
	if sub == "-h" || sub == "--help" || sub == "help" {
		printHelp(c.out, lookup("record"), nil)
		return nil
	}
	fs := c.flags("record " + sub)
	category := fs.String("category", "", "the record's `category`")
	id := fs.String("id", "", "the record's `id` (its slug)")
	input := fs.String("input", "-", "the record JSON: a `file`, or - for standard input")
	hash := fs.String("hash", "", "update: the `hash` of the record as you read it (from show)")
	reason := fs.String("reason", "", "retire/archive: `why`")
	cwd := fs.String("cwd", "", "a `directory` of the project (default: the current one)")
	all := fs.Bool("all", false, "list: retired and archived records too")
	dryRun := fs.Bool("dry-run", false, "gc: report only")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := c.parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return noArgs(fs, pos[1:])
	}
	if len(pos) == 1 {
		cat, rid, ok := strings.Cut(pos[0], "/")
		if !ok {
			return usagef("name a record as CATEGORY/ID, such as decision/use-postgres", "bad record name %q", pos[0])
		}
		*category, *id = cat, strings.TrimSuffix(rid, ".json")
	}
	dir, err := startDir(*cwd)
	if err != nil {
		return err
	}
	store, err := memory.OpenRecords(c.env, dir)
	if err != nil {
		return err
	}
	needRef := func() error {
		if *category == "" || *id == "" {
			return usagef("name the record as CATEGORY/ID or with --category and --id", "record %s needs a record", sub)
		}
		return nil
	}
	report := func(verb string, rf memory.RecordFile, err error) error {
		if err != nil {
			return recordError(err)
		}
		if *asJSON {
			return c.printJSON(rf)
		}
		fmt.Fprintf(c.out, "%s %s/%s (hash %s) in %s\n", verb, rf.Record.Category, rf.Record.ID, rf.Hash, c.env.Tilde(rf.Path))
		return nil
	}
	switch sub {
	case "create":
		r, err := readRecordInput(c, *input)
		if err != nil {
			return err
		}
		if *category != "" {
			if r.Category != "" && r.Category != *category {
				return usagef("", "--category %s but the input says %q", *category, r.Category)
			}
			r.Category = *category
		}
		if *id != "" {
			r.ID = *id
		}
		if r.Category == "" {
			return usagef("categories: "+strings.Join(memory.RecordCategories, ", "), "record create needs --category")
		}
		rf, err := store.Create(r)
		return report("created", rf, err)
	case "update":
		if err := needRef(); err != nil {
			return err
		}
		if *hash == "" {
			return usagef("read it first: `ccmem record show "+*category+"/"+*id+"` prints its hash", "record update needs --hash")
		}
		r, err := readRecordInput(c, *input)
		if err != nil {
			return err
		}
		rf, err := store.Update(*category, *id, *hash, r)
		return report("updated", rf, err)
	case "retire", "archive", "restore":
		if err := needRef(); err != nil {
			return err
		}
		status := map[string]string{"retire": memory.StatusRetired, "archive": memory.StatusArchived, "restore": memory.StatusActive}[sub]
		rf, err := store.SetStatus(*category, *id, status, *reason)
		return report(map[string]string{"retire": "retired", "archive": "archived", "restore": "restored"}[sub], rf, err)
	case "gc":
		paths, err := store.GC(*dryRun)
		if err != nil {
			return err
		}
		if *asJSON {
			return c.printJSON(map[string]any{"dry_run": *dryRun, "purged": orEmpty(paths)})
		}
		verb := "purged"
		if *dryRun {
			verb = "would purge"
		}
		for _, p := range paths {
			fmt.Fprintf(c.out, "%s %s\n", verb, c.env.Tilde(p))
		}
		fmt.Fprintf(c.out, "%d retired records past their 30-day grace %s\n", len(paths), verb)
		return nil
	case "list":
		return listRecords(c, store, *category, *all, *asJSON)
	case "show":
		if err := needRef(); err != nil {
			return err
		}
		rf := memory.ReadRecord(memory.RecordPath(store.Root, *category, *id))
		if rf.Record == nil && rf.Err != "" {
			if _, err := os.Stat(rf.Path); err != nil {
				return recordError(&memory.RecordError{Code: "NOT_FOUND", Msg: fmt.Sprintf("no record %s/%s", *category, *id)})
			}
		}
		if *asJSON {
			return c.printJSON(rf)
		}
		data, err := os.ReadFile(rf.Path)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.out, "# %s/%s hash %s\n", *category, *id, rf.Hash)
		if rf.Err != "" {
			fmt.Fprintf(c.out, "# INVALID: %s\n", rf.Err)
		}
		c.out.Write(data)
		return nil
	}
	return usagef("run `ccmem help record`", "unknown record subcommand %q", sub)
}

// recordError adds a hint to the pipeline's refusals.
func recordError(err error) error {
	var re *memory.RecordError
	if !errors.As(err, &re) {
		return err
	}
	hints := map[string]string{
		"OCC_CONFLICT":      "run `ccmem record show CATEGORY/ID` for the current record and hash, merge, and update again",
		"ANTI_RESURRECTION": "`ccmem record restore CATEGORY/ID` brings the retired record back",
		"EXISTS":            "`ccmem record show CATEGORY/ID` prints it with its hash for `ccmem record update`",
		"INVALID":           "`ccmem help record` lists each category's fields",
	}
	if h, ok := hints[re.Code]; ok {
		return withHint(fmt.Errorf("%s: %s", strings.ToLower(strings.ReplaceAll(re.Code, "_", " ")), re.Msg), h)
	}
	return err
}

func readRecordInput(c *ctx, input string) (*memory.Record, error) {
	var data []byte
	var err error
	if input == "-" {
		data, err = io.ReadAll(io.LimitReader(c.p.Stdin, 4<<20))
	} else {
		data, err = os.ReadFile(input)
	}
	if err != nil {
		return nil, err
	}
	var r memory.Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, withHint(fmt.Errorf("record input is not a record: %v", err), "`ccmem help record` shows the shape")
	}
	return &r, nil
}

func listRecords(c *ctx, store *memory.RecordStore, category string, all, asJSON bool) error {
	files := memory.ListRecords(store.Root)
	var rows []memory.RecordFile
	invalid := 0
	for _, rf := range files {
		if rf.Err != "" {
			invalid++
			rows = append(rows, rf)
			continue
		}
		if category != "" && rf.Record.Category != category {
			continue
		}
		if !all && rf.Record.RecordStatus != memory.StatusActive {
			continue
		}
		rows = append(rows, rf)
	}
	if invalid > 0 {
		fmt.Fprintf(c.err, "ccmem: warning: %d record file%s invalid (listed as INVALID); fix or remove them\n", invalid, map[bool]string{true: " is", false: "s are"}[invalid == 1])
	}
	if asJSON {
		if rows == nil {
			rows = []memory.RecordFile{}
		}
		return c.printJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(c.out, "no records in %s\n", c.env.Tilde(memory.RecordsDir(store.Root)))
		return nil
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "category\tid\tstatus\ttitle\thash")
	for _, rf := range rows {
		if rf.Err != "" {
			fmt.Fprintf(tw, "?\t%s\tINVALID\t%s\t%s\n", c.env.Tilde(rf.Path), clip(rf.Err, 90), rf.Hash)
			continue
		}
		r := rf.Record
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Category, r.ID, r.RecordStatus, clip(r.Title, 60), rf.Hash)
	}
	return tw.Flush()
}
