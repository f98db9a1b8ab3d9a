// Package ui is the page `ccmem ui` serves on 127.0.0.1: what each
// project's next session is told, every session's record, friction over
// time, search, and the review of learned memory — read through the same
// library code as the command line, never a second implementation.
//
// It is safe by construction against the other programs, users and web
// pages of the machine. A random token opens it, once: the address
// `ccmem ui` prints, or a private file it hands the browser (never an
// address in a process's arguments, which every user can read). Using it
// opens a session at a secret path, /s/<id>/, with a cookie scoped to
// that path: browsers send a 127.0.0.1 cookie to every port, so a cookie
// for "/" would reach any local server the person visits; this one goes
// only where the secret path is, and the path alone opens nothing. Every
// request is also checked for the Host it was served on (no DNS
// rebinding) and for a foreign Origin or a cross-site fetch (no CORS,
// nothing answers another site); views are GET only, changes POST only
// with a CSRF token and a confirmation step; it serves only its own
// routes and embedded assets, never a file by path.
package ui

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
)

// Server is one run of the page: its store, its secrets and its routes.
type Server struct {
	env   store.Env
	ccmem func() string
	port  int
	// csrf is the hidden field of every form.
	csrf string
	mux  *http.ServeMux

	mu sync.Mutex
	// tokens open the page, each once (the address's ?token=).
	tokens map[string]bool
	// sessions are the opened pages: the secret of each path /s/<id>/,
	// with its cookie's value.
	sessions map[string]string
	// Log, when set, is told of each refused request (for --verbose).
	Log func(format string, args ...any)
}

// New makes a server for the store of env on the given port (the one its
// listener has); ccmem says how sessions run ccmem, for the block shown
// (nil: "ccmem").
func New(env store.Env, port int, ccmem func() string) (*Server, error) {
	s := &Server{env: env, ccmem: ccmem, port: port, tokens: map[string]bool{}, sessions: map[string]string{}}
	var err error
	if s.csrf, err = randomHex(32); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("cannot make a random token: %v", err)
	}
	return hex.EncodeToString(b), nil
}

// URL is a new address that opens the page, once: its token is spent by
// the first request that brings it.
func (s *Server) URL() (string, error) {
	t, err := randomHex(32)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.tokens[t] = true
	s.mu.Unlock()
	return "http://127.0.0.1:" + strconv.Itoa(s.port) + "/?token=" + t, nil
}

// cookieName holds the port, so pages of two runs do not share a cookie.
func (s *Server) cookieName() string { return "ccmem_ui_" + strconv.Itoa(s.port) }

// sessionPrefix is the path every page of a session lies under.
const sessionPrefix = "/s/"

// open spends token and opens a session: its id and cookie value.
func (s *Server) open(token string) (id, value string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.tokens[token] {
		return "", "", false
	}
	delete(s.tokens, token)
	var err error
	if id, err = randomHex(16); err != nil {
		return "", "", false
	}
	if value, err = randomHex(32); err != nil {
		return "", "", false
	}
	s.sessions[id] = value
	return id, value, true
}

// session finds the session a request's path names and checks its
// cookie; it returns the path past the session's prefix.
func (s *Server) session(r *http.Request) (rest string, ok bool) {
	p, found := strings.CutPrefix(r.URL.Path, sessionPrefix)
	if !found {
		return "", false
	}
	id, rest, found := strings.Cut(p, "/")
	if !found {
		return "", false
	}
	s.mu.Lock()
	want, known := s.sessions[id]
	s.mu.Unlock()
	if !known {
		return "", false
	}
	c, err := r.Cookie(s.cookieName())
	if err != nil || !constantEqual(c.Value, want) {
		return "", false
	}
	return "/" + rest, true
}

type baseKey struct{}

// base is the address of the request's session, which every link on its
// pages is relative to.
func base(r *http.Request) string {
	b, _ := r.Context().Value(baseKey{}).(string)
	if b == "" {
		return "/"
	}
	return b
}

// ServeHTTP checks every request before any route sees it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin") // no-referrer would make form posts say Origin: null
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	if why := s.refuse(r); why != "" {
		if s.Log != nil {
			s.Log("refused %s %s: %s", r.Method, r.URL.Path, why)
		}
		code := http.StatusForbidden
		if why == "no token" {
			code = http.StatusUnauthorized
		}
		http.Error(w, "ccmem ui: "+why+"; open the address `ccmem ui` printed", code)
		return
	}
	// A token in the address opens a session, once: the page moves to the
	// session's secret path with a cookie scoped to it, and the address
	// loses the token (so it stays out of the history and of what the page
	// links to).
	if q := r.URL.Query(); q.Has("token") {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "ccmem ui: wrong token; open the address `ccmem ui` printed", http.StatusUnauthorized)
			return
		}
		id, value, ok := s.open(q.Get("token"))
		if !ok {
			http.Error(w, "ccmem ui: this address was used already, or is wrong; run `ccmem ui` again for a new one", http.StatusUnauthorized)
			return
		}
		prefix := sessionPrefix + id + "/"
		http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: value, Path: prefix, HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, prefix, http.StatusSeeOther)
		return
	}
	rest, ok := s.session(r)
	if !ok {
		http.Error(w, "ccmem ui: no token; open the address `ccmem ui` printed", http.StatusUnauthorized)
		return
	}
	// Only clean paths: no dot segments, no doubled slashes (the router
	// would redirect them; nothing here has such an address).
	if p := rest; p != "/" && (path.Clean(p) != p || strings.ContainsAny(r.URL.Path, `\`+"\x00") || strings.Contains(strings.ToLower(r.URL.RawPath), "%2f")) {
		http.NotFound(w, r)
		return
	}
	prefix := strings.TrimSuffix(r.URL.Path, rest) + "/"
	r2 := r.WithContext(context.WithValue(r.Context(), baseKey{}, prefix))
	u := *r.URL
	u.Path, u.RawPath = rest, ""
	r2.URL = &u
	r = r2
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil || !constantEqual(r.PostForm.Get("csrf"), s.csrf) {
			http.Error(w, "ccmem ui: the form's token is missing or wrong; reload the page", http.StatusForbidden)
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// refuse says why a request is refused before its token is looked at, or
// "": it must be for this server's own host and port (a DNS-rebound name
// is refused), not from another site, and use a method the page uses.
func (s *Server) refuse(r *http.Request) string {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil || port != strconv.Itoa(s.port) || (host != "127.0.0.1" && host != "localhost") {
		return "wrong host"
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://127.0.0.1:"+port && o != "http://localhost:"+port {
		return "foreign origin"
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return "cross-site request"
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	default:
		return "method not allowed"
	}
	return ""
}

func constantEqual(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// page is a rendered response: its status and body, written with the time
// it took to make (Server-Timing), so slow pages show in the browser's
// tools and in the bench.
func (s *Server) page(w http.ResponseWriter, start time.Time, status int, body *bytes.Buffer) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Server-Timing", fmt.Sprintf("page;dur=%.1f", float64(time.Since(start).Microseconds())/1000))
	h.Set("Content-Length", strconv.Itoa(body.Len()))
	w.WriteHeader(status)
	w.Write(body.Bytes())
}

// plainName tells a route value that is one plain name, never a path.
func plainName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`+"\x00")
}
