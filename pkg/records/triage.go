package records

import (
	"fmt"
	"strings"

	"github.com/ccmem/ccmem/pkg/config"
	"github.com/ccmem/ccmem/pkg/textfmt"
	"github.com/ccmem/ccmem/pkg/triage"
)

// triageExamples show the model the content of each category.
var triageExamples = map[string]string{
	"decision":        `{"status": "accepted", "context": "…", "decision": "…", "alternatives": [{"option": "…", "rejected_reason": "…"}], "rationale": ["…"], "consequences": ["…"]}`,
	"runbook":         `{"trigger": "…", "symptoms": ["…"], "steps": ["…"], "verification": "…", "root_cause": "…", "environment": "…"}`,
	"constraint":      `{"kind": "limitation|gap|policy|technical", "rule": "…", "impact": ["…"], "workarounds": ["…"], "severity": "high|medium|low", "active": true, "expires": "none"}`,
	"tech_debt":       `{"status": "open", "priority": "medium", "description": "…", "reason_deferred": "…", "impact": ["…"], "suggested_fix": ["…"], "acceptance_criteria": ["…"]}`,
	"preference":      `{"topic": "…", "value": "…", "reason": "…", "strength": "strong|default|soft", "examples": {"prefer": ["…"], "avoid": ["…"]}}`,
	"session_summary": `{"goal": "…", "outcome": "success|partial|blocked|abandoned", "completed": ["…"], "in_progress": ["…"], "blockers": ["…"], "next_actions": ["…"], "key_changes": ["…"]}`,
}

var triageWhat = map[string]string{
	"decision":        "a decision with its reasons",
	"runbook":         "how an error was diagnosed and fixed",
	"constraint":      "a constraint or limitation of this project",
	"tech_debt":       "work deferred on purpose",
	"preference":      "a stated preference or convention",
	"session_summary": "a substantial stretch of work",
}

// TriageNote is what the next prompt carries to the model after triage
// fired: what to save and the exact command, per fired category. It never
// replaces the answer the user is waiting for. ccmem is the path of the
// ccmem command to run.
func TriageNote(hits []triage.Hit, ccmem string, policy config.Records) string {
	return triageNote("ccmem memory triage, about the conversation before this prompt: it holds something the project should not forget. Answer the user's prompt first; then, in the same turn, save it as a project record (it is committed with the repository, so write it for the team; no secrets).\n", hits, ccmem, policy)
}

// LeftTriageNote is what a session start offers, once, of what triage
// found after the last turn of an earlier session that no prompt
// followed (title names it).
func LeftTriageNote(title string, hits []triage.Hit, ccmem string, policy config.Records) string {
	return triageNote(fmt.Sprintf("ccmem memory triage, about the end of an earlier session in this project (%q), which no prompt followed: it held something the project should not forget. After the user's first request is answered, save it as a project record (it is committed with the repository, so write it for the team; no secrets).\n", title), hits, ccmem, policy)
}

// triageNote is a triage note; a category the project's config turned off
// is left out ("" when none is left), one with a description of its own
// is told by it.
func triageNote(lead string, hits []triage.Hit, ccmem string, policy config.Records) string {
	var b strings.Builder
	b.WriteString(lead)
	n := 0
	for _, h := range hits {
		if !policy.On(h.Category) {
			continue
		}
		n++
		what := triageWhat[h.Category]
		if d := strings.TrimSpace(policy.Categories[h.Category].Description); d != "" {
			what = "something for " + h.Category + " records (" + textfmt.Line(d) + ")"
		}
		fmt.Fprintf(&b, "\n%s — the conversation holds %s", h.Category, what)
		if h.Excerpt != "" {
			fmt.Fprintf(&b, ` ("%s")`, h.Excerpt)
		}
		fmt.Fprintf(&b, ". Run:\n%s record create --category %s <<'JSON'\n{\"title\": \"<one line>\", \"tags\": [\"<tag>\"], \"content\": %s}\nJSON\n",
			ccmem, h.Category, triageExamples[h.Category])
	}
	if n == 0 {
		return ""
	}
	fmt.Fprintf(&b, "\nIf such a record exists already (`%s record list`), update it instead (`%s record show CATEGORY/ID` gives the hash for `%s record update`). If nothing here is worth keeping, skip it without a word.", ccmem, ccmem, ccmem)
	return b.String()
}
