package main

import (
	"bytes"
	"encoding/json"
	"path"
	"regexp"
	"strings"
)

// This file reads the raw files as a person reading them would count:
// independently of ccmem's own readers, so that the two can disagree.

// patchFile is a file an apply_patch edit names.
var patchFile = regexp.MustCompile(`\*\*\* (?:Add|Update|Delete) File: ([^\n\\"]+)`)

// read reads one session file (or a file naming a session's folder).
func (l *Laid) read(rel string, data []byte) {
	switch l.Source.Agent {
	case "codex":
		l.readCodex(data)
	case "gemini":
		l.readGemini(rel, data)
	}
}

// readCodex reads a rollout: its session_meta (id, folder), the user
// messages the person sent (event_msg user_message), the files its
// patches name.
func (l *Laid) readCodex(data []byte) {
	var s *Expected
	for _, line := range bytes.Split(data, []byte("\n")) {
		var o struct {
			Type    string `json:"type"`
			Payload struct {
				ID        string          `json:"id"`
				Cwd       string          `json:"cwd"`
				Type      string          `json:"type"`
				Name      string          `json:"name"`
				CallID    string          `json:"call_id"`
				Input     string          `json:"input"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &o) != nil {
			continue
		}
		p := o.Payload
		switch {
		case o.Type == "session_meta" && p.ID != "" && s == nil:
			s = l.session(p.ID)
			s.Cwd = p.Cwd
		case s == nil:
		case o.Type == "event_msg" && p.Type == "user_message":
			s.Messages++
		case o.Type == "response_item" && (p.Type == "custom_tool_call" || p.Type == "function_call"):
			// A resumed session's rollout may hold a copy of the earlier
			// one's calls (same ids): an edit is the session's whose
			// rollout (read in time order) holds it first.
			if l.calls == nil {
				l.calls = map[string]string{}
			}
			if by, ok := l.calls[p.CallID]; ok && p.CallID != "" && by != s.ID {
				continue
			}
			l.calls[p.CallID] = s.ID
			text := p.Input
			if text == "" {
				var args string
				if json.Unmarshal(p.Arguments, &args) == nil {
					text = args
				} else {
					text = string(p.Arguments)
				}
			}
			for _, m := range patchFile.FindAllStringSubmatch(text, -1) {
				s.Edited[strings.TrimSpace(m[1])] = true
			}
		}
	}
}

// geminiEdits are Gemini CLI's tools that write a file, with the argument
// that names it.
var geminiEdits = map[string]bool{"write_file": true, "replace": true, "edit": true}

// readGemini reads a recording (a JSONL of records, or the older single
// JSON document) and the .project_root beside its chats folder.
func (l *Laid) readGemini(rel string, data []byte) {
	parts := strings.Split(rel, "/")
	if path.Base(rel) == ".project_root" && parts[0] == "tmp" {
		// Read after the chats: held by slug until then.
		if l.roots == nil {
			l.roots = map[string]string{}
		}
		l.roots[parts[1]] = strings.TrimSpace(string(data))
		for _, s := range l.Sessions {
			if s.slug == parts[1] {
				s.Cwd = l.roots[parts[1]]
			}
		}
		return
	}
	if len(parts) != 4 || parts[2] != "chats" {
		return
	}
	type message struct {
		Type      string `json:"type"`
		ToolCalls []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Args   struct {
				FilePath string `json:"file_path"`
			} `json:"args"`
		} `json:"toolCalls"`
	}
	var doc struct {
		SessionID string    `json:"sessionId"`
		Messages  []message `json:"messages"`
	}
	var msgs []message
	if json.Unmarshal(data, &doc) == nil && doc.SessionID != "" {
		msgs = doc.Messages
	} else {
		doc.SessionID = ""
		for _, line := range bytes.Split(data, []byte("\n")) {
			var m struct {
				message
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			if doc.SessionID == "" && m.SessionID != "" {
				doc.SessionID = m.SessionID
			}
			msgs = append(msgs, m.message)
		}
	}
	if doc.SessionID == "" {
		return
	}
	s := l.session(doc.SessionID)
	s.Files = append(s.Files, strings.TrimSuffix(strings.TrimSuffix(parts[3], ".jsonl"), ".json"))
	s.slug = parts[1]
	s.Cwd = l.roots[parts[1]]
	for _, m := range msgs {
		if m.Type == "user" {
			s.Messages++
		}
		for _, c := range m.ToolCalls {
			// A call that failed (a relative path, a string not found)
			// changed nothing.
			if geminiEdits[c.Name] && c.Args.FilePath != "" && (c.Status == "" || c.Status == "success") {
				s.Edited[c.Args.FilePath] = true
			}
		}
	}
}

// readLog reads the client's own log of what the person typed: Codex's
// history.jsonl ({"session_id","text"} a line), Gemini CLI's logs.json
// ([{"sessionId","type":"user","message"}]). Only sessions whose file is
// here count.
func (l *Laid) readLog(data []byte) {
	l.Logged = true
	count := func(id, text string) {
		s := l.Sessions[id]
		if s == nil {
			return
		}
		s.Typed++
		// Gemini CLI logs its own commands (/quit, /chat) with the
		// prompts; Codex's history holds those it sent the model (/init
		// and /review expand to a prompt, a turn).
		if l.Source.Agent == "gemini" && strings.HasPrefix(strings.TrimSpace(text), "/") {
			s.Slash++
		}
	}
	switch l.Source.Agent {
	case "codex":
		for _, line := range bytes.Split(data, []byte("\n")) {
			var o struct {
				SessionID string `json:"session_id"`
				Text      string `json:"text"`
			}
			if json.Unmarshal(line, &o) == nil {
				count(o.SessionID, o.Text)
			}
		}
	case "gemini":
		var entries []struct {
			SessionID string `json:"sessionId"`
			Type      string `json:"type"`
			Message   string `json:"message"`
		}
		if json.Unmarshal(data, &entries) == nil {
			for _, e := range entries {
				if e.Type == "user" {
					count(e.SessionID, e.Message)
				}
			}
		}
	}
}
