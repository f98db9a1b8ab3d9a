// Package codexcli is OpenAI's Codex CLI as ccmem serves it (0.169.0,
// verified by the end-to-end tests against the real client): which of
// ccmem's hook binaries serve which Codex events, where Codex keeps its
// hooks and sessions, and how it decides that a hook is trusted — Codex
// runs a hook from a user's hooks.json only when its config.toml holds a
// trust entry whose hash matches the hook's definition (else `codex exec`
// skips it without a word). It imports nothing of ccmem but Claude
// Code's contract, whose hooks it serves.
package codexcli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"

	"github.com/ccmem/ccmem/pkg/claudecode"
)

// Hook is one of ccmem's hook binaries and the Codex event it serves.
type Hook = claudecode.Hook

// Hooks are the Codex events ccmem serves: Claude Code's hooks whose
// events Codex fires under the same names. Codex has no
// PostToolUseFailure; its SubagentStart was never seen firing, so it is
// not registered.
var Hooks = func() []Hook {
	var out []Hook
	for _, h := range claudecode.Hooks {
		if h.Event != "PostToolUseFailure" && h.Event != "SubagentStart" {
			out = append(out, h)
		}
	}
	return out
}()

// Handler is one command hook of a hooks.json, as Codex reads it: the
// command runs through `bash -c`; ContextLimit, when set, is
// additionalContextLimit (0: no limit — else Codex cuts a hook's context
// near 2,500 tokens and saves the rest to a file).
type Handler struct {
	Command      string
	Timeout      int
	ContextLimit *int
}

// JSON is the handler as it is written in hooks.json, in this order.
func (h Handler) fields() map[string]any {
	m := map[string]any{"type": "command", "command": h.Command, "timeout": h.Timeout}
	if h.ContextLimit != nil {
		m["additionalContextLimit"] = *h.ContextLimit
	}
	return m
}

// usesMatcher tells whether an event's groups are filtered by their
// matcher (UserPromptSubmit and Stop ignore it).
func usesMatcher(event string) bool { return event != "UserPromptSubmit" && event != "Stop" }

// Snake is an event's name in trust keys: "SessionStart" → "session_start".
func Snake(event string) string {
	var b strings.Builder
	for i, r := range event {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TrustKey names a handler in config.toml's [hooks.state."…"] tables: the
// hooks file's absolute path, the event, the matcher group's index in the
// event's list and the handler's index in the group.
func TrustKey(file, event string, group, handler int) string {
	return file + ":" + Snake(event) + ":" + strconv.Itoa(group) + ":" + strconv.Itoa(handler)
}

// TrustHash is the hash Codex compares a trust entry's trusted_hash with:
// sha256 of the compact JSON, keys sorted, of the event, the group's
// matcher (for an event that uses one) and the handler with its effective
// timeout and async flag.
func TrustHash(event, matcher string, h Handler) string {
	hh := h.fields()
	hh["async"] = false
	v := map[string]any{"event_name": Snake(event), "hooks": []any{hh}}
	if matcher != "" && usesMatcher(event) {
		v["matcher"] = matcher
	}
	data, _ := json.Marshal(v) // maps are written with their keys sorted
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TOMLString is s as a TOML basic string.
func TOMLString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\u` + strconv.FormatInt(int64(0x10000+r), 16)[1:])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
