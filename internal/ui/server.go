// Package ui is the page `ccmem ui` serves on 127.0.0.1: what each
// project's next session is told, every session's record, friction over
// time, search, and the review of learned memory — read through the same
// library code as the command line, never a second implementation.
//
// It is safe by construction against the other programs and web pages of
// the machine: a random token opens it (in the URL once, then in a
// cookie), every request is checked for it, for the Host it was served on
// (no DNS rebinding) and for a foreign Origin or a cross-site fetch (no
// CORS, nothing answers another site); views are GET only, changes POST
// only with a CSRF token and a confirmation step; it serves only its own
// routes and embedded assets, never a file by path.
package ui

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/store"
)

// Server is one run of the page: its store, its secrets and its routes.
type Server struct {
	env   store.Env
	ccmem func() string
	port  int
	// token opens the page (the URL's ?token= and the cookie); csrf is the
	// hidden field of every form.
	token, csrf string
	mux         *http.ServeMux
	// Log, when set, is told of each refused request (for --verbose).
	Log func(format string, args ...any)
}

// New makes a server for the store of env on the given port (the one its
// listener has); ccmem says how sessions run ccmem, for the block shown
// (nil: "ccmem").
func New(env store.Env, port int, ccmem func() string) (*Server, error) {
	s := &Server{env: env, ccmem: ccmem, port: port}
	var err error
	if s.token, err = randomHex(32); err != nil {
		return nil, err
	}
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

// URL is the address that opens the page, its token included.
func (s *Server) URL() string {
	return "http://127.0.0.1:" + strconv.Itoa(s.port) + "/?token=" + s.token
}

// cookieName holds the port, so pages of two runs do not share a cookie.
func (s *Server) cookieName() string { return "ccmem_ui_" + strconv.Itoa(s.port) }

// ServeHTTP checks every request before any route sees it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
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
	// The token in the address becomes a cookie, and the address loses it
	// (so it stays out of the history and of what the page links to).
	if q := r.URL.Query(); q.Has("token") {
		if !s.isToken(q.Get("token")) || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			http.Error(w, "ccmem ui: wrong token; open the address `ccmem ui` printed", http.StatusUnauthorized)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return
	}
	if c, err := r.Cookie(s.cookieName()); err != nil || !s.isToken(c.Value) {
		http.Error(w, "ccmem ui: no token; open the address `ccmem ui` printed", http.StatusUnauthorized)
		return
	}
	// Only clean paths: no dot segments, no doubled slashes (the router
	// would redirect them; nothing here has such an address).
	if p := r.URL.Path; p != "/" && (path.Clean(p) != p || strings.ContainsAny(r.URL.Path, `\`+"\x00") || strings.Contains(strings.ToLower(r.URL.RawPath), "%2f")) {
		http.NotFound(w, r)
		return
	}
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

func (s *Server) isToken(v string) bool { return constantEqual(v, s.token) }

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
