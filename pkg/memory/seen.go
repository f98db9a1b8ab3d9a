package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// Visibility says whether a remembered fact reaches a session: what the
// next session start in cwd shows of the file it went into.
type Visibility struct {
	// Shown is true when the next session start's block holds the fact.
	Shown bool `json:"shown"`
	// Where says which sessions see it ("every project's sessions", "this
	// repository's sessions").
	Where string `json:"where"`
	// Why, when it is not shown, says why, with the fix.
	Why string `json:"why,omitempty"`
}

// Seen tells whether fact, just remembered into the file at path (a
// MEMORY.md), reaches the next session start in cwd: a MEMORY.md is shown
// up to its section's cap and share of the block, and a fact past that is
// kept but never seen. global says the file is the user's, for every
// project.
func Seen(ctx context.Context, e store.Env, cwd, path, fact string, global bool) Visibility {
	v := Visibility{Where: "this repository's sessions"}
	if global {
		v.Where = "every project's sessions"
	}
	inj := Compose(ctx, e, StartRequest{Cwd: cwd, Source: "startup"})
	if inj.Disabled {
		v.Why = "ccmem is off here"
		return v
	}
	head := strings.TrimSpace(textfmt.Line(fact))
	if len(head) > 60 {
		head = textfmt.Prefix(head, 60)
	}
	v.Shown = strings.Contains(inj.Block.Text, head)
	if v.Shown {
		return v
	}
	for _, s := range inj.Block.Sections {
		if s.Path == path && s.Shown < s.Total {
			v.Why = fmt.Sprintf("a session start shows the first %d of its %d lines (the rest does not fit its share of the block)", s.Shown, s.Total)
			if s.Cut == "cap" {
				v.Why = fmt.Sprintf("a session start shows the first %d of its %d lines (caps.index)", s.Shown, s.Total)
			}
			return v
		}
	}
	v.Why = "a session start here does not show it"
	return v
}
