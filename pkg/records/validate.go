package records

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
)

// content field kinds for validation.
type fieldKind int

const (
	kString fieldKind = iota
	kStrings
	kBool
	kAlternatives
	kExamples
)

type fieldSpec struct {
	kind     fieldKind
	required bool
	enum     []string
}

var contentSpecs = map[string]map[string]fieldSpec{
	"session_summary": {
		"goal":      {kind: kString, required: true},
		"outcome":   {kind: kString, required: true, enum: []string{"success", "partial", "blocked", "abandoned"}},
		"completed": {kind: kStrings}, "in_progress": {kind: kStrings}, "blockers": {kind: kStrings},
		"next_actions": {kind: kStrings}, "key_changes": {kind: kStrings},
	},
	"decision": {
		"status":       {kind: kString, required: true, enum: []string{"proposed", "accepted", "deprecated", "superseded"}},
		"context":      {kind: kString},
		"decision":     {kind: kString, required: true},
		"alternatives": {kind: kAlternatives},
		"rationale":    {kind: kStrings, required: true},
		"consequences": {kind: kStrings},
	},
	"runbook": {
		"trigger": {kind: kString, required: true}, "symptoms": {kind: kStrings}, "steps": {kind: kStrings, required: true},
		"verification": {kind: kString}, "root_cause": {kind: kString}, "environment": {kind: kString},
	},
	"constraint": {
		"kind":   {kind: kString, required: true, enum: []string{"limitation", "gap", "policy", "technical"}},
		"rule":   {kind: kString, required: true},
		"impact": {kind: kStrings}, "workarounds": {kind: kStrings},
		"severity": {kind: kString, required: true, enum: []string{"high", "medium", "low"}},
		"active":   {kind: kBool}, "expires": {kind: kString},
	},
	"tech_debt": {
		"status":          {kind: kString, required: true, enum: []string{"open", "in_progress", "resolved", "wont_fix"}},
		"priority":        {kind: kString, required: true, enum: []string{"critical", "high", "medium", "low"}},
		"description":     {kind: kString, required: true},
		"reason_deferred": {kind: kString},
		"impact":          {kind: kStrings}, "suggested_fix": {kind: kStrings}, "acceptance_criteria": {kind: kStrings},
	},
	"preference": {
		"topic":    {kind: kString, required: true},
		"value":    {kind: kString, required: true},
		"reason":   {kind: kString},
		"strength": {kind: kString, required: true, enum: []string{"strong", "default", "soft"}},
		"examples": {kind: kExamples},
	},
}

// ContentFields lists a category's content fields, required ones marked,
// for help text and triage instructions.
func ContentFields(category string) string {
	spec := contentSpecs[category]
	var names []string
	for k, f := range spec {
		n := k
		if f.required {
			n += "*"
		}
		if len(f.enum) > 0 {
			n += " (" + strings.Join(f.enum, "|") + ")"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Validate checks a record against the common rules and its category's.
func (r *Record) Validate() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	spec, ok := contentSpecs[r.Category]
	if !ok {
		return refuse(ErrInvalid, "unknown category %q (one of %s)", r.Category, strings.Join(Categories, ", "))
	}
	if r.SchemaVersion != SchemaVersion {
		bad("schema_version must be %q", SchemaVersion)
	}
	if !store.ValidID(r.ID, 80, true) {
		bad("id %q must be a slug: lowercase letters, digits and dashes, at most 80", r.ID)
	}
	if t := strings.TrimSpace(r.Title); t == "" || len([]rune(t)) > maxTitle || strings.ContainsAny(r.Title, "\n\r") {
		bad("title must be one line of 1 to %d characters", maxTitle)
	}
	for name, v := range map[string]string{"created_at": r.CreatedAt, "updated_at": r.UpdatedAt} {
		if _, err := time.Parse(time.RFC3339, v); err != nil {
			bad("%s must be an ISO 8601 UTC time", name)
		}
	}
	if len(r.Tags) < 1 || len(r.Tags) > maxTags {
		bad("tags must hold 1 to %d tags", maxTags)
	}
	for _, t := range r.Tags {
		if strings.TrimSpace(t) == "" || len(t) > 40 {
			bad("tag %q must be 1 to 40 characters", t)
		}
	}
	if r.Confidence < 0 || r.Confidence > 1 {
		bad("confidence must be between 0 and 1")
	}
	switch r.RecordStatus {
	case StatusActive, StatusRetired, StatusArchived:
	default:
		bad("record_status must be active, retired or archived")
	}
	if len(r.Changes) > maxChanges {
		bad("changes holds at most %d entries", maxChanges)
	}
	for _, c := range r.Changes {
		if c.Date == "" || strings.TrimSpace(c.Summary) == "" {
			bad("every change needs a date and a summary")
			break
		}
	}
	if r.TimesUpdated < 0 {
		bad("times_updated must not be negative")
	}
	if r.Content == nil {
		bad("content is missing")
	}
	for k, f := range spec {
		v, present := r.Content[k]
		if !present {
			if f.required {
				bad("content.%s is required for a %s", k, r.Category)
			}
			continue
		}
		if msg := checkField(v, f); msg != "" {
			bad("content.%s %s", k, msg)
		}
	}
	for k := range r.Content {
		if _, ok := spec[k]; !ok {
			bad("content.%s is not a %s field (fields: %s)", k, r.Category, ContentFields(r.Category))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return refuse(ErrInvalid, "invalid %s record %q: %s", r.Category, r.ID, strings.Join(problems, "; "))
	}
	return nil
}

func checkField(v any, f fieldSpec) string {
	strs := func(v any) bool {
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, x := range l {
			if _, ok := x.(string); !ok {
				return false
			}
		}
		return true
	}
	switch f.kind {
	case kString:
		s, ok := v.(string)
		if !ok {
			return "must be a string"
		}
		if f.required && strings.TrimSpace(s) == "" {
			return "must not be empty"
		}
		if len(f.enum) > 0 && !slices.Contains(f.enum, s) {
			return "must be one of " + strings.Join(f.enum, ", ")
		}
	case kStrings:
		if !strs(v) {
			return "must be a list of strings"
		}
		if f.required && len(v.([]any)) == 0 {
			return "must not be empty"
		}
	case kBool:
		if _, ok := v.(bool); !ok {
			return "must be true or false"
		}
	case kAlternatives:
		l, ok := v.([]any)
		if !ok {
			return "must be a list of {option, rejected_reason}"
		}
		for _, x := range l {
			m, ok := x.(map[string]any)
			if !ok {
				return "must be a list of {option, rejected_reason}"
			}
			if _, ok := m["option"].(string); !ok {
				return "entries need an option"
			}
		}
	case kExamples:
		m, ok := v.(map[string]any)
		if !ok {
			return "must be {prefer: [...], avoid: [...]}"
		}
		for k, x := range m {
			if (k != "prefer" && k != "avoid") || !strs(x) {
				return "must be {prefer: [...], avoid: [...]}"
			}
		}
	}
	return ""
}
