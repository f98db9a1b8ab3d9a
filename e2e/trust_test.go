package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUntrustedFolderGetsNoRepositoryMemory (seed 001: project memory
// only in trusted projects): in an interactive session in a folder the
// person has not trusted, the client shows its trust dialog before it runs
// any hook or MCP server, so no hook of ccmem's runs, nothing is written
// to the store and the repository's memory reaches no request; declining
// ends it so. Once the person trusts the folder, the hooks run and the
// repository's memory reaches the model.
func TestUntrustedFolderGetsNoRepositoryMemory(t *testing.T) {
	w := newWorld(t, nil)
	p := filepath.Join(w.home, ".claude.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["projects"] = map[string]any{w.project: map[string]any{"hasTrustDialogAccepted": false}}
	data, _ = json.Marshal(m)
	w.write(p, string(data))
	const marker = "ZEPPELIN-TRUST-MARKER"
	w.write(filepath.Join(w.project, ".claude", "memory", "MEMORY.md"), "## Notes\n- the deploy key is "+marker+"\n")
	projects := filepath.Join(w.home, ".claude", "ccmem", "projects")

	tm := w.tmux()
	tm.waitFor("the trust dialog", func(s string) bool { return strings.Contains(s, "Yes, I trust this folder") })
	time.Sleep(2 * time.Second) // anything that would run before the answer has had time to
	if ents, _ := os.ReadDir(projects); len(ents) > 0 {
		t.Fatalf("a hook ran before the folder was trusted: %s holds %v", projects, ents)
	}
	if procs := ccmemProcesses(t); len(procs) > 0 {
		t.Fatalf("ccmem runs before the folder was trusted: %v", procs)
	}
	if n := len(w.api.MessageRequests()); n > 0 {
		t.Fatalf("%d requests before the folder was trusted", n)
	}

	// Trusted: the hooks run, and the repository's memory reaches the model.
	tm.run("send-keys", "-t", "cc", "Down")
	time.Sleep(300 * time.Millisecond)
	tm.run("send-keys", "-t", "cc", "Enter")
	tm.waitFor("the prompt", func(s string) bool {
		return strings.Contains(s, "? for shortcuts") || strings.Contains(s, "❯ \n") || strings.Contains(s, "shift+tab to cycle")
	})
	tm.send("hello")
	tm.waitFor("the reply", func(s string) bool { return strings.Contains(s, "● ok") })
	found := false
	for _, block := range w.injected(0) {
		found = found || strings.Contains(block, marker)
	}
	if !found {
		t.Fatal("trusted, the repository's memory did not reach the model")
	}
}

// ccmemProcesses lists the running processes started from this test's
// ccmem binaries (hooks, or the MCP server).
func ccmemProcesses(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to list processes (Linux only): %v", err)
	}
	var out []string
	for _, e := range ents {
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmd), binDir) {
			out = append(out, strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return out
}
