package webui

import (
	"context"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/indextest"
	"github.com/git-mem/git-mem/memerr"
)

// fixture is a server over a real repository in a temporary directory
// (git fsck --strict clean at the end: indextest.NewRepo checks it).
type fixture struct {
	t    *testing.T
	repo *indextest.Repo
	srv  *Server
	now  time.Time
}

func newFixture(t *testing.T, readOnly bool) *fixture {
	t.Helper()
	now := indextest.Now
	clock := func() time.Time { return now }
	repo := indextest.NewRepo(t, clock)
	f := &fixture{t: t, repo: repo, now: now}
	srv, err := New(Options{
		Open: func() (*gitstore.Set, error) {
			r, err := gitstore.Open(repo.Dir)
			if err != nil {
				return nil, err
			}
			r.Now = clock
			return gitstore.NewSet(r), nil
		},
		Writer:   func(*gitstore.Set) gitstore.Writer { return gitstore.Writer{Agent: "web-test"} },
		Now:      clock,
		ReadOnly: readOnly,
	})
	require.NoError(t, err)
	require.NoError(t, srv.Listen())
	t.Cleanup(func() {
		for _, ln := range srv.lns {
			_ = ln.Close()
		}
	})
	f.srv = srv
	return f
}

// seed saves the realistic small store of indextest.
func (f *fixture) seed() []*gitstore.Memory {
	var out []*gitstore.Memory
	for _, s := range indextest.Seed {
		out = append(out, indextest.Add(f.t, f.repo.Main, s.Text, func(n *gitstore.NewMemory) {
			n.Type, n.Paths = s.Type, s.Paths
		}))
	}
	return out
}

func (f *fixture) host() string { return fmt.Sprintf("127.0.0.1:%d", f.srv.port) }

// do sends one request to the handler; path is under the token unless it
// starts with "/".
func (f *fixture) do(method, path string, form url.Values, hdr map[string]string) *httptest.ResponseRecorder {
	f.t.Helper()
	if !strings.HasPrefix(path, "/") {
		path = f.srv.base() + path
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, "http://"+f.host()+path, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method == http.MethodPost {
		r.Header.Set("Origin", "http://"+f.host())
	}
	for k, v := range hdr {
		if k == "Host" {
			r.Host = v
			continue
		}
		if v == "" {
			r.Header.Del(k)
			continue
		}
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	f.srv.Handler().ServeHTTP(w, r)
	return w
}

func (f *fixture) get(path string) string {
	f.t.Helper()
	w := f.do(http.MethodGet, path, nil, nil)
	require.Equal(f.t, http.StatusOK, w.Code, w.Body.String())
	return w.Body.String()
}

// current reads a memory as the store holds it now.
func (f *fixture) current(id string) *gitstore.Memory {
	f.t.Helper()
	_, m, err := f.srv.mustOpen(f.t).Find(id)
	require.NoError(f.t, err)
	return m
}

func (s *Server) mustOpen(t *testing.T) *gitstore.Set {
	set, err := s.open()
	require.NoError(t, err)
	return set
}

var versionRE = regexp.MustCompile(`name="version" value="([0-9a-f]+)"`)

// pageVersion is the version the memory's page sends with an action.
func (f *fixture) pageVersion(id string) string {
	f.t.Helper()
	got := versionRE.FindStringSubmatch(f.get("m/" + id))
	require.NotNil(f.t, got, "the memory page carries its version")
	return got[1]
}

func TestListensOnLoopbackOnly(t *testing.T) {
	f := newFixture(t, false)
	require.NotEmpty(t, f.srv.Addrs())
	for _, a := range f.srv.Addrs() {
		tcp := a.(*net.TCPAddr)
		require.True(t, tcp.IP.IsLoopback(), "listens on %s", a)
		require.Equal(t, f.srv.port, tcp.Port)
	}
	require.NotZero(t, f.srv.port, "a free port was picked")
	require.Regexp(t, `^http://127\.0\.0\.1:\d+/[0-9a-f]{48}/$`, f.srv.URL())

	// a second run gets another token
	other, err := New(f.srv.opts)
	require.NoError(t, err)
	require.NotEqual(t, f.srv.token, other.token)
}

func TestEveryRequestNeedsTheToken(t *testing.T) {
	f := newFixture(t, false)
	f.seed()
	tok := f.srv.token
	cases := []struct {
		name, path string
		code       int
	}{
		{"the page with the token", "/" + tok + "/", http.StatusOK},
		{"the script with the token", "/" + tok + "/static/app.js", http.StatusOK},
		{"the tips with the token", "/" + tok + "/api/tips", http.StatusOK},
		{"the root", "/", http.StatusForbidden},
		{"a wrong token", "/" + strings.Repeat("0", len(tok)) + "/", http.StatusForbidden},
		{"a prefix of the token", "/" + tok[:20] + "/", http.StatusForbidden},
		{"the token without its slash", "/" + tok, http.StatusForbidden},
		{"the script without the token", "/static/app.js", http.StatusForbidden},
		{"the tips without the token", "/api/tips", http.StatusForbidden},
		{"the token in the query", "/?t=" + tok, http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := f.do(http.MethodGet, tc.path, nil, nil)
			require.Equal(t, tc.code, w.Code, w.Body.String())
			if tc.code == http.StatusForbidden {
				require.NotContains(t, w.Body.String(), "Bookings", "a refused request shows no memory")
			}
		})
	}
}

func TestHostMustBeTheLoopbackNameAndPort(t *testing.T) {
	f := newFixture(t, false)
	port := f.srv.port
	cases := []struct {
		host string
		code int
	}{
		{fmt.Sprintf("127.0.0.1:%d", port), http.StatusOK},
		{fmt.Sprintf("localhost:%d", port), http.StatusOK},
		{fmt.Sprintf("LOCALHOST:%d", port), http.StatusOK},
		{fmt.Sprintf("[::1]:%d", port), http.StatusOK},
		// DNS rebinding: a name of the attacker's that resolves to 127.0.0.1
		{fmt.Sprintf("evil.example:%d", port), http.StatusForbidden},
		{fmt.Sprintf("127.0.0.1.nip.example:%d", port), http.StatusForbidden},
		{fmt.Sprintf("127.0.0.1:%d", port+1), http.StatusForbidden},
		{"127.0.0.1", http.StatusForbidden},
		{"localhost", http.StatusForbidden},
		{fmt.Sprintf("10.0.0.1:%d", port), http.StatusForbidden},
		{"", http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.host, func(t *testing.T) {
			w := f.do(http.MethodGet, "", nil, map[string]string{"Host": tc.host})
			require.Equal(t, tc.code, w.Code, w.Body.String())
		})
	}
}

func TestChangesNeedPostTheTokenAndTheOrigin(t *testing.T) {
	f := newFixture(t, false)
	m := f.seed()[0]
	own := "http://" + f.host()
	cases := []struct {
		name   string
		method string
		path   string
		hdr    map[string]string
		code   int
	}{
		{"GET of an action", http.MethodGet, "action/confirm", nil, http.StatusMethodNotAllowed},
		{"PUT", http.MethodPut, "action/confirm", map[string]string{"Origin": own}, http.StatusMethodNotAllowed},
		{"DELETE", http.MethodDelete, "m/" + m.ID, map[string]string{"Origin": own}, http.StatusMethodNotAllowed},
		{"no Origin", http.MethodPost, "action/confirm", map[string]string{"Origin": ""}, http.StatusForbidden},
		{"another site's Origin", http.MethodPost, "action/confirm", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"an opaque Origin", http.MethodPost, "action/confirm", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"another port's Origin", http.MethodPost, "action/confirm", map[string]string{"Origin": fmt.Sprintf("http://127.0.0.1:%d", f.srv.port+1)}, http.StatusForbidden},
		{"a cross-site fetch", http.MethodPost, "action/confirm", map[string]string{"Origin": own, "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"no token", http.MethodPost, "/action/confirm", map[string]string{"Origin": own}, http.StatusForbidden},
		{"the page itself", http.MethodPost, "action/confirm", map[string]string{"Origin": own, "Sec-Fetch-Site": "same-origin"}, http.StatusSeeOther},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.current(m.ID).Events)
			form := url.Values{"id": {m.ID}, "version": {f.current(m.ID).Version()}}
			w := f.do(tc.method, tc.path, form, tc.hdr)
			require.Equal(t, tc.code, w.Code, w.Body.String())
			after := len(f.current(m.ID).Events)
			if tc.code == http.StatusSeeOther {
				require.Equal(t, before+1, after, "the confirm was written")
			} else {
				require.Equal(t, before, after, "nothing was written")
			}
		})
	}
}

// hostile is what a memory may hold that a page must show as text.
const hostile = `<script>alert("x")</script> and <img src=x onerror=alert(1)> & "quotes"`

func TestMemoryTextIsEscapedEverywhere(t *testing.T) {
	f := newFixture(t, false)
	f.seed()
	m := indextest.Add(t, f.repo.Main, hostile+" deploy", func(n *gitstore.NewMemory) {
		n.Paths = []string{`web/<script>alert(2)</script>.go`}
		n.Keys = []string{`<b>bold key</b>`}
	})
	_, err := f.repo.Main.Dispute(t.Context(), gitstore.Writer{Agent: `<i>agent</i>`}, m.ID, `</q><script>alert(3)</script>`)
	require.NoError(t, err)
	for _, path := range []string{"", "m/" + m.ID, "?q=" + url.QueryEscape("alert script deploy"), "?agent=test", "timeline", "numbers", "timeline?as_of=now"} {
		t.Run(path, func(t *testing.T) {
			body := f.get(path)
			require.NotContains(t, body, "<script>alert")
			require.NotContains(t, body, "<img src=x")
			require.NotContains(t, body, "<b>bold")
			require.NotContains(t, body, "<i>agent")
			require.NotRegexp(t, `<script>|<script [^>]*>[^<]`, body, "no inline script")
		})
	}
	body := f.get("m/" + m.ID)
	require.Contains(t, body, html.EscapeString(`<script>alert("x")</script>`), "the text shows as text")
	require.Contains(t, body, "web/&lt;script&gt;alert(2)&lt;/script&gt;.go")
	require.Contains(t, body, "&lt;/q&gt;&lt;script&gt;alert(3)&lt;/script&gt;", "a dispute's reason shows as text")
}

func TestContentSecurityPolicy(t *testing.T) {
	f := newFixture(t, false)
	m := f.seed()[0]
	for _, path := range []string{"", "m/" + m.ID, "timeline", "sessions", "team", "numbers", "static/app.js", "/"} {
		t.Run(path, func(t *testing.T) {
			w := f.do(http.MethodGet, path, nil, nil)
			p := w.Header().Get("Content-Security-Policy")
			require.Contains(t, p, "default-src 'none'")
			require.Contains(t, p, "script-src 'self'")
			require.NotContains(t, p, "unsafe-inline")
			require.NotContains(t, p, "unsafe-eval")
			require.Contains(t, p, "frame-ancestors 'none'")
			require.Equal(t, "same-origin", w.Header().Get("Referrer-Policy"), "the token never leaves in a Referer")
			require.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
			body := w.Body.String()
			// every script is a file of the server's, and no element
			// carries an event handler
			for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(body, -1) {
				require.Regexp(t, `^<script src="/[0-9a-f]+/static/app\.js" defer>$`, tag)
			}
			require.NotRegexp(t, `(?i)<[^>]+\son[a-z]+=`, body)
			require.NotContains(t, body, "javascript:")
		})
	}
	w := f.do(http.MethodGet, "static/app.js", nil, nil)
	require.Equal(t, http.StatusOK, w.Code)
	require.Contains(t, w.Header().Get("Content-Type"), "javascript")
	require.Contains(t, w.Body.String(), "api/tips")
}

func TestActionOnAChangedMemoryIsRefused(t *testing.T) {
	f := newFixture(t, false)
	m := f.seed()[1]
	seen := f.pageVersion(m.ID)
	// an agent confirms it while the page is open
	_, err := f.repo.Main.Confirm(t.Context(), gitstore.Writer{Agent: "codex"}, m.ID)
	require.NoError(t, err)
	for _, tc := range []struct {
		op   string
		form url.Values
	}{
		{"dispute", url.Values{"reason": {"wrong"}}},
		{"revise", url.Values{"text": {"an edit made on the old version"}}},
		{"forget", nil},
		{"purge", url.Values{"confirm": {m.ID}}},
		{"confirm", nil},
	} {
		t.Run(tc.op, func(t *testing.T) {
			before := f.current(m.ID)
			form := url.Values{"id": {m.ID}, "version": {seen}}
			for k, v := range tc.form {
				form[k] = v
			}
			w := f.do(http.MethodPost, "action/"+tc.op, form, nil)
			require.Equal(t, http.StatusConflict, w.Code, w.Body.String())
			require.Contains(t, w.Body.String(), "changed since the page showed it")
			require.Contains(t, w.Body.String(), "codex", "the page shows the memory as it is now")
			require.Equal(t, before, f.current(m.ID), "nothing was written")
		})
	}
	// a form that names no version is refused: it would write over anything
	before := f.current(m.ID)
	w := f.do(http.MethodPost, "action/dispute", url.Values{"id": {m.ID}, "reason": {"no version"}}, nil)
	require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
	require.Equal(t, before, f.current(m.ID), "nothing was written")
	// with the version the page shows now, the dispute goes through
	w = f.do(http.MethodPost, "action/dispute", url.Values{"id": {m.ID}, "version": {f.pageVersion(m.ID)}, "reason": {"checked: wrong"}}, nil)
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
}

func TestActionsAreTheStoreCalls(t *testing.T) {
	f := newFixture(t, false)
	ms := f.seed()
	post := func(op, id string, form url.Values) *httptest.ResponseRecorder {
		t.Helper()
		if form == nil {
			form = url.Values{}
		}
		form.Set("id", id)
		form.Set("version", f.pageVersion(id))
		return f.do(http.MethodPost, "action/"+op, form, nil)
	}

	t.Run("dispute with a reason", func(t *testing.T) {
		m := ms[0]
		w := post("dispute", m.ID, url.Values{"reason": {"the UI converts in the API layer now"}})
		require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
		require.Contains(t, w.Header().Get("Location"), "done=disputed")
		got := f.current(m.ID)
		require.Equal(t, gitstore.EventDispute, got.Events[len(got.Events)-1].Op)
		require.Equal(t, "web-test", got.Events[len(got.Events)-1].Agent)
		require.Less(t, got.EffectiveTrust(f.now), m.EffectiveTrust(f.now))
		body := f.get("m/" + m.ID + "?done=disputed")
		require.Contains(t, body, "the UI converts in the API layer now")
		require.Contains(t, body, "Disputed:")
	})
	t.Run("confirm", func(t *testing.T) {
		m := ms[2]
		require.Equal(t, http.StatusSeeOther, post("confirm", m.ID, nil).Code)
		require.Equal(t, gitstore.EventConfirm, f.current(m.ID).Events[0].Op)
	})
	t.Run("revise shows a diff", func(t *testing.T) {
		m := ms[4]
		w := post("revise", m.ID, url.Values{"text": {"Use snake_case for Postgres column names and camelCase in Go and TypeScript."}, "keys": {"naming\ncolumn names"}})
		require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
		got := f.current(m.ID)
		require.Contains(t, got.Text, "in Go and TypeScript")
		require.Equal(t, []string{"naming", "column names"}, got.Keys)
		body := f.get("m/" + m.ID)
		require.Contains(t, body, "<ins>Go and </ins>")
	})
	t.Run("revise keeps a text area's line breaks as LF", func(t *testing.T) {
		m := ms[1]
		w := post("revise", m.ID, url.Values{"text": {"requireAdmin throws ERR_NO_SESSION before login.\r\nCall it after the session middleware."}, "keys": {""}})
		require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
		require.Equal(t, "requireAdmin throws ERR_NO_SESSION before login.\nCall it after the session middleware.", f.current(m.ID).Text)
		w = post("revise", m.ID, url.Values{"text": {f.current(m.ID).Text}, "keys": {""}})
		require.Equal(t, http.StatusBadRequest, w.Code, "nothing to revise")
		require.Contains(t, w.Body.String(), "nothing to revise")
	})
	t.Run("revise with a credential is refused", func(t *testing.T) {
		m := ms[3]
		w := post("revise", m.ID, url.Values{"text": {"deploy with AWS key AKIAIOSFODNN7EXAMPLF and secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ"}})
		require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
		require.Contains(t, w.Body.String(), "never stores credentials")
		require.Equal(t, m.Text, f.current(m.ID).Text, "nothing was written")
	})
	t.Run("forget", func(t *testing.T) {
		m := ms[5]
		w := post("forget", m.ID, nil)
		require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
		_, _, err := f.srv.mustOpen(t).Find(m.ID)
		require.ErrorIs(t, err, memerr.ErrNotFound)
		require.NotContains(t, f.get(""), "Playwright tests time out")
	})
	t.Run("purge needs the typed id", func(t *testing.T) {
		m := ms[6]
		search := "?q=" + url.QueryEscape("how are stripe webhooks verified")
		require.Contains(t, f.get(search), "Stripe webhooks are verified", "found before the purge")
		for _, typed := range []string{"", "yes", m.ID[:4], "ffffffffffff"} {
			w := post("purge", m.ID, url.Values{"confirm": {typed}})
			require.Equal(t, http.StatusBadRequest, w.Code, typed)
			require.Contains(t, w.Body.String(), "nothing was erased")
			f.current(m.ID)
		}
		w := post("purge", m.ID, url.Values{"confirm": {m.ID[:8]}})
		require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
		versions, err := f.repo.Main.History(t.Context(), m.ID)
		require.NoError(t, err)
		require.Empty(t, versions, "no commit holds it any more")
		require.NotContains(t, f.get(""), "Stripe webhooks")
		require.NotContains(t, f.get("timeline"), "Stripe webhooks")
		require.NotContains(t, f.get(search), "Stripe webhooks are verified", "search never finds a purged text")
		require.Equal(t, http.StatusNotFound, f.do(http.MethodGet, "m/"+m.ID, nil, nil).Code)
	})
	t.Run("unknown action", func(t *testing.T) {
		require.Equal(t, http.StatusBadRequest, post("frobnicate", ms[0].ID, nil).Code)
	})
}

func TestReadOnlyHasNoActions(t *testing.T) {
	f := newFixture(t, true)
	m := f.seed()[0]
	body := f.get("m/" + m.ID)
	require.NotContains(t, body, `method="post"`)
	require.Contains(t, body, "read-only")
	for _, op := range []string{"confirm", "dispute", "revise", "forget", "purge"} {
		w := f.do(http.MethodPost, "action/"+op, url.Values{"id": {m.ID}, "version": {m.Version()}, "reason": {"x"}, "text": {"y"}, "confirm": {m.ID}}, nil)
		require.Equal(t, http.StatusForbidden, w.Code, op)
	}
	require.Equal(t, m, f.current(m.ID), "nothing was written")
}

func TestMemoriesListPagesAndFilters(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	// each memory a minute newer than the one before: the order is known
	at := f.now.Add(-2 * time.Hour)
	f.repo.Main.Repo.Now = func() time.Time { at = at.Add(time.Minute); return at }
	for i := range 60 {
		agent := "claude-code"
		if i%3 == 0 {
			agent = "codex"
		}
		typ := gitstore.TypeFact
		if i%4 == 0 {
			typ = gitstore.TypeGotcha
		}
		_, err := f.repo.Main.Add(ctx, gitstore.Writer{Agent: agent}, gitstore.NewMemory{Type: typ, Text: fmt.Sprintf("memory number %d about the build", i), Source: gitstore.SourceInferred})
		require.NoError(t, err)
	}
	rows := regexp.MustCompile(`<tr class="memory`)
	cases := []struct {
		name, query string
		rows        int
		has         []string
		hasNot      []string
	}{
		{"first page", "", pageSize, []string{"1–50 of 60", `rel="next"`, "memory number 59"}, []string{`rel="prev"`, "memory number 9 "}},
		{"second page", "?page=1", 10, []string{"51–60 of 60", `rel="prev"`, "memory number 0 "}, []string{`rel="next"`}},
		{"by type", "?type=gotcha", 15, []string{"of 15"}, []string{`type type-fact"`}},
		{"by agent", "?agent=codex", 20, []string{"of 20"}, []string{"claude-code"}},
		{"by agent and type", "?agent=codex&type=gotcha", 5, []string{"of 5"}, nil},
		{"by store", "?store=private", 0, []string{"No memories"}, nil},
		{"by trust", "?trust=medium", 50, []string{"of 60"}, nil},
		{"by low trust", "?trust=low", 0, nil, nil},
		{"beyond the last page", "?page=9", 0, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := f.get(tc.query)
			require.Len(t, rows.FindAllString(body, -1), tc.rows)
			for _, s := range tc.has {
				require.Contains(t, body, s)
			}
			for _, s := range tc.hasNot {
				require.NotContains(t, body, s)
			}
		})
	}
	w := f.do(http.MethodGet, "?type=rumour", nil, nil)
	require.Equal(t, http.StatusBadRequest, w.Code)
}

func TestSearchShowsConfidenceLabels(t *testing.T) {
	f := newFixture(t, false)
	f.seed()
	const query = "which timezone are bookings stored in"
	res, err := index.Recall(t.Context(), f.srv.mustOpen(t), index.Options{Query: query, Limit: pageSize, Now: f.now, Point: index.Explicit})
	require.NoError(t, err)
	require.NotEmpty(t, res.Hits)
	body := f.get("?q=" + url.QueryEscape(query))
	require.Contains(t, body, "Bookings are stored in UTC")
	require.Contains(t, body, fmt.Sprintf("%d found for", len(res.Hits)))
	require.Contains(t, body, `<span class="label label-`+index.ConfidenceLabel(res.Hits[0].Confidence)+`">`)
	require.Len(t, regexp.MustCompile(`class="label label-`).FindAllString(body, -1), len(res.Hits))

	body = f.get("?q=" + url.QueryEscape("zebra giraffe savannah"))
	require.Contains(t, body, "nothing relevant")
}

func TestOneMemoryShowsItsWholeStory(t *testing.T) {
	f := newFixture(t, false)
	ctx := t.Context()
	old := indextest.Add(t, f.repo.Main, "The API is deployed to Heroku.", func(n *gitstore.NewMemory) {
		n.Tags = []string{"deploy"}
		n.Paths = []string{"Procfile"}
	})
	_, err := f.repo.Main.Dispute(ctx, gitstore.Writer{Agent: "codex"}, old.ID, "we moved off Heroku in May")
	require.NoError(t, err)
	cur, err := f.repo.Main.Add(ctx, gitstore.Writer{Agent: "claude-code"}, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "The API is deployed to Fly.io.", Source: gitstore.SourceUser, Supersedes: old.ID})
	require.NoError(t, err)

	body := f.get("m/" + old.ID)
	for _, s := range []string{"The API is deployed to Heroku.", "deploy", "Procfile", "we moved off Heroku in May", "codex", "Replaced by:", "The API is deployed to Fly.io.", "superseded or expired", ">add<", ">dispute<", ">supersede<"} {
		require.Contains(t, body, s)
	}
	body = f.get("m/" + cur.ID)
	require.Contains(t, body, "Replaces:")
	require.Contains(t, body, "The API is deployed to Heroku.")
	require.Equal(t, http.StatusNotFound, f.do(http.MethodGet, "m/ffffffffffffffff", nil, nil).Code)
}

func TestOverviewViews(t *testing.T) {
	f := newFixture(t, false)
	f.seed()
	ctx := t.Context()
	log, err := f.repo.Main.Log(ctx, 0)
	require.NoError(t, err)
	first := log[len(log)-1].Commit.String() // the store after its first add
	_, err = f.repo.Main.Add(ctx, gitstore.Writer{Agent: "claude-code"}, gitstore.NewMemory{Type: gitstore.TypeHandoff, Text: "Handoff: the booking form is half done.", Source: gitstore.SourceInferred, Tags: []string{"branch:feature-x"}})
	require.NoError(t, err)
	cases := []struct {
		path string
		has  []string
	}{
		{"timeline", []string{indextest.Now.Format(time.DateOnly), "test 8", "claude-code 1", "Bookings are stored"}},
		{"timeline?as_of=2020-01-01", []string{"0 memories"}},
		{"timeline?as_of=now", []string{"9 memories"}},
		{"timeline?valid_at=now", []string{"9 memories"}},
		{"timeline?as_of=" + first, []string{"1 memory", "Bookings are stored in UTC"}},
		{"timeline?as_of=" + first[:10] + "&valid_at=now", []string{"1 memory"}},
		{"sessions", []string{"branch feature-x", "the booking form is half done"}},
		{"team", []string{"Not pushed yet", "No remote"}},
		{"numbers", []string{"9 current memories", "<svg", "By type", "gotcha", "By agent"}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			body := f.get(tc.path)
			for _, s := range tc.has {
				require.Contains(t, body, s)
			}
		})
	}
	require.Equal(t, http.StatusBadRequest, f.do(http.MethodGet, "timeline?as_of=not-a-time", nil, nil).Code)
}

func TestTipsFollowTheStore(t *testing.T) {
	f := newFixture(t, false)
	f.seed()
	before := f.get("api/tips")
	require.Equal(t, before, f.get("api/tips"), "unchanged while the store is")
	indextest.Add(t, f.repo.Main, "A memory an agent saved while the page was open.")
	require.NotEqual(t, before, f.get("api/tips"))
	require.Contains(t, f.get(""), "while the page was open", "the page shows it on its next load")
}

func TestDiffWords(t *testing.T) {
	cases := []struct {
		a, b string
		want []diffPart
	}{
		{"", "new text", []diffPart{{"+", "new text"}}},
		{"same", "same", []diffPart{{"=", "same"}}},
		{"use pnpm to install", "use npm to install", []diffPart{{"=", "use "}, {"-", "pnpm "}, {"+", "npm "}, {"=", "to install"}}},
		{"a b c", "a c", []diffPart{{"=", "a "}, {"-", "b "}, {"=", "c"}}},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, diffWords(tc.a, tc.b), "%q -> %q", tc.a, tc.b)
	}
	long := strings.Repeat("word ", 2000)
	got := diffWords(long, long+"more")
	require.Equal(t, []diffPart{{"-", long}, {"+", long + "more"}}, got, "past the bound, whole texts")
}

func TestTeamShowsWhatPullsBroughtAndWhatIsNotPushed(t *testing.T) {
	f := newFixture(t, false)
	ctx := t.Context()
	clock := func() time.Time { return f.now }
	ana := indextest.NewRepo(t, clock)
	remote := filepath.Join(t.TempDir(), "remote.git")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = indextest.GitEnv()
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	git(t.TempDir(), "init", "-q", "--bare", remote)
	gitstoretest.CheckedByGit(t, remote)
	git(ana.Dir, "remote", "add", "origin", remote)
	git(f.repo.Dir, "remote", "add", "origin", remote)
	as := func(name string) gitstore.Writer {
		t.Setenv("GIT_AUTHOR_NAME", name)
		t.Setenv("GIT_AUTHOR_EMAIL", strings.ToLower(name)+"@example.com")
		t.Setenv("GIT_COMMITTER_NAME", name)
		t.Setenv("GIT_COMMITTER_EMAIL", strings.ToLower(name)+"@example.com")
		return gitstore.Writer{Agent: "codex"}
	}
	push := func(r *indextest.Repo, w gitstore.Writer) {
		t.Helper()
		rem, err := r.Set.Repo.ResolveRemote(ctx, "")
		require.NoError(t, err)
		_, err = r.Set.Repo.Push(ctx, w, rem, gitstore.PushOptions{})
		require.NoError(t, err)
	}
	pull := func(r *indextest.Repo, w gitstore.Writer) {
		t.Helper()
		rem, err := r.Set.Repo.ResolveRemote(ctx, "")
		require.NoError(t, err)
		_, err = r.Set.Repo.Pull(ctx, w, rem, gitstore.PullOptions{})
		require.NoError(t, err)
	}

	w := as("Ana")
	_, err := ana.Main.Add(ctx, w, gitstore.NewMemory{Type: "fact", Text: "Ana found that refunds go through Stripe only.", Source: gitstore.SourceUser})
	require.NoError(t, err)
	push(ana, w)

	w = as("Ben")
	pull(f.repo, w)
	_, err = f.repo.Main.Add(ctx, w, gitstore.NewMemory{Type: "gotcha", Text: "Ben's local note, not pushed yet.", Source: gitstore.SourceUser})
	require.NoError(t, err)

	body := f.get("team")
	section := func(id string) string {
		i := strings.Index(body, `<section id="`+id+`">`)
		require.GreaterOrEqual(t, i, 0, id)
		j := strings.Index(body[i:], "</section>")
		return body[i : i+j]
	}
	require.Contains(t, section("fetched"), "Ana found that refunds", "what the pull brought, by whom")
	require.Contains(t, section("fetched"), "Ana &lt;ana@example.com&gt;")
	require.NotContains(t, section("fetched"), "Ben&#39;s local note")
	require.Contains(t, section("unpushed"), "Ben&#39;s local note")
	require.NotContains(t, section("unpushed"), "Ana found")
	require.Contains(t, section("pulls"), "No pull needed a merge yet")

	// Ana writes again; Ben's pull must merge now
	w = as("Ana")
	pull(ana, w)
	_, err = ana.Main.Add(ctx, w, gitstore.NewMemory{Type: "decision", Text: "Ana decided the waitlist mails only.", Source: gitstore.SourceUser})
	require.NoError(t, err)
	push(ana, w)
	w = as("Ben")
	pull(f.repo, w)
	body = f.get("team")
	require.Contains(t, section("pulls"), "Ana decided the waitlist mails only", "the merge and what it brought")
	require.NotContains(t, section("pulls"), "Ben&#39;s local note")
	push(f.repo, w)
	body = f.get("team")
	require.Contains(t, section("unpushed"), "Everything is pushed")
}
