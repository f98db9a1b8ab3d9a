package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ccmem/ccmem/pkg/proc"
	"github.com/ccmem/ccmem/pkg/store"
)

// A session that began before ccmem was installed has no hook recording
// it. An import takes it as it is, and when it was written to a moment
// ago (it may still be going) the import follows it: its transcript is
// listed in the store's import.json, and a session start, at most every
// FollowEvery, runs `ccmem import --follow` in the background, which
// brings the followed sessions' episodes up to date and stops following
// those that have gone quiet. Nobody needs to remember to import again,
// and no hook waits for it.

// FollowEvery is how often a session start runs the followed sessions'
// catch-up.
const FollowEvery = 10 * time.Minute

// followFile is the store's list of followed transcripts (this machine's
// own, never synced).
func followFile(e store.Env) string { return filepath.Join(e.Store, "import.json") }

type followState struct {
	Follow []string `json:"follow"` // transcripts, by path
}

// Followed lists the transcripts an import follows.
func Followed(e store.Env) []string {
	var st followState
	if data, err := store.ReadSmallFile(followFile(e), 1<<20); err == nil {
		_ = json.Unmarshal(data, &st)
	}
	return st.Follow
}

// WriteFollowed saves the list (removing the file when it is empty).
func WriteFollowed(e store.Env, paths []string) error {
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if len(paths) == 0 {
		if err := os.Remove(followFile(e)); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	data, err := json.MarshalIndent(followState{Follow: paths}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(e.Store, 0o700); err != nil {
		return err
	}
	return store.WriteFileAtomic(followFile(e), append(data, '\n'))
}

// FollowDue tells a session start whether to run the followed sessions'
// catch-up now: some are followed, and the list was not touched for
// FollowEvery. It is one stat when nothing is followed.
func FollowDue(e store.Env) bool {
	fi, err := os.Lstat(followFile(e))
	return err == nil && fi.Mode().IsRegular() && e.Time().Sub(fi.ModTime()) >= FollowEvery
}

// StartFollow runs `ccmem follow` (ccmem at path) in the background, and
// marks the list touched so that the next session starts do not run
// another meanwhile.
func StartFollow(e store.Env, ccmem string) error {
	now := e.Time()
	if err := os.Chtimes(followFile(e), now, now); err != nil {
		return err
	}
	_, err := proc.StartDetached(ccmem, []string{"import", "--follow"}, e.Store)
	return err
}
