package webui

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// Options are what the ui verb wires in: how to open the stores and who a
// write is recorded as, both as the CLI does them.
type Options struct {
	// Open opens the stores seen from the directory the command runs in,
	// afresh for each request: a Repo caches what it read, and the store
	// changes under the page (agents, pulls).
	Open func() (*gitstore.Set, error)
	// Writer is who the page's writes are recorded as (the CLI's writer:
	// --agent is not taken, the environment and git config are).
	Writer func(*gitstore.Set) gitstore.Writer
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// ReadOnly leaves out every action: the page only shows.
	ReadOnly bool
	// Port is the port to listen on; 0 picks a free one.
	Port int
}

// Server is the page of one git mem ui run.
type Server struct {
	opts  Options
	token string
	port  int
	lns   []net.Listener
	pages *pageSet

	// writes are one at a time: a purge rewrites every memory ref, and
	// the version check before a write should not race the page's own
	// other write
	writeMu sync.Mutex
}

// New prepares a server with a fresh random token; Listen binds it.
func New(opts Options) (*Server, error) {
	if opts.Open == nil || opts.Writer == nil {
		return nil, errors.New("webui: Options.Open and Options.Writer are required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("%w: port %d: give a port from 1 to 65535, or 0 for a free one", memerr.ErrInvalid, opts.Port)
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("webui: no randomness for the page's token: %w", err)
	}
	pages, err := loadPages()
	if err != nil {
		return nil, err
	}
	return &Server{opts: opts, token: hex.EncodeToString(b[:]), port: opts.Port, pages: pages}, nil
}

// Listen binds the loopback addresses: 127.0.0.1 always, ::1 on the same
// port when the system has it. Nothing else is ever bound, whatever the
// machine's other addresses: the page is the local user's.
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)))
	if err != nil {
		return fmt.Errorf("cannot listen on 127.0.0.1 port %d (another program has it? leave out --port for a free one): %w", s.port, err)
	}
	s.port = ln.Addr().(*net.TCPAddr).Port
	s.lns = []net.Listener{ln}
	// ::1 is a convenience (a browser that resolves localhost to it):
	// a system without IPv6 on loopback serves 127.0.0.1 alone
	if ln6, err := net.Listen("tcp6", net.JoinHostPort("::1", strconv.Itoa(s.port))); err == nil {
		s.lns = append(s.lns, ln6)
	}
	return nil
}

// URL is the page's address, token included: what the command prints
// and opens.
func (s *Server) URL() string {
	return fmt.Sprintf("http://127.0.0.1:%d/%s/", s.port, s.token)
}

// Serve answers on the listeners until ctx ends, then shuts down.
func (s *Server) Serve(ctx context.Context) error {
	if len(s.lns) == 0 {
		return errors.New("webui: Serve before Listen")
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, len(s.lns))
	for _, ln := range s.lns {
		go func() { errc <- srv.Serve(ln) }()
	}
	select {
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shut)
	case err := <-errc:
		_ = srv.Close()
		return err
	}
}

// csp allows script and style from the server's own files only: no inline
// script, no eval, nothing from elsewhere; no frames, no plugins, forms
// post to the page itself. The charts are SVG in the page, which needs no
// script.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Handler is the whole site behind its checks: the Host, the token, the
// method and the Origin of a change.
func (s *Server) Handler() http.Handler {
	mux := s.routes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		// the token is in every URL: no Referer may carry it to another
		// site. Not no-referrer: under it a browser sends "Origin: null"
		// with the page's own form posts, which the Origin check refuses.
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if !s.loopbackHost(r.Host) {
			// a DNS name rebound to 127.0.0.1 carries its own name here
			http.Error(w, "forbidden: this page answers only to 127.0.0.1 or localhost on its own port", http.StatusForbidden)
			return
		}
		rest, ok := s.tokenPath(r.URL.Path)
		if !ok {
			http.Error(w, "forbidden: open the address git mem ui printed (it carries this run's token)", http.StatusForbidden)
			return
		}
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			// the routes take an action by POST only (routes)
		case http.MethodPost:
			if !s.sameOrigin(r) {
				http.Error(w, "forbidden: a change must come from the page itself", http.StatusForbidden)
				return
			}
		default:
			w.Header().Set("Allow", "GET, HEAD, POST")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + rest
		mux.ServeHTTP(w, r2)
	})
}

// loopbackHost reports whether a Host header names this server by a
// loopback name and its own port.
func (s *Server) loopbackHost(host string) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != strconv.Itoa(s.port) {
		return false
	}
	switch strings.ToLower(h) {
	case "127.0.0.1", "::1", "localhost":
		return true
	}
	return false
}

// tokenPath strips the token from a path: "/TOKEN/rest" gives "rest".
func (s *Server) tokenPath(p string) (string, bool) {
	p = strings.TrimPrefix(p, "/")
	tok, rest, found := strings.Cut(p, "/")
	if !found || subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) != 1 {
		return "", false
	}
	return rest, true
}

// sameOrigin: a change must come from a page of this server. Browsers send
// Origin with every POST; a request without one is no page's.
func (s *Server) sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || !strings.EqualFold(origin, "http://"+r.Host) {
		return false
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return false
	}
	return true
}

// base is the path every link of the page starts with.
func (s *Server) base() string { return "/" + s.token + "/" }
