package cli

import (
	"bytes"
	"context"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/pkg/docblock"
)

// TestDocsNameTheMCPTools (issue 49, finding 4): docs/commands.md lists
// the MCP server's tools as the server has them.
func TestDocsNameTheMCPTools(t *testing.T) {
	c := &command.Ctx{Context: context.Background(), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	var b strings.Builder
	for _, tool := range mcpServer(c).Tools {
		desc, _, _ := strings.Cut(tool.Description, ". ")
		b.WriteString("- `" + tool.Name + "` — " + tool.Title + ": " + strings.TrimSuffix(desc, ".") + ".\n")
	}
	docblock.Check(t, "../../../docs/commands.md", "mcp-tools", b.String())
}

// TestDocsSayWhichCommandsLackJSON: docs/commands.md names every command
// that has no --json flag, as the command table defines them.
func TestDocsSayWhichCommandsLackJSON(t *testing.T) {
	var none []string
	var walk func(prefix string, list []*command.Command)
	walk = func(prefix string, list []*command.Command) {
		for _, c := range list {
			if c.Setup != nil {
				fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
				fs.SetOutput(io.Discard)
				c.Setup(fs)
				if fs.Lookup("json") == nil {
					none = append(none, "`ccmem "+prefix+c.Name+"`")
				}
			}
			walk(prefix+c.Name+" ", c.Subs)
		}
	}
	walk("", commands)
	docblock.Check(t, "../../../docs/commands.md", "no-json", strings.Join(none, ", ")+".")
}
