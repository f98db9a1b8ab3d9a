package records

import (
	"slices"

	"github.com/ccmem/ccmem/pkg/redact"
)

// redactRecord replaces the secrets in every string a record holds before
// it is written (records are committed with the repository), and returns
// how many it replaced.
func redactRecord(r *Record) int {
	var c redact.Counter
	r.Tags, r.RelatedFiles, r.Changes = slices.Clone(r.Tags), slices.Clone(r.RelatedFiles), slices.Clone(r.Changes)
	r.Title = c.String(r.Title)
	for i := range r.Tags {
		r.Tags[i] = c.String(r.Tags[i])
	}
	for i := range r.RelatedFiles {
		r.RelatedFiles[i] = c.String(r.RelatedFiles[i])
	}
	for i := range r.Changes {
		ch := &r.Changes[i]
		ch.Summary = c.String(ch.Summary)
		ch.OldValue = redactValue(&c, ch.OldValue)
		ch.NewValue = redactValue(&c, ch.NewValue)
	}
	r.RetiredReason = c.String(r.RetiredReason)
	r.ArchivedReason = c.String(r.ArchivedReason)
	if r.Content != nil {
		r.Content = redactValue(&c, r.Content).(map[string]any)
	}
	return c.N
}

// redactValue redacts the strings of a decoded JSON value, in copies.
func redactValue(c *redact.Counter, v any) any {
	switch t := v.(type) {
	case string:
		return c.String(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = redactValue(c, x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = redactValue(c, x)
		}
		return out
	}
	return v
}
