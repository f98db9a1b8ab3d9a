package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"time"
)

// importAll runs `ccmem import` over the world's transcripts into a new,
// empty store, an hour later (import leaves sessions written to in the
// last 30 minutes to their own hooks), and returns the store.
func (w *world) importAll() string {
	w.t.Helper()
	store := filepath.Join(w.t.TempDir(), "store")
	cmd := exec.Command(filepath.Join(binDir, "ccmem"), "import")
	cmd.Env, cmd.Dir = append(w.env(), "CCMEM_HOME="+store, "CCMEM_NOW="+time.Now().Add(time.Hour).UTC().Format(time.RFC3339)), w.project
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("ccmem import: %v\n%s", err, out)
	}
	return store
}

// captured is what live capture and import must agree on in an episode.
type captured struct {
	Title         string         `json:"title"`
	Goal          string         `json:"goal"`
	Turns         int            `json:"turns"`
	Tools         map[string]int `json:"tools"`
	SubagentTools map[string]int `json:"subagent_tools"`
	ToolErrors    int            `json:"tool_errors"`
	Declined      int            `json:"declined"`
	FilesChanged  []string       `json:"files_changed"`
	Compactions   int            `json:"compactions"`
	Outcome       string         `json:"outcome"`
	Friction      struct {
		Class string `json:"class"`
	} `json:"friction"`
	Digest json.RawMessage `json:"digest"`
}

// sameAsLive checks that the session's episode imported into store says
// what the episode its hooks recorded live says.
func (w *world) sameAsLive(store, sid string) {
	w.t.Helper()
	live := w.episodesOf(sid)
	imported, _ := filepath.Glob(filepath.Join(store, "projects", "*", "episodes", "*-"+sid+".json"))
	if len(live) != 1 || len(imported) != 1 {
		w.t.Fatalf("episodes of %s: live %v, imported %v", sid, live, imported)
	}
	read := func(path string) (c captured) {
		data, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &c)
		}
		if err != nil {
			w.t.Fatalf("%s: %v", path, err)
		}
		return c
	}
	a, b := read(live[0]), read(imported[0])
	if !reflect.DeepEqual(a, b) {
		la, _ := json.MarshalIndent(a, "", "  ")
		lb, _ := json.MarshalIndent(b, "", "  ")
		w.t.Fatalf("the imported episode differs from the live one:\nlive:\n%s\nimported:\n%s", la, lb)
	}
}
