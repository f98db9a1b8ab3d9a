// Package scripts holds the small files ccmem installs beside its binaries:
// the slash commands.
package scripts

import _ "embed"

// LearnCommand is the /learn slash command.
//
//go:embed commands/learn.md
var LearnCommand []byte

// RememberCommand is the /remember slash command.
//
//go:embed commands/remember.md
var RememberCommand []byte

// CcmemCommand is the /ccmem slash command (not /memory: that name is
// Claude Code's own, and a user command of the same name shadows it).
//
//go:embed commands/ccmem.md
var CcmemCommand []byte

// FrictionCommand is the /friction slash command: the rules drawn from a
// project's friction, reviewed in the session.
//
//go:embed commands/friction.md
var FrictionCommand []byte

// ForgetCommand is the /forget slash command.
//
//go:embed commands/forget.md
var ForgetCommand []byte

// LegacyMemoryCommand is the /memory command earlier versions installed,
// which install removes when it finds it unchanged.
//
//go:embed legacy/memory.md
var LegacyMemoryCommand []byte
