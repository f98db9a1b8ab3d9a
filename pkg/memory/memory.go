// Package memory is ccmem's shared library, the one the hooks call: it
// composes the capped memory block a session starts with, archives the
// sessions that are over, records each turn, and nudges the user when
// Claude Code's memory folders need curating. It owns the hooks' deadline:
// every entry point reads the configuration first and then bounds its work
// by the configured deadline, counted from when the hook started.
//
// The rules themselves live in focused packages: store (layout, files,
// project identity), config, inject (fitting the block), session
// (checkpoints, episodes), learn (silos, learned entries, status cache),
// records and notes.
package memory
