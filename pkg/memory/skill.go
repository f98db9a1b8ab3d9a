package memory

import (
	"fmt"
	"strings"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/inject"
	"github.com/ccmem/ccmem/pkg/profiles"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/textfmt"
)

// SkillProfile is what the project's profile of a skill says, given when
// the skill runs (its Skill call, or its slash command), once a session;
// "" when there is none or it was given already.
func SkillProfile(e store.Env, p *store.Project, sessionID, skill string) (string, error) {
	if p == nil {
		return "", nil
	}
	lines, path := profiles.Given(e, p.Key, skill)
	if len(lines) == 0 {
		return "", nil // no profile: nothing to say
	}
	st, err := session.ReadPrompted(e, *p, sessionID)
	if err != nil || st.WasGuarded(path) {
		return "", err
	}
	text := fmt.Sprintf("ccmem — the user's notes for the %q skill in this project (from memory: %s):\n%s",
		textfmt.Line(textfmt.Shorten(skill, 80)), e.Tilde(path), inject.SafeLines(strings.Join(lines, "\n")))
	err = session.CommitGuard(e, *p, sessionID, []string{path})
	return claudecode.Neutralize(text), err
}
