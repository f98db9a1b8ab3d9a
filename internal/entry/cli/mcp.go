package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/internal/entry/mcp"
	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/memory"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/search"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

var cmdMCP = &command.Command{
	Name: "mcp", Args: "",
	Summary: "serve ccmem's memory to Claude Code as an MCP server (stdio)",
	Help: `Speaks the Model Context Protocol on stdin and stdout, for Claude Code
(` + "`ccmem install`" + ` registers it as the user-scope server "ccmem"; the plugin
declares it too). Its tools, for the model:

- search: ranked memory for a query (as ccmem search)
- get: the text of a file a search hit named (only this project's memory,
  the memory of every project and this repository's .claude/memory/); for
  a hit in a past session, the turn it named with the turns around it
- remember: add a fact to the global or the project MEMORY.md
- forget: move a fact, a learned entry or a record to the archive, with
  the reason (when the user asks to forget something)
- review: the memories awaiting the user's review (candidate rules from
  friction, corrections Claude Code saved), and the user's decision on one

The project is the one of the directory the server runs in. Another
project's memory is out of its reach unless the global config says
mcp: {other_projects: true}.`,
	Setup: func(fs *flag.FlagSet) func(c *command.Ctx, args []string) error {
		return func(c *command.Ctx, args []string) error {
			if err := command.NoArgs(fs, args); err != nil {
				return err
			}
			return mcpServer(c).Serve(c, os.Stdin, c.Stdout)
		}
	},
}

// mcpScope is the memory the MCP server's tools reach: the project of the
// folder it runs in (and the memory of every project), and whether the
// person let it reach other projects' (mcp.other_projects, in the global
// config only).
func mcpScope(c *command.Ctx) (search.Scope, bool) {
	sc, _ := searchScope(c, "", false) // the server's folder: no --cwd to be wrong
	cfg, _ := config.Load(c.Env, "", "")
	return sc, cfg.MCP.OtherProjects
}

// mcpServer is ccmem's MCP server, its tools bound to the store of c.
func mcpServer(c *command.Ctx) *mcp.Server {
	schema := func(s string) json.RawMessage { return json.RawMessage(s) }
	return &mcp.Server{
		Name: "ccmem", Version: hookio.Version(),
		Instructions: "ccmem keeps the user's persistent memory across sessions: facts, learned preferences, records of decisions, and every past session. " +
			"Use search when earlier work, a past decision or a preference may bear on the task; get to read a hit's file; remember to save a durable fact.",
		Tools: []mcp.Tool{
			{
				Name: "search", Title: "Search memory",
				Description: "Ranked full-text search of ccmem's memory: global and project MEMORY.md lines and topic files, learned entries, project records, the briefing, and past sessions (archived ones too). Returns one entry per hit with the file to read.",
				InputSchema: schema(`{"type":"object","properties":{"query":{"type":"string","description":"words to look for"},"limit":{"type":"integer","description":"most hits (default 10)","minimum":1,"maximum":50},"kind":{"type":"string","description":"only these kinds, comma-separated: ` + strings.Join(search.Kinds, ", ") + `"},"all_projects":{"type":"boolean","description":"search every project, not only this one (only where the user turned it on: mcp.other_projects)"}},"required":["query"],"additionalProperties":false}`),
				Call: func(ctx context.Context, args json.RawMessage) (string, error) {
					var in struct {
						Query       string `json:"query"`
						Limit       int    `json:"limit"`
						Kind        string `json:"kind"`
						AllProjects bool   `json:"all_projects"`
					}
					if err := json.Unmarshal(args, &in); err != nil {
						return "", fmt.Errorf("search: %v", err)
					}
					if strings.TrimSpace(in.Query) == "" {
						return "", errors.New("search needs a query")
					}
					sc, others := mcpScope(c)
					if in.AllProjects && !others {
						return "", errors.New("search: all_projects is off: this project's memory and the memory of every project are searched; " +
							"another project's memory is searched only where the user turned on mcp.other_projects in ~/.claude/ccmem/config.yaml")
					}
					sc.All = in.AllProjects
					opt := search.Options{Limit: min(max(in.Limit, 0), 50), Scope: sc}
					for _, k := range strings.Split(in.Kind, ",") {
						if k = strings.TrimSpace(k); k != "" {
							opt.Kinds = append(opt.Kinds, k)
						}
					}
					hits, err := search.Search(ctx, c.Env, in.Query, opt)
					hits = search.WithAgents(hits)
					if err != nil {
						return "", err
					}
					return hitsText(in.Query, hits), nil
				},
			},
			{
				Name: "get", Title: "Read a memory file",
				Description: "The text of a memory file a search hit named (its path, without a line number). For a hit in a past session (it names a turn), pass the turn: you get what was said in that turn and the turns around it.",
				InputSchema: schema(`{"type":"object","properties":{"path":{"type":"string","description":"the absolute path of the file"},"turn":{"type":"integer","minimum":1,"description":"for a session's record: the turn a hit named"}},"required":["path"],"additionalProperties":false}`),
				Call: func(ctx context.Context, args json.RawMessage) (string, error) {
					var in struct {
						Path string `json:"path"`
						Turn int    `json:"turn"`
					}
					if err := json.Unmarshal(args, &in); err != nil {
						return "", fmt.Errorf("get: %v", err)
					}
					path, turn := splitPointer(in.Path)
					if in.Turn > 0 {
						turn = in.Turn
					}
					sc, others := mcpScope(c)
					sc.All = others
					if turn > 0 {
						return search.GetTurns(c.Env, path, sc, turn, 1)
					}
					return search.Get(c.Env, path, sc)
				},
			},
			{
				Name: "remember", Title: "Remember a fact",
				Description: "Adds one durable fact as a bullet under a topic header: scope global (the user's private memory: kept as your note, shown in this project's sessions, labelled as yours, until the user accepts it for every project) or project (the repository's MEMORY.md, committed and read by the team). A fact already there is not added twice; one nearly the same is returned instead of added (force: true adds it anyway); secrets are redacted.",
				InputSchema: schema(`{"type":"object","properties":{"fact":{"type":"string","description":"the fact, one sentence"},"topic":{"type":"string","description":"the header to file it under (default Notes)"},"scope":{"type":"string","enum":["global","project"],"description":"global (default) or project"},"force":{"type":"boolean","description":"add it even when a fact nearly the same is there (default false: the similar facts are returned instead)"}},"required":["fact"],"additionalProperties":false}`),
				Call: func(ctx context.Context, args json.RawMessage) (string, error) {
					var in struct {
						Fact, Topic, Scope string
						Force              bool
					}
					if err := json.Unmarshal(args, &in); err != nil {
						return "", fmt.Errorf("remember: %v", err)
					}
					if strings.TrimSpace(in.Fact) == "" {
						return "", errors.New("remember needs a fact")
					}
					if in.Topic == "" {
						in.Topic = notes.DefaultTopic
					}
					scope := notes.Global
					switch in.Scope {
					case "", "global":
					case "project":
						scope = notes.Project
					default:
						return "", fmt.Errorf("scope must be global or project, not %q", in.Scope)
					}
					p, err := projectHere(c, "")
					if err != nil && scope == notes.Project {
						return "", err
					}
					// The assistant's note: kept as the assistant's, shown in
					// this project only until the user accepts it.
					by := provenance.Origin{By: provenance.Assistant, Via: "mcp", Project: p.Key, At: c.Env.Time()}
					res, err := notes.RememberWith(c.Env, scope, p, in.Topic, in.Fact, notes.RememberOptions{Force: in.Force, Origin: by})
					if errors.Is(err, notes.ErrSimilar) {
						var b strings.Builder
						fmt.Fprintf(&b, "not added: %s already holds a fact nearly the same:", res.Path)
						for _, s := range res.Similar {
							fmt.Fprintf(&b, "\n- line %d: %s", s.Line, textfmt.Line(s.Text))
						}
						b.WriteString("\nIf the new fact updates it, tell the user (or edit the file); to add it anyway, call remember again with force: true.")
						return b.String(), nil
					}
					if err != nil {
						return "", err
					}
					if !res.Added {
						return "already remembered in " + res.Path, nil
					}
					msg := fmt.Sprintf("remembered under \"## %s\" in %s", res.Topic, res.Path)
					if scope == notes.Global {
						msg += " as your note: this project's sessions see it, labelled as yours, and it becomes the user's own (every project's, a standing rule if it is one) when they accept it with `ccmem learn review`"
					}
					dir, _ := startDir("")
					vis := memory.Seen(ctx, c.Env, dir, res.Path, provenance.ShapeOf(res.Line).Text, scope == notes.Global)
					if !vis.Shown {
						msg += fmt.Sprintf("; but no session will see it: %s. Tell the user: moving a section of that file into a topic file beside it, linked from one line, makes room.", vis.Why)
					}
					return msg, nil
				},
			},
			{
				Name: "forget", Title: "Forget a memory",
				Description: "Only when the user asks to forget something: moves a fact of a MEMORY.md (give its words), a learned entry (TYPE/NAME) or a project record (CATEGORY/ID) to the archive, with the reason; nothing is deleted, and it is no longer injected or recalled. When several facts match, they are listed and nothing changes: ask the user which one. Words that are only part of the one fact that matches change nothing either: the answer quotes the whole fact; confirm it with the user and give it whole.",
				InputSchema: schema(`{"type":"object","properties":{"what":{"type":"string","description":"the fact's words, TYPE/NAME of a learned entry, or CATEGORY/ID of a record"},"reason":{"type":"string","description":"why, in the user's words (kept in the archive)"},"scope":{"type":"string","enum":["global","project"],"description":"where a fact is: global or project (default: both are searched)"}},"required":["what","reason"],"additionalProperties":false}`),
				Call: func(ctx context.Context, args json.RawMessage) (string, error) {
					var in struct{ What, Reason, Scope string }
					if err := json.Unmarshal(args, &in); err != nil {
						return "", fmt.Errorf("forget: %v", err)
					}
					if strings.TrimSpace(in.What) == "" || strings.TrimSpace(in.Reason) == "" {
						return "", errors.New("forget needs what to forget and the user's reason")
					}
					if in.Scope != "" && in.Scope != "global" && in.Scope != "project" {
						return "", fmt.Errorf("scope must be global or project, not %q", in.Scope)
					}
					return captured(c, func(c *command.Ctx) error {
						return runForget(c, forgetArgs{what: in.What, reason: in.Reason, global: in.Scope == "global", project: in.Scope == "project",
							singleArg: !strings.ContainsAny(strings.TrimSpace(in.What), " \t")})
					})
				},
			},
			{
				Name: "review", Title: "Memories awaiting review",
				Description: "Lists the memories that wait for the user's decision: candidate rules ccmem drew from a project's recurring friction (never given to a session before the user accepts them), corrections Claude Code saved as feedback, your own notes and lines from other machines. Only the user accepts memory, in their terminal (`ccmem learn review`) or in `ccmem ui`: tell them what waits and let them decide. You may reject one, with the reason, only on the user's explicit decision.",
				InputSchema: schema(`{"type":"object","properties":{"action":{"type":"string","enum":["list","reject"],"description":"list (default), or reject on the user's decision"},"names":{"type":"array","items":{"type":"string"},"description":"the names to reject"},"reason":{"type":"string","description":"why the user rejects them"}},"additionalProperties":false}`),
				Call: func(ctx context.Context, args json.RawMessage) (string, error) {
					var in struct {
						Action, Reason string
						Names          []string
					}
					if err := json.Unmarshal(args, &in); err != nil {
						return "", fmt.Errorf("review: %v", err)
					}
					r := &reviewFlags{reason: in.Reason, byModel: true}
					switch in.Action {
					case "", "list":
						r.asJSON = true
					case "reject":
						r.reject = in.Names
					case "accept":
						return "", errors.New("review: only the user accepts memory, in their terminal (`ccmem learn review --accept NAME`) or in `ccmem ui`; tell them what waits")
					default:
						return "", fmt.Errorf("action must be list or reject, not %q", in.Action)
					}
					if in.Action == "reject" && len(in.Names) == 0 {
						return "", errors.New("review: name the memories the user decided on")
					}
					return captured(c, func(c *command.Ctx) error { return runLearnReview(c, r) })
				},
			},
		},
	}
}

// captured runs a command's work with its output kept: an MCP tool
// answers with what the command prints.
func captured(c *command.Ctx, run func(*command.Ctx) error) (string, error) {
	var out, errb bytes.Buffer
	c2 := *c
	c2.Stdout, c2.Stderr = &out, &errb
	err := run(&c2)
	text := strings.TrimSpace(out.String() + "\n" + errb.String())
	if err != nil {
		if text != "" {
			return "", fmt.Errorf("%v\n%s", err, text)
		}
		return "", err
	}
	return text, nil
}

// splitPointer takes a pointer as search and recall print it apart: "path",
// "path:line" (the line is dropped: get reads the file) or "path (turn N)".
func splitPointer(p string) (path string, turn int) {
	p = strings.TrimSpace(p)
	if rest, ok := strings.CutSuffix(p, ")"); ok {
		if i := strings.LastIndex(rest, " (turn "); i > 0 {
			if n, err := strconv.Atoi(rest[i+len(" (turn "):]); err == nil && n > 0 {
				return rest[:i], n
			}
		}
	}
	if i := strings.LastIndexByte(p, ':'); i > 1 && i < len(p)-1 && strings.Trim(p[i+1:], "0123456789") == "" {
		return p[:i], 0
	}
	return p, 0
}

// hitsText is search hits as compact text for a model.
func hitsText(query string, hits []search.Hit) string {
	if len(hits) == 0 {
		return fmt.Sprintf("No memory matches %q.", query)
	}
	var b strings.Builder
	for i, h := range hits {
		where := h.Path
		switch {
		case h.Turn > 0:
			where = fmt.Sprintf("%s (turn %d)", h.Path, h.Turn)
		case h.Line > 0:
			where = fmt.Sprintf("%s:%d", h.Path, h.Line)
		}
		title := textfmt.Line(h.Title)
		if h.Agent != "" {
			title += " · in " + h.Agent
		}
		if !h.Time.IsZero() {
			title = h.Time.UTC().Format("2006-01-02") + " · " + title
		}
		fmt.Fprintf(&b, "%d. [%s] %s\n   %s\n", i+1, h.Kind, title, textfmt.Line(where))
		if h.Snippet != "" {
			snippet := h.Snippet
			if h.Turn > 0 {
				snippet = search.QuotePassage(snippet, query, 300)
			}
			fmt.Fprintf(&b, "   %s\n", textfmt.Line(snippet))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
