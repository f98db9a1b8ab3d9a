package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccmem/ccmem/pkg/checkpoint"
	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/lessons/lessonstest"
	"github.com/ccmem/ccmem/pkg/notes"
	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/session"
	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// fixture is a store with one project that has a session, a learned
// entry, a pending review item and global memory; and a server for it.
type fixture struct {
	env    store.Env
	key    string
	srv    *Server
	ts     *httptest.Server
	host   string
	cookie *http.Cookie
	// prefix is the session's secret path ("/s/<id>"), which do puts
	// before every path but one that starts with "!" (sent as it is).
	prefix  string
	pending string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	e := storetest.Env(t)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e.Now = func() time.Time { return now }
	repo, p := storetest.Repo(t, e, "shop")
	if _, err := store.ClaimProject(e, p); err != nil {
		t.Fatal(err)
	}
	storetest.Mkfile(t, e.GlobalMemory(), "- answer in English, briefly\n")
	storetest.Mkfile(t, store.RepoMemory(repo), "- the queue is Kafka since November\n")
	storetest.Mkfile(t, filepath.Join(e.LearnedDir(), "user", "tabs.md"), "---\nname: tabs\ndescription: the user indents with tabs\ntype: user\nsource_cwd: "+repo+"\n---\nTabs, never spaces.\n")
	storetest.Mkfile(t, filepath.Join(e.ReviewDir(), "run-tests.md"), "---\nname: run-tests\ndescription: run the tests before saying it works\ntype: feedback\n---\nRun `go test ./...` first.\n")
	c := &session.Checkpoint{Record: checkpoint.Record{SessionID: "5e55a0b1-0000-4000-8000-000000000001", StartedAt: "2026-11-20T10:00:00Z", Turns: 7, Title: "move the queue to Kafka",
		FilesChanged: []string{"queue.go"}, Friction: friction.Result{Class: "ROUGH", Score: 3}}}
	c.Digest.Notes = []checkpoint.Note{{Turn: 3, Kind: session.NotePrompt, Text: "the retry limit is 7, not 5"}}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	name := session.EpisodeName(c, now)
	storetest.Mkfile(t, filepath.Join(e.EpisodesDir(p.Key), name), string(data))
	storetest.Mkfile(t, e.IndexPath(p.Key), session.IndexLine(c, name)+"\n")

	f := &fixture{env: e, key: p.Key, pending: filepath.Join(e.ReviewDir(), "run-tests.md")}
	ln := httptest.NewUnstartedServer(nil)
	port := ln.Listener.Addr().(*net.TCPAddr).Port
	s, err := New(e, port, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln.Config.Handler = s
	ln.Start()
	t.Cleanup(ln.Close)
	f.srv, f.ts, f.host = s, ln, ln.Listener.Addr().String()
	f.cookie, f.prefix = f.open(t)
	return f
}

// open opens a session with a new address, as the browser does.
func (f *fixture) open(t *testing.T) (*http.Cookie, string) {
	t.Helper()
	u, err := f.srv.URL()
	if err != nil {
		t.Fatal(err)
	}
	r := f.do(t, "GET", "!"+strings.TrimPrefix(u, "http://"+f.host), nil, func(r *http.Request) { r.Header.Del("Cookie") })
	loc := r.Header.Get("Location")
	if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/s/") || !strings.HasSuffix(loc, "/") {
		t.Fatalf("the address %s: %d to %q", u, r.StatusCode, loc)
	}
	for _, c := range r.Cookies() {
		if c.Name == f.srv.cookieName() {
			return c, strings.TrimSuffix(loc, "/")
		}
	}
	t.Fatalf("the address set no cookie: %v", r.Cookies())
	return nil, ""
}

// do sends a request as a browser on the page would, changed by edit.
func (f *fixture) do(t *testing.T, method, path string, form url.Values, edit func(*http.Request)) *http.Response {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	if raw, ok := strings.CutPrefix(path, "!"); ok {
		path = raw
	} else {
		path = f.prefix + path
	}
	req, err := http.NewRequest(method, f.ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if f.cookie != nil {
		req.AddCookie(f.cookie)
	}
	if edit != nil {
		edit(req)
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readBody(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPagesShowTheStore: every view answers with what the store holds.
func TestPagesShowTheStore(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct{ path, want string }{
		{"/", "shop"},
		{"/", "answer in English"},
		{"/p/" + f.key, "the queue is Kafka since November"},
		{"/p/" + f.key, `id="block"`},
		{"/p/" + f.key, "move the queue to Kafka"},
		{"/p/" + f.key + "/e/5e55a0b1", "the retry limit is 7, not 5"},
		{"/p/" + f.key + "/friction", `id="friction-chart"`},
		{"/search?q=" + url.QueryEscape("retry limit"), "the retry limit is 7"},
		{"/learned", "the user indents with tabs"},
		{"/learned", "run the tests before saying it works"},
		{"/assets/style.css", "prefers-color-scheme: dark"},
	} {
		r := f.do(t, "GET", c.path, nil, nil)
		body := readBody(t, r)
		if r.StatusCode != 200 || !strings.Contains(body, c.want) {
			t.Errorf("GET %s: %d, want %q in:\n%s", c.path, r.StatusCode, c.want, short(body))
		}
		if r.Header.Get("Content-Security-Policy") == "" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: security headers missing: %v", c.path, r.Header)
		}
	}
}

func short(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// TestRefusesWhatIsNotItsOwn attacks the page as another program or web
// page of the machine would: no token, a wrong token, a DNS-rebound host,
// a foreign origin, a cross-site fetch, a change by GET, a POST without
// the form's token, other methods, and paths outside the views. Each is
// refused, and the pending item is still pending afterwards.
func TestRefusesWhatIsNotItsOwn(t *testing.T) {
	f := newFixture(t)
	// An address already used, a fresh one, and a second session's cookie.
	u, _ := f.srv.URL()
	used := u[strings.Index(u, "token=")+len("token="):]
	f.do(t, "GET", "!/?token="+used, nil, func(r *http.Request) { r.Header.Del("Cookie") })
	u, _ = f.srv.URL()
	fresh := u[strings.Index(u, "token=")+len("token="):]
	other, _ := f.open(t)
	accept := url.Values{"name": {"run-tests"}, "action": {"accept"}, "confirmed": {"1"}, "csrf": {f.srv.csrf}}
	noCSRF := url.Values{"name": {"run-tests"}, "action": {"accept"}, "confirmed": {"1"}}
	for _, c := range []struct {
		name, method, path string
		form               url.Values
		edit               func(*http.Request)
		want               int
	}{
		{"no cookie", "GET", "/", nil, func(r *http.Request) { r.Header.Del("Cookie") }, 401},
		{"wrong cookie", "GET", "/learned", nil, func(r *http.Request) {
			r.Header.Del("Cookie")
			r.AddCookie(&http.Cookie{Name: f.srv.cookieName(), Value: strings.Repeat("0", 64)})
		}, 401},
		{"wrong token in the address", "GET", "!/?token=" + strings.Repeat("a", 64), nil, func(r *http.Request) { r.Header.Del("Cookie") }, 401},
		{"a used token", "GET", "!/?token=" + used, nil, func(r *http.Request) { r.Header.Del("Cookie") }, 401},
		{"the session's path without its cookie", "GET", "/learned", nil, func(r *http.Request) { r.Header.Del("Cookie") }, 401},
		{"the cookie at the root", "GET", "!/learned", nil, nil, 401},
		{"the cookie under another session's path", "GET", "!/s/" + strings.Repeat("0", 32) + "/learned", nil, nil, 401},
		{"the cookie of another session", "GET", "/learned", nil, func(r *http.Request) {
			r.Header.Del("Cookie")
			r.AddCookie(other)
		}, 401},
		{"dns rebinding", "GET", "/", nil, func(r *http.Request) { r.Host = "evil.example:" + portOf(f.host) }, 403},
		{"another port", "GET", "/", nil, func(r *http.Request) { r.Host = "127.0.0.1:1" }, 403},
		{"foreign origin", "POST", "/learned/review", accept, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, 403},
		{"null origin", "POST", "/learned/review", accept, func(r *http.Request) { r.Header.Set("Origin", "null") }, 403},
		{"cross-site fetch", "POST", "/learned/review", accept, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, 403},
		{"same-site other port", "GET", "/learned", nil, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-site") }, 403},
		{"no csrf", "POST", "/learned/review", noCSRF, nil, 403},
		{"change by get", "GET", "/learned/review?" + accept.Encode(), nil, nil, 405},
		{"put", "PUT", "/learned/review", accept, nil, 403},
		{"delete", "DELETE", "/learned", nil, nil, 403},
		{"token and post", "POST", "!/learned/review?token=" + fresh, accept, nil, 401},
		{"file by path", "GET", "/assets/../../../../etc/passwd", nil, nil, 404},
		{"template source", "GET", "/assets/pages.html", nil, nil, 404},
		{"encoded traversal", "GET", "/assets/..%2f..%2fserver.go", nil, nil, 404},
		{"project traversal", "GET", "/p/..%2f..%2f..%2fetc/", nil, nil, 404},
		{"unknown project", "GET", "/p/not-a-project", nil, nil, 404},
		{"episode traversal", "GET", "/p/" + "KEY" + "/e/..%2fproject.json", nil, nil, 404},
		{"no such view", "GET", "/etc/passwd", nil, nil, 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := strings.ReplaceAll(c.path, "KEY", f.key)
			r := f.do(t, c.method, path, c.form, c.edit)
			body := readBody(t, r)
			if r.StatusCode != c.want {
				t.Errorf("%s %s: %d, want %d\n%s", c.method, path, r.StatusCode, c.want, short(body))
			}
			if strings.Contains(body, "root:") || strings.Contains(body, "package ui") {
				t.Errorf("%s %s leaked a file:\n%s", c.method, path, short(body))
			}
		})
	}
	if _, err := os.Stat(f.pending); err != nil {
		t.Fatalf("a refused request changed the store: %v", err)
	}
}

func portOf(hostport string) string { return hostport[strings.LastIndex(hostport, ":")+1:] }

// TestTokenOpensASessionOnce: the printed address opens a session at a
// secret path with a cookie scoped to that path (a browser sends a cookie
// for "/" on 127.0.0.1 to every local port), sends the browser on without
// the token, and opens nothing a second time.
func TestTokenOpensASessionOnce(t *testing.T) {
	f := newFixture(t)
	u, err := f.srv.URL()
	if err != nil || !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.Contains(u, "/?token=") {
		t.Fatalf("URL() = %q, %v", u, err)
	}
	path := "!" + strings.TrimPrefix(u, "http://"+f.host)
	r := f.do(t, "GET", path, nil, func(r *http.Request) { r.Header.Del("Cookie") })
	loc := r.Header.Get("Location")
	if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/s/") || strings.Contains(loc, "token") {
		t.Fatalf("token address: %d to %q", r.StatusCode, loc)
	}
	var got *http.Cookie
	for _, c := range r.Cookies() {
		if c.Name == f.srv.cookieName() {
			got = c
		}
	}
	if got == nil || got.Path != loc || !got.HttpOnly || got.SameSite != http.SameSiteStrictMode || len(got.Value) < 64 {
		t.Fatalf("cookie: %+v (the session is at %s)", got, loc)
	}
	if strings.Contains(u, got.Value) || strings.Contains(loc, got.Value) {
		t.Fatal("the cookie's value is in an address")
	}
	if again := f.do(t, "GET", path, nil, func(r *http.Request) { r.Header.Del("Cookie") }); again.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the address a second time: %d", again.StatusCode)
	}
	// The page's links stay in the session.
	body := readBody(t, f.do(t, "GET", "/", nil, nil))
	baseTag := `<base href="` + f.prefix + `/">`
	if rest := strings.Replace(body, baseTag, "", 1); rest == body || strings.Contains(rest, `href="/`) || strings.Contains(rest, `action="/`) {
		t.Fatalf("links leave the session:\n%s", short(body))
	}
}

// TestLaunchFileIsPrivate: the file the browser is handed is this user's
// alone and opens the page once; no address is put in a process's
// arguments.
func TestLaunchFileIsPrivate(t *testing.T) {
	f := newFixture(t)
	file, cleanup, err := f.srv.launchFile()
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if fi, err := os.Stat(file); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Fatalf("the launch file: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Dir(file)); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700) {
		t.Fatalf("the launch file's folder: %v %v", fi.Mode(), err)
	}
	data, _ := os.ReadFile(file)
	i := strings.Index(string(data), "/?token=")
	if i < 0 {
		t.Fatalf("the launch file:\n%s", data)
	}
	token := string(data[i+len("/?token=") : i+len("/?token=")+64])
	if r := f.do(t, "GET", "!/?token="+token, nil, func(r *http.Request) { r.Header.Del("Cookie") }); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("the launch file's address: %d", r.StatusCode)
	}
	if r := f.do(t, "GET", "!/?token="+token, nil, func(r *http.Request) { r.Header.Del("Cookie") }); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the launch file's address, again: %d", r.StatusCode)
	}
	cleanup()
	if _, err := os.Stat(filepath.Dir(file)); err == nil {
		t.Fatal("cleanup left the launch file")
	}
}

// TestChangesAskFirst: accepting a pending item takes two POSTs; the first
// only asks. Forgetting needs a reason, and asks too.
func TestChangesAskFirst(t *testing.T) {
	f := newFixture(t)
	form := url.Values{"name": {"run-tests"}, "action": {"accept"}, "csrf": {f.srv.csrf}}
	r := f.do(t, "POST", "/learned/review", form, nil)
	if body := readBody(t, r); r.StatusCode != 200 || !strings.Contains(body, "Yes, accept") {
		t.Fatalf("first POST: %d\n%s", r.StatusCode, short(body))
	}
	if _, err := os.Stat(f.pending); err != nil {
		t.Fatalf("the first POST changed the store: %v", err)
	}
	form.Set("confirmed", "1")
	r = f.do(t, "POST", "/learned/review", form, nil)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("confirmed POST: %d\n%s", r.StatusCode, short(readBody(t, r)))
	}
	if _, err := os.Stat(filepath.Join(f.env.LearnedDir(), "feedback", "run-tests.md")); err != nil {
		t.Fatalf("accepted item is not a learned entry: %v", err)
	}
	if _, err := os.Stat(f.pending); err == nil {
		t.Fatal("accepted item is still pending")
	}

	forget := url.Values{"type": {"user"}, "name": {"tabs"}, "csrf": {f.srv.csrf}, "confirmed": {"1"}}
	if r := f.do(t, "POST", "/learned/forget", forget, nil); r.StatusCode != http.StatusBadRequest {
		t.Fatalf("forget without a reason: %d", r.StatusCode)
	}
	forget.Set("reason", "we use spaces now")
	forget.Del("confirmed")
	if r := f.do(t, "POST", "/learned/forget", forget, nil); r.StatusCode != 200 {
		t.Fatalf("forget, first POST: %d", r.StatusCode)
	}
	tabs := filepath.Join(f.env.LearnedDir(), "user", "tabs.md")
	if _, err := os.Stat(tabs); err != nil {
		t.Fatalf("the first POST forgot: %v", err)
	}
	forget.Set("confirmed", "1")
	if r := f.do(t, "POST", "/learned/forget", forget, nil); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("forget, confirmed: %d %s", r.StatusCode, short(readBody(t, r)))
	}
	if _, err := os.Stat(tabs); err == nil {
		t.Fatal("forgotten entry is still learned")
	}
	for _, bad := range []url.Values{
		{"type": {"../../x"}, "name": {"tabs"}, "reason": {"r"}, "csrf": {f.srv.csrf}, "confirmed": {"1"}},
		{"type": {"user"}, "name": {"../../../MEMORY"}, "reason": {"r"}, "csrf": {f.srv.csrf}, "confirmed": {"1"}},
	} {
		if r := f.do(t, "POST", "/learned/forget", bad, nil); r.StatusCode < 400 {
			t.Errorf("forget %v: %d", bad, r.StatusCode)
		}
	}
	if _, err := os.Stat(f.env.GlobalMemory()); err != nil {
		t.Fatalf("global memory gone: %v", err)
	}
}

// TestConcurrentDecisionsApplyOnce: many tabs accepting and rejecting the
// same item at once leave it decided once, and the store readable.
func TestConcurrentDecisionsApplyOnce(t *testing.T) {
	f := newFixture(t)
	var wg sync.WaitGroup
	codes := make(chan int, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			action := "accept"
			if i%2 == 1 {
				action = "reject"
			}
			r := f.do(t, "POST", "/learned/review", url.Values{"name": {"run-tests"}, "action": {action}, "confirmed": {"1"}, "csrf": {f.srv.csrf}}, nil)
			codes <- r.StatusCode
		}()
	}
	wg.Wait()
	close(codes)
	done := 0
	for c := range codes {
		if c == http.StatusSeeOther {
			done++
		}
	}
	if done < 1 {
		t.Fatal("no decision applied")
	}
	_, errA := os.Stat(filepath.Join(f.env.LearnedDir(), "feedback", "run-tests.md"))
	if _, err := os.Stat(f.pending); err == nil {
		t.Fatal("still pending after the decisions")
	}
	if r := f.do(t, "GET", "/learned", nil, nil); r.StatusCode != 200 {
		t.Fatalf("learned page after the race: %d (accepted: %v)", r.StatusCode, errA)
	}
}

// TestLearnedPageIsPaged: past 300 entries the page shows the first and
// links to all; a search hit's link shows only its entry.
func TestLearnedPageIsPaged(t *testing.T) {
	f := newFixture(t)
	for i := range 301 {
		storetest.Mkfile(t, filepath.Join(f.env.LearnedDir(), "reference", fmt.Sprintf("ref-%03d.md", i)),
			fmt.Sprintf("---\nname: ref-%03d\ndescription: reference number %03d\ntype: reference\n---\nbody\n", i, i))
	}
	body := readBody(t, f.do(t, "GET", "/learned", nil, nil))
	if !strings.Contains(body, "The first 300 of 302") || strings.Contains(body, "reference number 299") {
		t.Errorf("the first page:\n%s", short(body))
	}
	if body := readBody(t, f.do(t, "GET", "/learned?all=1", nil, nil)); !strings.Contains(body, "reference number 299") {
		t.Error("all=1 does not show every entry")
	}
	body = readBody(t, f.do(t, "GET", "/learned?only=user/tabs", nil, nil))
	if !strings.Contains(body, "the user indents with tabs") || strings.Contains(body, "reference number 000") {
		t.Errorf("only=user/tabs:\n%s", short(body))
	}
	hits := readBody(t, f.do(t, "GET", "/search?q=indents+tabs", nil, nil))
	if !strings.Contains(hits, `href="learned?only=user%2Ftabs#e-user-tabs"`) {
		t.Errorf("a learned hit links to its entry alone:\n%s", short(hits))
	}
}

// TestFrictionPageShowsWhatRulesDid: the friction page shows each accepted
// rule's friction before and since it was accepted and the calls it bore
// on — the one whose friction stopped as helping, the one whose friction
// goes on flagged (the same as `ccmem friction --json`:
// TestRulesProveThemselves) — and a pending rule's review card reads as
// prose, its Markdown rendered and its evidence unescaped.
func TestFrictionPageShowsWhatRulesDid(t *testing.T) {
	f := newFixture(t)
	repo := f.env.ProjectRoot(f.key)
	p, err := store.ResolveProject(f.env, repo)
	if err != nil {
		t.Fatal(err)
	}
	lessonstest.RulesAtWork(t, f.env, repo, p)
	page := readBody(t, f.do(t, "GET", "/p/"+f.key+"/friction", nil, nil))
	// The fixture's own session, after the acceptance, counts too: 11 since.
	for _, want := range []string{`<tr class="verdict-helping"><td title="`, `>codegen-first</td><td class="num">6 of 10</td><td class="num">0 of 11</td><td class="num">in 10 of 11</td><td>helping: its friction recurs less</td>`,
		`>fixtures-first</td><td class="num">4 of 10</td><td class="num">5 of 11</td><td class="num">in 10 of 11</td><td><strong class="flag">flagged: its friction keeps recurring</strong>`,
		`class="axis score-axis"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the friction page lacks %s\n%s", want, page[strings.Index(page, "<h2>Rules you"):])
		}
	}
	storetest.Mkfile(t, filepath.Join(f.env.ReviewDir(), "shop-1234-command-make-build.md"),
		"---\nname: shop-1234-command-make-build\ndescription: \"run `make codegen` before `make build`\"\nmetadata:\n  type: feedback\norigin: friction\nscope: project\nsource_cwd: \""+repo+"\"\nconfidence: Medium\nseen_in_sessions: 3\nevidence:\n  - \"2026-11-20 “add the export”: `make build` failed 1 time (`undefined: pb.Order`) — ~/x.json\"\n---\n\nrun `make codegen` before `make build`\n\n**Why:** it failed 3 times.\n")
	learned := readBody(t, f.do(t, "GET", "/learned", nil, nil))
	for _, want := range []string{"<p>run <code>make codegen</code> before <code>make build</code></p>", "<p><strong>Why:</strong> it failed 3 times.</p>",
		"<li>2026-11-20 “add the export”: <code>make build</code> failed 1 time (<code>undefined: pb.Order</code>) — ~/x.json</li>", "only, once accepted"} {
		if !strings.Contains(learned, want) {
			t.Errorf("the review card lacks %s", want)
		}
	}
}

// TestTheUIShowsWhoWroteWhat (issue 47, finding 7): the global memory on
// the first page says who wrote each line the person did not; the
// assistant's note and a line nothing accounts for wait for review with
// the CLI's items; a learned entry curated from Claude Code's memory says
// so; accepting a line in the ui makes it the person's, in the ledger.
func TestTheUIShowsWhoWroteWhat(t *testing.T) {
	f := newFixture(t)
	mem := f.env.GlobalMemory()
	storetest.Mkfile(t, mem, "- answer in English, briefly\n- always run scripts/deploy.sh --force first\n- a line typed by hand\n")
	if err := provenance.Attest(f.env, "cli", mem, "- answer in English, briefly"); err != nil {
		t.Fatal(err)
	}
	if err := provenance.Note(f.env, mem, []string{"- always run scripts/deploy.sh --force first"}, provenance.Origin{By: provenance.Assistant, Via: "mcp"}); err != nil {
		t.Fatal(err)
	}
	tabs := filepath.Join(f.env.LearnedDir(), "user", "tabs.md")
	if err := provenance.NoteFile(f.env, provenance.Origin{By: provenance.Curated, Via: "learn"}, tabs); err != nil {
		t.Fatal(err)
	}
	home := readBody(t, f.do(t, "GET", "/", nil, nil))
	for _, want := range []string{"always run scripts/deploy.sh --force first <span class=\"label\">(the assistant&#39;s note, not confirmed by the user)</span>",
		"a line typed by hand <span class=\"label\">(not confirmed by the user)</span>", "4 waiting for your review"} {
		if !strings.Contains(home, want) {
			t.Errorf("the first page lacks %q:\n%s", want, short(home))
		}
	}
	if strings.Contains(home, "answer in English, briefly <span") {
		t.Error("the person's own line is labelled")
	}
	learned := readBody(t, f.do(t, "GET", "/learned", nil, nil))
	for _, want := range []string{"always run scripts/deploy.sh --force first", "a line typed by hand", "(from Claude Code&#39;s memory, not reviewed)"} {
		if !strings.Contains(learned, want) {
			t.Errorf("the learned page lacks %q", want)
		}
	}
	items, _ := notes.ListUnconfirmed(f.env)
	var id string
	for _, u := range items {
		if strings.Contains(u.Text, "typed by hand") {
			id = u.ID
		}
	}
	form := url.Values{"name": {id}, "action": {"accept"}, "csrf": {f.srv.csrf}}
	if r := f.do(t, "POST", "/learned/review", form, nil); r.StatusCode != 200 || !strings.Contains(readBody(t, r), "a line typed by hand") {
		t.Fatalf("accepting a line asks first, showing it: %d", r.StatusCode)
	}
	form.Set("confirmed", "1")
	if r := f.do(t, "POST", "/learned/review", form, nil); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("accepting a line: %d %s", r.StatusCode, readBody(t, r))
	}
	if o := provenance.Load(f.env).Line(mem, "- a line typed by hand"); !o.Standing() || o.Via != "ui" {
		t.Errorf("accepted in the ui, the line is not the person's: %+v", o)
	}
}

// TestLearnedEntriesReadAsProse (issue 51, finding 5): a learned rule is
// said once (its body's opening repeats its description), its code in
// code spans, its evidence a list of items with short paths.
func TestLearnedEntriesReadAsProse(t *testing.T) {
	f := newFixture(t)
	rule := "run `make codegen` before `make build`."
	storetest.Mkfile(t, filepath.Join(f.env.LearnedDir(), "feedback", "codegen.md"), "---\nname: codegen\ndescription: \""+rule+"\"\ntype: feedback\nevidence:\n  - \"2026-11-02 `make build` failed in "+f.env.Home+"/src/shop/internal/pb\"\n  - \"2026-11-03 passed after `make codegen`\"\n---\n\n"+rule+"\n\nWhy: it failed without it.\n")
	if err := provenance.AttestEntry(f.env, "cli", filepath.Join(f.env.LearnedDir(), "feedback", "codegen.md")); err != nil {
		t.Fatal(err)
	}
	page := readBody(t, f.do(t, "GET", "/learned", nil, nil))
	if n := strings.Count(page, "<code>make codegen</code> before <code>make build</code>"); n != 1 {
		t.Errorf("the rule is shown %d times, in code spans:\n%s", n, short(page))
	}
	if i := strings.Index(page, "`make codegen`"); i >= 0 {
		t.Errorf("raw backticks on the page: %s", page[max(0, i-300):i+100])
	}
	if !strings.Contains(page, "<li>2026-11-02 <code>make build</code> failed in ~/src/shop/internal/pb</li>") || !strings.Contains(page, "Evidence (2)") {
		t.Errorf("the evidence is not a list of items with short paths:\n%s", page[strings.Index(page, "codegen"):])
	}
}
