package notes

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ccmem/ccmem/pkg/learn"
	"github.com/ccmem/ccmem/pkg/records"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
	"github.com/ccmem/ccmem/pkg/transcript"
)

// Finding is something triage noted in a session as worth keeping: a
// decision, a fix, a constraint, deferred work, a preference, or a long
// session's worth of work. It waits for the person, who keeps it as a
// project record or dismisses it; nothing reaches a session before that.
type Finding struct {
	// ID names the finding in `ccmem triage keep|dismiss`: stable, short.
	ID        string `json:"id"`
	Category  string `json:"category"`
	Excerpt   string `json:"excerpt,omitempty"`
	SessionID string `json:"session_id"`
	Title     string `json:"session_title"`
	Day       string `json:"day"`
	// Decided is "kept" or "dismissed" once the person decided; "" while
	// it waits.
	Decided string `json:"decided,omitempty"`

	record *session.Checkpoint
}

// FindingID is a finding's name: the first 8 hex digits of a hash of its
// session and category (triage notes a category once a session).
func FindingID(sessionID, category string) string {
	sum := sha256.Sum256([]byte(sessionID + "/" + category))
	return hex.EncodeToString(sum[:4])
}

// decidedKey is the key of the person's decision on a finding.
func decidedKey(key, decision string, f Finding) string {
	return learn.TriageDecided(key, decision, f.Category, f.Excerpt, f.SessionID)
}

// Findings lists what triage noted in a project's sessions (eps, newest
// first, as session.AllEpisodes gives them), newest first, each with the
// person's decision on it. The same words noted again in an older session
// are one finding (the newest), and a finding the repository (root) has a
// record of already, by its title, reads as kept.
func Findings(e store.Env, key, root string, eps []session.SessionFile) []Finding {
	seen := learn.Seen(e)
	recorded := map[string]bool{}
	if root != "" {
		for _, rf := range records.List(root) {
			if r := rf.Record; rf.Err == nil && r != nil && r.RecordStatus == records.StatusActive {
				recorded[r.Category+"\x00"+strings.ToLower(r.Title)] = true
			}
		}
	}
	// Every finding first, then one per words (decidedKey's), the newest,
	// decided when any of them was.
	var all []Finding
	for _, f := range eps {
		c := f.Record
		if c == nil || c.Automated {
			continue
		}
		done := map[string]bool{}
		for _, nt := range c.Digest.Notes {
			cat, excerpt, _ := strings.Cut(nt.Text, ": ")
			if nt.Kind != session.NoteTriage || !isCategory(cat) || done[cat] {
				continue
			}
			done[cat] = true
			all = append(all, Finding{ID: FindingID(c.SessionID, cat), Category: cat, Excerpt: strings.TrimSpace(excerpt),
				SessionID: c.SessionID, Title: cmp.Or(c.Title, c.Goal), Day: day(cmp.Or(nt.At, c.StartedAt)), record: c})
		}
	}
	decided := map[string]string{}
	for _, f := range all {
		switch k := decidedKey(key, "", f); {
		case seen[decidedKey(key, "kept", f)] || recorded[f.Category+"\x00"+strings.ToLower(DraftRecord(f).Title)]:
			decided[k] = "kept"
		case seen[decidedKey(key, "dismissed", f)]:
			decided[k] = "dismissed"
		}
	}
	var out []Finding
	shown := map[string]bool{}
	for _, f := range all {
		if k := decidedKey(key, "", f); !shown[k] {
			shown[k] = true
			f.Decided = decided[k]
			out = append(out, f)
		}
	}
	return out
}

func isCategory(c string) bool {
	return slices.Contains(records.Categories, c)
}

// Keep saves a finding as a project record (title, when not "", names
// it) and records that the person kept it.
func Keep(e store.Env, key string, s *records.Store, f Finding, title string) (records.File, error) {
	r := DraftRecord(f)
	if t := strings.TrimSpace(title); t != "" {
		r.Title, r.ID = textfmt.Line(t), ""
	}
	rf, err := s.Create(r)
	if err != nil {
		return rf, err
	}
	return rf, learn.MarkSeen(e, decidedKey(key, "kept", f))
}

// DismissFindings records that the person does not want these findings
// kept.
func DismissFindings(e store.Env, key string, fs []Finding) error {
	var names []string
	for _, f := range fs {
		names = append(names, decidedKey(key, "dismissed", f))
	}
	return learn.MarkSeen(e, names...)
}

// because splits a sentence at the reason it gives.
var because = regexp.MustCompile(`(?i)\b(because|since|so that|as it|rather than|instead of)\b`)

// DraftRecord is the project record a finding becomes when the person
// keeps it: its words as the session said them, the session's changed
// files as related files, and for a fix the commands that fixed it.
// The person edits it after (`ccmem record update`), as any record.
func DraftRecord(f Finding) *records.Record {
	c := f.record
	title := strings.TrimRight(textfmt.Shorten(textfmt.OneLine(f.Excerpt), 100), ".:;, ")
	if f.Category == "session_summary" || title == "" {
		title = textfmt.Shorten(textfmt.OneLine(f.Title), 100)
	}
	from := fmt.Sprintf("kept from the session %q of %s", textfmt.Shorten(textfmt.OneLine(f.Title), 80), f.Day)
	var files []string
	if c != nil {
		files = c.FilesChanged[:min(10, len(c.FilesChanged))]
	}
	r := &records.Record{Category: f.Category, Title: title, Tags: []string{strings.ReplaceAll(f.Category, "_", "-")},
		RelatedFiles: append([]string(nil), files...), Confidence: 0.7}
	text := cmp.Or(f.Excerpt, f.Title)
	switch f.Category {
	case "decision":
		reason := text
		if loc := because.FindStringIndex(text); loc != nil {
			reason = strings.TrimSpace(text[loc[0]:])
		}
		r.Content = map[string]any{"status": "accepted", "context": from, "decision": text, "rationale": []any{reason}}
	case "runbook":
		var steps, symptoms []any
		if c != nil {
			for _, nt := range c.Digest.Notes {
				switch nt.Kind {
				case session.NoteFailure:
					if len(symptoms) < 3 {
						symptoms = append(symptoms, fmt.Sprintf("`%s`: %s", textfmt.Shorten(nt.Cmd, 80), textfmt.Shorten(nt.Text, 160)))
					}
				case session.NoteFix:
					for _, a := range nt.After {
						steps = append(steps, "run `"+textfmt.Shorten(a, 120)+"`")
					}
					steps = append(steps, "then `"+textfmt.Shorten(transcript.NormalCommand(nt.Cmd), 120)+"` succeeds")
				}
			}
		}
		if len(steps) == 0 {
			steps = []any{text}
		}
		r.Content = map[string]any{"trigger": text, "steps": steps, "environment": from}
		if len(symptoms) > 0 {
			r.Content["symptoms"] = symptoms
		}
	case "constraint":
		r.Content = map[string]any{"kind": "limitation", "rule": text, "severity": "medium", "active": true, "expires": "none"}
	case "tech_debt":
		r.Content = map[string]any{"status": "open", "priority": "medium", "description": text, "reason_deferred": from}
	case "preference":
		r.Content = map[string]any{"topic": textfmt.Shorten(textfmt.OneLine(f.Title), 80), "value": text, "reason": from, "strength": "default"}
	default: // session_summary
		// How it ended, from its friction: one that went badly is partial
		// (abandoned when the person left it so).
		outcome := "success"
		var completed []any
		if c != nil {
			switch {
			case c.Friction.Signals["session_abandoned"] > 0:
				outcome = "abandoned"
			case c.Friction.Class == "BAD" || c.Friction.Class == "FRICTION":
				outcome = "partial"
			}
			if o := strings.TrimSpace(c.Outcome); o != "" {
				completed = append(completed, textfmt.Shorten(textfmt.OneLine(o), 300))
			}
		}
		var changes []any
		for _, f := range files {
			changes = append(changes, f)
		}
		r.Content = map[string]any{"goal": cmp.Or(textfmt.OneLine(f.Title), title), "outcome": outcome}
		if len(completed) > 0 {
			r.Content["completed"] = completed
		}
		if len(changes) > 0 {
			r.Content["key_changes"] = changes
		}
	}
	return r
}
