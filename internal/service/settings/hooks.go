package settings

import (
	"fmt"
	"strings"
)

// Hook is one command hook registration, in exec form: Command is the
// executable's absolute path and the client spawns it directly with Args,
// no shell, so no quoting is involved on any system.
type Hook struct {
	Event   string   // SessionStart, Stop, PreCompact, …
	Command string   // the executable's absolute path
	Args    []string // its arguments (empty, but present: exec form)
	Timeout int      // seconds
	// Matcher is the group's matcher ("Bash|Edit": the tools a PreToolUse
	// hook runs for); "" for none.
	Matcher string
}

// Owned tells whether a hook command belongs to ccmem; install and uninstall
// touch only entries it accepts.
type Owned func(command string) bool

// Change is one edit made to the settings, described for people.
type Change struct {
	Action string `json:"action"` // "add", "update", "remove"
	Event  string `json:"event"`
	What   string `json:"what"`
}

func (c Change) String() string {
	switch c.Event {
	case "statusLine":
		return fmt.Sprintf("%s statusLine: %s", c.Action, c.What)
	case "mcpServers":
		return fmt.Sprintf("%s MCP server %s", c.Action, c.What)
	}
	return fmt.Sprintf("%s %s hook: %s", c.Action, c.Event, c.What)
}

// shape errors name the part of settings.json that is not what Claude Code
// expects; ccmem refuses to edit such a file rather than guess.
func shapeError(path, want string) error {
	return fmt.Errorf("%s is not %s; fix or remove it, then run again", path, want)
}

// hooksObject returns root.hooks, creating it when create is set.
func hooksObject(root *Value, create bool) (*Value, error) {
	if root.Kind != Object {
		return nil, shapeError("the settings", "a JSON object")
	}
	h := root.Get("hooks")
	if h == nil {
		if !create {
			return nil, nil
		}
		h = NewObject()
		root.Set("hooks", h)
	}
	if h.Kind != Object {
		return nil, shapeError(`"hooks"`, "an object")
	}
	return h, nil
}

// entries visits every command entry of one event, in order, with its
// group index and index inside the group, after checking the shape.
func entries(hooks *Value, event string) (groups *Value, err error) {
	groups = hooks.Get(event)
	if groups == nil {
		return nil, nil
	}
	if groups.Kind != Array {
		return nil, shapeError(fmt.Sprintf("hooks.%s", event), "an array")
	}
	for gi, g := range groups.Items {
		if g.Kind != Object {
			return nil, shapeError(fmt.Sprintf("hooks.%s[%d]", event, gi), "an object")
		}
		if hs := g.Get("hooks"); hs != nil && hs.Kind != Array {
			return nil, shapeError(fmt.Sprintf("hooks.%s[%d].hooks", event, gi), "an array")
		}
	}
	return groups, nil
}

func commandOf(entry *Value) string {
	if entry.Kind != Object {
		return ""
	}
	if t, _ := entry.Get("type").Str(); t != "command" {
		return ""
	}
	c, _ := entry.Get("command").Str()
	return c
}

// Ensure makes h the one ccmem entry of its event: an existing ccmem entry
// is updated in place (other installs' paths or timeouts are corrected and
// duplicates removed), else a new group is appended after every other hook.
// An entry in a group with another matcher than h's moves to a group of
// its own with h's matcher.
func Ensure(root *Value, h Hook, owned Owned) ([]Change, error) {
	hooks, err := hooksObject(root, true)
	if err != nil {
		return nil, err
	}
	groups, err := entries(hooks, h.Event)
	if err != nil {
		return nil, err
	}
	var changes []Change
	found := false
	if groups != nil {
		for _, g := range groups.Items {
			hs := g.Get("hooks")
			if hs == nil {
				continue
			}
			kept := hs.Items[:0]
			for _, e := range hs.Items {
				cmd := commandOf(e)
				if cmd == "" || !owned(cmd) {
					kept = append(kept, e)
					continue
				}
				if found {
					changes = append(changes, Change{"remove", h.Event, "duplicate " + cmd})
					continue
				}
				if m, _ := g.Get("matcher").Str(); m != h.Matcher {
					// Another matcher: a group of its own for ccmem's entry
					// (a group others share keeps theirs).
					changes = append(changes, Change{"update", h.Event, fmt.Sprintf("matcher %q for %s (was %q)", h.Matcher, h.Command, m)})
					continue
				}
				found = true
				if cmd != h.Command {
					e.Set("command", String(h.Command))
					changes = append(changes, Change{"update", h.Event, fmt.Sprintf("%s (was %s)", h.Command, cmd)})
				}
				if !sameArgs(e.Get("args"), h.Args) {
					e.Set("args", stringArray(h.Args))
					changes = append(changes, Change{"update", h.Event, "exec form (command and args, no shell) for " + h.Command})
				}
				if t := e.Get("timeout"); t == nil || t.Raw != fmt.Sprint(h.Timeout) {
					e.Set("timeout", Int(h.Timeout))
					changes = append(changes, Change{"update", h.Event, fmt.Sprintf("timeout %d s for %s", h.Timeout, h.Command)})
				}
				kept = append(kept, e)
			}
			hs.Items = kept
		}
		if len(changes) > 0 {
			dropEmptyGroups(groups)
		}
	}
	if !found {
		if groups == nil {
			groups = &Value{Kind: Array}
			hooks.Set(h.Event, groups)
		}
		entry := NewObject()
		entry.Set("type", String("command"))
		entry.Set("command", String(h.Command))
		entry.Set("args", stringArray(h.Args))
		entry.Set("timeout", Int(h.Timeout))
		group := NewObject()
		if h.Matcher != "" {
			group.Set("matcher", String(h.Matcher))
		}
		group.Set("hooks", &Value{Kind: Array, Items: []*Value{entry}})
		groups.Items = append(groups.Items, group)
		if len(changes) == 0 || changes[len(changes)-1].Action != "update" || !strings.HasPrefix(changes[len(changes)-1].What, "matcher ") {
			changes = append(changes, Change{"add", h.Event, fmt.Sprintf("%s (timeout %d s)", h.Command, h.Timeout)})
		}
	}
	return changes, nil
}

// RemoveOwned deletes every ccmem entry from every event, then any group,
// event list or hooks object that only ccmem's entries filled.
func RemoveOwned(root *Value, owned Owned) ([]Change, error) {
	hooks, err := hooksObject(root, false)
	if err != nil || hooks == nil {
		return nil, err
	}
	var changes []Change
	for _, event := range append([]string(nil), hooks.Keys...) {
		groups, err := entries(hooks, event)
		if err != nil {
			continue // not shaped as the client reads it: not ccmem's either
		}
		if groups == nil {
			continue
		}
		removed := false
		for _, g := range groups.Items {
			hs := g.Get("hooks")
			if hs == nil {
				continue
			}
			kept := hs.Items[:0]
			for _, e := range hs.Items {
				if cmd := commandOf(e); cmd != "" && owned(cmd) {
					changes = append(changes, Change{"remove", event, cmd})
					removed = true
					continue
				}
				kept = append(kept, e)
			}
			hs.Items = kept
		}
		if !removed {
			continue
		}
		dropEmptyGroups(groups)
		if len(groups.Items) == 0 {
			hooks.Delete(event)
		}
	}
	if len(changes) > 0 && len(hooks.Keys) == 0 {
		root.Delete("hooks")
	}
	return changes, nil
}

// stringArray is a JSON array of strings.
func stringArray(list []string) *Value {
	a := &Value{Kind: Array}
	for _, s := range list {
		a.Items = append(a.Items, String(s))
	}
	return a
}

// sameArgs tells whether v is a JSON array holding exactly list.
func sameArgs(v *Value, list []string) bool {
	if v == nil || v.Kind != Array || len(v.Items) != len(list) {
		return false
	}
	for i, it := range v.Items {
		if s, ok := it.Str(); !ok || s != list[i] {
			return false
		}
	}
	return true
}

// Commands lists the hook commands registered for event that owned
// accepts, in order.
func Commands(root *Value, event string, owned Owned) []string {
	hooks, err := hooksObject(root, false)
	if err != nil || hooks == nil {
		return nil
	}
	groups, err := entries(hooks, event)
	if err != nil || groups == nil {
		return nil
	}
	var out []string
	for _, g := range groups.Items {
		hs := g.Get("hooks")
		if hs == nil {
			continue
		}
		for _, e := range hs.Items {
			if cmd := commandOf(e); cmd != "" && owned(cmd) {
				out = append(out, cmd)
			}
		}
	}
	return out
}

// dropEmptyGroups removes groups whose hook list became empty.
func dropEmptyGroups(groups *Value) {
	kept := groups.Items[:0]
	for _, g := range groups.Items {
		if hs := g.Get("hooks"); hs != nil && len(hs.Items) == 0 {
			continue
		}
		kept = append(kept, g)
	}
	groups.Items = kept
}

// EnsureStatusLine registers command as the status line when there is none,
// or corrects a ccmem status line; a status line of the user's own is left
// as it is, and foreign reports its command.
func EnsureStatusLine(root *Value, command string, owned Owned) (changes []Change, foreign string, err error) {
	if root.Kind != Object {
		return nil, "", shapeError("the settings", "a JSON object")
	}
	cur := root.Get("statusLine")
	if cur == nil {
		sl := NewObject()
		sl.Set("type", String("command"))
		sl.Set("command", String(command))
		root.Set("statusLine", sl)
		return []Change{{"add", "statusLine", command}}, "", nil
	}
	cmd := commandOf(cur)
	if cmd == "" || !owned(cmd) {
		if cmd == "" {
			cmd = string(cur.Marshal())
		}
		return nil, strings.TrimSpace(cmd), nil
	}
	if cmd != command {
		cur.Set("command", String(command))
		return []Change{{"update", "statusLine", fmt.Sprintf("%s (was %s)", command, cmd)}}, "", nil
	}
	return nil, "", nil
}

// RemoveStatusLine deletes a ccmem status line, and nothing else.
func RemoveStatusLine(root *Value, owned Owned) []Change {
	if root.Kind != Object {
		return nil
	}
	cur := root.Get("statusLine")
	if cur == nil {
		return nil
	}
	if cmd := commandOf(cur); cmd != "" && owned(cmd) {
		root.Delete("statusLine")
		return []Change{{"remove", "statusLine", cmd}}
	}
	return nil
}
