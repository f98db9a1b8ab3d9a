package session

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// automatedMark follows the time in an automated run's INDEX.md line.
const automatedMark = "automated"

// IsAutomatedLine tells whether an INDEX.md line is an automated run's.
func IsAutomatedLine(line string) bool {
	_, rest, ok := strings.Cut(line, " · ")
	return ok && strings.HasPrefix(rest, automatedMark+" · ")
}

// Menu is the episode menu a session start shows: a person's sessions,
// newest first, and a count of the automated runs kept out of it.
type Menu struct {
	// Lines are the newest lines of a person's sessions, at most the cap
	// asked for; LineNos their line numbers in INDEX.md.
	Lines   []string
	LineNos []int
	// Total counts a person's sessions in INDEX.md.
	Total int
	// Automated counts the automated runs, and Since is the date of the
	// oldest ("2026-11-02").
	Automated int
	Since     string
}

// ReadMenu reads INDEX.md (r) into the menu: up to max lines of a person's
// sessions, and the automated runs counted apart. It reads every line
// (INDEX.md holds at most max_episodes lines), keeping only what it shows.
func ReadMenu(r io.Reader, max int) (Menu, error) {
	var m Menu
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 16<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		if IsAutomatedLine(line) {
			m.Automated++
			if d, _, ok := strings.Cut(strings.TrimPrefix(line, "- "), " "); ok && (m.Since == "" || d < m.Since) {
				m.Since = d
			}
			continue
		}
		m.Total++
		if len(m.Lines) < max {
			m.Lines = append(m.Lines, line)
			m.LineNos = append(m.LineNos, n)
		}
	}
	return m, sc.Err()
}

// AutomatedLine is the one menu line that stands for the automated runs.
func (m Menu) AutomatedLine(ccmem string) string {
	runs := "automated runs"
	if m.Automated == 1 {
		runs = "automated run"
	}
	return strconv.Itoa(m.Automated) + " " + runs + " since " + m.Since + " — `" + ccmem + " episodes --automated`"
}

// agentNames name the agents whose sessions a menu line marks.
var agentNames = map[string]string{AgentCodex: "Codex", AgentGemini: "Gemini CLI", AgentOpencode: "opencode"}

// AgentName is how a session's agent is named to a person: "Claude Code"
// for "", "Codex" for AgentCodex.
func AgentName(agent string) string {
	if agent == "" {
		return "Claude Code"
	}
	if n := agentNames[agent]; n != "" {
		return n
	}
	return agent
}

// agentMark is the menu's mark of another agent's session: "in Codex".
func agentMark(agent string) string {
	name := agentNames[agent]
	if name == "" {
		name = agent
	}
	return "in " + name
}

// IndexEntry is what one INDEX.md line says of a session (see IndexLine).
type IndexEntry struct {
	Started   string // "2026-11-21 14:03" (UTC), or "unknown time"
	Automated bool
	// Agent is another agent's session ("codex"); "" for Claude Code's.
	Agent   string
	Turns   int
	Class   string
	Title   string
	Files   string
	Episode string // the episode's file name, without "episodes/"
}

// menuLink is what ends a menu line: the episode it points at.
const menuLink = " — episodes/"

// SplitMenuLine splits an INDEX.md line written by IndexLine into what a
// person reads and the episode's file name ("" for a line that points at
// none). The one place besides ParseIndexLine that reads the format.
func SplitMenuLine(line string) (text, episode string) {
	if i := strings.LastIndex(line, menuLink); i >= 0 {
		return line[:i], strings.TrimSpace(line[i+len(menuLink):])
	}
	return line, ""
}

// ParseIndexLine reads an INDEX.md line written by IndexLine; ok is false
// for a line in any other shape.
func ParseIndexLine(line string) (IndexEntry, bool) {
	var ie IndexEntry
	body, name, ok := strings.Cut(strings.TrimPrefix(line, "- "), menuLink)
	if !ok || !strings.HasPrefix(line, "- ") || name == "" || strings.ContainsAny(name, `/\`) {
		return ie, false
	}
	ie.Episode = name
	parts := strings.Split(body, " · ")
	if len(parts) < 4 {
		return ie, false
	}
	ie.Started = parts[0]
	parts = parts[1:]
	if parts[0] == automatedMark {
		ie.Automated = true
		parts = parts[1:]
	}
	for agent := range agentNames {
		if len(parts) > 0 && parts[0] == agentMark(agent) {
			ie.Agent = agent
			parts = parts[1:]
		}
	}
	if len(parts) < 3 {
		return ie, false
	}
	n, _, _ := strings.Cut(parts[0], " ")
	ie.Turns, _ = strconv.Atoi(n)
	ie.Class = parts[1]
	// The title is quoted and has no '"' of its own; the files, if any,
	// come after it.
	rest := strings.Join(parts[2:], " · ")
	if strings.HasPrefix(rest, `"`) {
		if end := strings.Index(rest[1:], `"`); end >= 0 {
			ie.Title = rest[1 : end+1]
			ie.Files = strings.TrimPrefix(rest[end+2:], " · ")
			return ie, true
		}
	}
	ie.Title = rest
	return ie, true
}

// NoteLabel is how a digest note's kind is named to a person.
func NoteLabel(kind string) string {
	switch kind {
	case NotePrompt:
		return "asked"
	case NoteAnswer:
		return "concluded"
	case NoteOpening:
		return "opened with"
	case NoteFailure:
		return "failed"
	case NoteFix:
		return "fixed"
	case NoteTriage:
		return "triage"
	}
	return kind
}
