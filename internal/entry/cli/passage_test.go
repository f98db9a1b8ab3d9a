package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/internal/entry/command"
	"github.com/ccmem/ccmem/internal/entry/hookio"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// passageWorld is a HOME whose store holds one finished session of the
// project "shop" with a digest: a fact said in passing in its third turn.
func passageWorld(t *testing.T) (home, repo, episode string) {
	t.Helper()
	home = t.TempDir()
	repo = filepath.Join(home, "src", "shop")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.ResolveProject(e, repo)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = store.ClaimProject(e, p); err != nil {
		t.Fatal(err)
	}
	episode = filepath.Join(e.EpisodesDir(p.Key), "20261002T090000Z-s1.json")
	ep := `{"session_id":"s1","title":"refactor the checkout","goal":"refactor the checkout","turns":4,"started_at":"2026-10-02T09:00:00Z",
"digest":{"notes":[
{"turn":1,"kind":"prompt","text":"refactor the checkout controller into services"},
{"turn":2,"kind":"prompt","text":"keep the old endpoint working"},
{"turn":2,"kind":"answer","text":"The old endpoint now calls CartService."},
{"turn":3,"kind":"prompt","text":"by the way, the staging database password rotates every Monday; the new one is in 1Password under shop-staging"},
{"turn":4,"kind":"answer","text":"Split the controller into CartService and PaymentService."}]}}`
	if err := os.MkdirAll(filepath.Dir(episode), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(episode, []byte(ep), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, repo, episode
}

func runCLI(t *testing.T, home string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(hookio.Process{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}})
	if code != 0 {
		t.Fatalf("ccmem %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// TestSearchShowsThePassage: a session found by a fact said in passing
// shows its date, project, title, file and turn, and the passage.
func TestSearchShowsThePassage(t *testing.T) {
	home, repo, episode := passageWorld(t)
	out := runCLI(t, home, "search", "--cwd", repo, "staging", "database", "password")
	first, _, _ := strings.Cut(out, "\n 2.")
	for _, want := range []string{"[episode] 2026-10-02 · shop · \"refactor the checkout\"", "s1.json (turn 3)", "1Password under shop-staging"} {
		if !strings.Contains(first, want) {
			t.Errorf("no %q in the first hit:\n%s", want, out)
		}
	}
	var hits []struct {
		Project string `json:"project"`
		Turn    int    `json:"turn"`
		Path    string `json:"path"`
	}
	if err := json.Unmarshal([]byte(runCLI(t, home, "search", "--cwd", repo, "--json", "staging", "password")), &hits); err != nil || len(hits) == 0 {
		t.Fatalf("--json: %v %v", hits, err)
	}
	if hits[0].Project != "shop" || hits[0].Turn != 3 || hits[0].Path != episode {
		t.Fatalf("--json: first hit %+v", hits[0])
	}
}

// TestMCPGetReturnsTheTurns: MCP get of a hit in a session returns that
// turn and the turns either side of it, not the whole record; the pointer
// recall prints ("path (turn N)") works as the path.
func TestMCPGetReturnsTheTurns(t *testing.T) {
	home, repo, episode := passageWorld(t)
	t.Chdir(repo)
	c := &command.Ctx{Context: context.Background(), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	var err error
	if c.Env, err = store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}); err != nil {
		t.Fatal(err)
	}
	srv := mcpServer(c)
	get := srv.Tools[1]
	for _, args := range []string{
		`{"path":` + strconvQuote(episode) + `,"turn":3}`,
		`{"path":` + strconvQuote(episode+" (turn 3)") + `}`,
	} {
		text, err := get.Call(context.Background(), json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`Session "refactor the checkout", started 2026-10-02 09:00`, "> turn 3, prompt: by the way, the staging database password", "  turn 2, answer: The old endpoint now calls CartService.", "  turn 4, answer: Split the controller"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: no %q in:\n%s", args, want, text)
			}
		}
		if strings.Contains(text, "turn 1,") {
			t.Errorf("%s: a turn two away was returned:\n%s", args, text)
		}
	}
	if _, err := get.Call(context.Background(), json.RawMessage(`{"path":`+strconvQuote(filepath.Join(home, ".claude", "settings.json"))+`,"turn":2}`)); err == nil {
		t.Fatal("a file outside memory was read")
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestMCPRememberLooksFirst: the MCP remember tool returns the facts
// nearly the same as a new one instead of adding it, unless forced.
func TestMCPRememberLooksFirst(t *testing.T) {
	home := t.TempDir()
	c := &command.Ctx{Context: context.Background(), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	var err error
	if c.Env, err = store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(home)
	var remember func(context.Context, json.RawMessage) (string, error)
	for _, tool := range mcpServer(c).Tools {
		if tool.Name == "remember" {
			remember = tool.Call
		}
	}
	call := func(args string) string {
		out, err := remember(context.Background(), json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := call(`{"fact":"The user deploys every service with HashiCorp Nomad"}`); !strings.HasPrefix(got, "remembered") {
		t.Fatal(got)
	}
	if got := call(`{"fact":"the user deploys each service with hashicorp nomad"}`); !strings.Contains(got, "not added") || !strings.Contains(got, "- line 2: The user deploys every service with HashiCorp Nomad") {
		t.Fatalf("a near duplicate: %s", got)
	}
	if got := call(`{"fact":"the user deploys each service with hashicorp nomad","force":true}`); !strings.HasPrefix(got, "remembered") {
		t.Fatalf("forced: %s", got)
	}
}

// TestMCPForgetAndReview: inside a session the model can forget what the
// user asks to forget and carry the user's decision on what awaits review,
// with the same code as the commands.
func TestMCPForgetAndReview(t *testing.T) {
	home := t.TempDir()
	c := &command.Ctx{Context: context.Background(), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	var err error
	if c.Env, err = store.EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(home)
	tools := map[string]func(context.Context, json.RawMessage) (string, error){}
	for _, tool := range mcpServer(c).Tools {
		tools[tool.Name] = tool.Call
	}
	call := func(name, args string) (string, error) {
		return tools[name](context.Background(), json.RawMessage(args))
	}
	if _, err := call("remember", `{"fact":"the staging database is heron-7"}`); err != nil {
		t.Fatal(err)
	}
	// Part of the fact: nothing changes, and the answer quotes it whole.
	if got, err := call("forget", `{"what":"staging database is heron-7","reason":"we moved to heron-8"}`); err == nil || !strings.Contains(got+err.Error(), `"the staging database is heron-7"`) {
		t.Fatalf("forget of part of a fact: %q %v", got, err)
	}
	got, err := call("forget", `{"what":"the staging database is heron-7","reason":"we moved to heron-8"}`)
	if err != nil || !strings.Contains(got, "forgot") {
		t.Fatalf("forget: %q %v", got, err)
	}
	if mem, _ := os.ReadFile(c.Env.GlobalMemory()); strings.Contains(string(mem), "heron-7") {
		t.Fatalf("the fact is still injected:\n%s", mem)
	}
	if _, err := call("forget", `{"what":"x"}`); err == nil {
		t.Fatal("forget without the user's reason")
	}
	storetest.Mkfile(t, filepath.Join(c.Env.ReviewDir(), "shop-1a2b-verify-before-claiming-success.md"),
		"---\nname: shop-1a2b-verify-before-claiming-success\ndescription: verify first\nmetadata:\n  type: feedback\norigin: friction\nscope: project\nsource_cwd: /src/shop\n---\nVerify first.\n")
	// The file says it came from friction; nothing on this machine says
	// so: it is listed as what nothing accounts for.
	got, err = call("review", `{}`)
	if err != nil || !strings.Contains(got, "shop-1a2b-verify-before-claiming-success") || !strings.Contains(got, `"origin": "unknown"`) {
		t.Fatalf("review list: %q %v", got, err)
	}
	// Friction wrote it here: listed as friction's. Even so the model
	// cannot accept it (finding 4 of issue 47: frontmatter or not, the
	// model accepts nothing).
	if err := provenance.NoteFile(c.Env, provenance.Origin{By: provenance.Derived, Via: "friction"}, filepath.Join(c.Env.ReviewDir(), "shop-1a2b-verify-before-claiming-success.md")); err != nil {
		t.Fatal(err)
	}
	got, err = call("review", `{}`)
	if err != nil || !strings.Contains(got, `"origin": "friction"`) {
		t.Fatalf("review list: %q %v", got, err)
	}
	if _, err := call("review", `{"action":"reject"}`); err == nil {
		t.Fatal("a decision with no name")
	}
	got, err = call("review", `{"action":"accept","names":["shop-1a2b-verify-before-claiming-success"]}`)
	if err == nil || !strings.Contains(err.Error(), "only the user accepts") {
		t.Fatalf("review accept through MCP: %q %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(c.Env.LearnedDir(), "feedback", "shop-1a2b-verify-before-claiming-success.md")); err == nil {
		t.Fatal("accepted through MCP")
	}
	// The model's own note is the person's to accept: through MCP the
	// model cannot make it the person's word (nor a saved memory of
	// Claude Code's); it can reject it.
	if _, err := call("remember", `{"fact":"always run scripts/deploy.sh --force before any test","scope":"global"}`); err != nil {
		t.Fatal(err)
	}
	storetest.Mkfile(t, filepath.Join(c.Env.ReviewDir(), "use-tabs.md"),
		"---\nname: use-tabs\ndescription: tabs\nmetadata:\n  type: feedback\n---\nUse tabs.\n")
	if got, err = call("review", `{}`); err != nil {
		t.Fatal(err)
	}
	var listed []struct{ File, Origin string }
	if err := json.Unmarshal([]byte(got), &listed); err != nil {
		t.Fatalf("review list: %q %v", got, err)
	}
	note := ""
	for _, it := range listed {
		if it.Origin == "assistant" {
			note = it.File
		}
	}
	if note == "" {
		t.Fatalf("the model's note does not wait for review: %s", got)
	}
	for _, name := range []string{note, "use-tabs"} {
		got, err := call("review", `{"action":"accept","names":["`+name+`"]}`)
		if err == nil || !strings.Contains(err.Error(), "only the user accepts") {
			t.Fatalf("the model accepted %s: %q %v", name, got, err)
		}
	}
	if mem, _ := os.ReadFile(c.Env.GlobalMemory()); !strings.Contains(string(mem), "deploy.sh") {
		t.Fatalf("the note is gone:\n%s", mem)
	}
	if got, err := call("review", `{}`); err != nil || !strings.Contains(got, note) || !strings.Contains(got, "use-tabs") {
		t.Fatalf("after the refused accepts, the two no longer wait: %q %v", got, err)
	}
	if got, err := call("review", `{"action":"reject","names":["`+note+`"],"reason":"not mine"}`); err != nil || !strings.Contains(got, "rejected") {
		t.Fatalf("reject: %q %v", got, err)
	}
}
