package install

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/internal/service/settings"
)

// MCPServer is the name ccmem's MCP server is registered under; its tools
// reach the model as mcp__ccmem__search, mcp__ccmem__get and
// mcp__ccmem__remember.
const MCPServer = "ccmem"

// mcpEntry is the user-scope registration of `ccmem mcp` for the binary
// at ccmem, as `claude mcp add --scope user` writes it.
func mcpEntry(ccmem string) *settings.Value {
	v := settings.NewObject()
	v.Set("type", settings.String("stdio"))
	v.Set("command", settings.String(ccmem))
	args := &settings.Value{Kind: settings.Array}
	args.Items = append(args.Items, settings.String("mcp"))
	v.Set("args", args)
	v.Set("env", settings.NewObject())
	return v
}

// ownedMCP tells whether a registration is ccmem's: a ccmem binary run
// with "mcp".
func ownedMCP(v *settings.Value) bool {
	cmd, _ := v.Get("command").Str()
	args := v.Get("args")
	if args == nil || args.Kind != settings.Array || len(args.Items) != 1 {
		return false
	}
	first, _ := args.Items[0].Str()
	return first == "mcp" && strings.TrimSuffix(filepath.Base(cmd), ".exe") == "ccmem"
}

// ensureMCP registers ccmem's MCP server in the client's .claude.json
// (root), replacing an older registration of ccmem's; a server named ccmem
// that is someone else's is left, with a note.
func ensureMCP(root *settings.Value, ccmem string) ([]settings.Change, string, error) {
	servers := root.Get("mcpServers")
	if servers == nil {
		servers = settings.NewObject()
		root.Set("mcpServers", servers)
	}
	if servers.Kind != settings.Object {
		return nil, "", fmt.Errorf("mcpServers is not an object; left untouched")
	}
	want := mcpEntry(ccmem)
	old := servers.Get(MCPServer)
	switch {
	case old == nil:
		servers.Set(MCPServer, want)
		return []settings.Change{{Action: "add", Event: "mcpServers", What: MCPServer + ": " + ccmem + " mcp (user scope)"}}, "", nil
	case !ownedMCP(old):
		return nil, fmt.Sprintf("an MCP server named %q that is not ccmem's is registered; ccmem's was not added", MCPServer), nil
	case settings.Equal(old, want):
		return nil, "", nil
	}
	servers.Set(MCPServer, want)
	return []settings.Change{{Action: "update", Event: "mcpServers", What: MCPServer + ": " + ccmem + " mcp"}}, "", nil
}

// removeMCP drops ccmem's MCP server registration.
func removeMCP(root *settings.Value) []settings.Change {
	servers := root.Get("mcpServers")
	if servers == nil || servers.Kind != settings.Object {
		return nil
	}
	if old := servers.Get(MCPServer); old != nil && ownedMCP(old) {
		servers.Delete(MCPServer)
		if len(servers.Keys) == 0 {
			// Nothing else was registered: no empty "mcpServers" is left
			// behind (the client reads none and none alike).
			root.Delete("mcpServers")
		}
		return []settings.Change{{Action: "remove", Event: "mcpServers", What: MCPServer}}
	}
	return nil
}
