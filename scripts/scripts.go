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

// MemoryCommand is the /memory slash command.
//
//go:embed commands/memory.md
var MemoryCommand []byte
