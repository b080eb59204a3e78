package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/cmd"
)

// lockedBuffer is an output stream read while the command still writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var uiURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/[0-9a-f]+/`)

// startUI runs git mem ui in the sandbox until the test ends, and returns
// the address it printed.
func startUI(t *testing.T, sb *sandbox, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut lockedBuffer
	e := &cmd.Env{
		Streams: cmd.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut},
		Dir:     sb.home,
		Getenv:  func(string) string { return "" },
		Now:     time.Now,
	}
	done := make(chan int, 1)
	go func() { done <- cmd.Run(ctx, e, append([]string{"-C", "repo", "ui", "--no-open"}, args...)) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			require.Equal(t, 0, code, "Ctrl-C stops the page cleanly: %s", errOut.String())
		case <-time.After(10 * time.Second):
			t.Error("git mem ui did not stop when its context ended")
		}
	})
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if u := uiURL.FindString(out.String()); u != "" {
			require.Contains(t, errOut.String(), "Ctrl-C")
			return u
		}
		select {
		case code := <-done:
			t.Fatalf("git mem ui exited with %d: %s", code, errOut.String())
		default:
		}
	}
	t.Fatalf("git mem ui printed no address: %q %q", out.String(), errOut.String())
	return ""
}

func httpGet(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func TestUIServesTheStoresOfItsDirectory(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	id := strings.TrimSpace(mustRun(t, sb, "add", "--", "Bookings are stored in UTC; the UI converts to local time."))
	mustRun(t, sb, "add", "--private", "--", "My own note about the flaky e2e test.")
	base := startUI(t, sb)

	code, body := httpGet(t, base)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "Bookings are stored in UTC")
	require.Contains(t, body, "My own note", "the private store is shown too")

	u, err := url.Parse(base)
	require.NoError(t, err)
	code, _ = httpGet(t, "http://"+u.Host+"/")
	require.Equal(t, http.StatusForbidden, code, "no token, no page")

	// a dispute from the page is the CLI's dispute
	m := regexp.MustCompile(`name="version" value="([0-9a-f]+)"`)
	_, page := httpGet(t, base+"m/"+id)
	version := m.FindStringSubmatch(page)
	require.NotNil(t, version)
	form := url.Values{"id": {id}, "version": {version[1]}, "reason": {"the API converts now"}}
	req, err := http.NewRequest(http.MethodPost, base+"action/dispute", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+u.Host)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	var shown struct {
		Events []struct{ Op, Reason string }
	}
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "show", "--json", id)), &shown))
	require.Len(t, shown.Events, 1)
	require.Equal(t, "dispute", shown.Events[0].Op)
	require.Equal(t, "the API converts now", shown.Events[0].Reason)
}

func TestUIReadOnly(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	id := strings.TrimSpace(mustRun(t, sb, "add", "--", "The API is deployed to Fly.io."))
	base := startUI(t, sb, "--read-only")
	code, body := httpGet(t, base+"m/"+id)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "deployed to Fly.io")
	require.NotContains(t, body, `method="post"`)
}

func TestUIFlags(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	busy, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	taken := busy.Addr().(*net.TCPAddr).Port
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"ui", "--port", "-1"}, 2, "give a port from 1 to 65535"},
		{[]string{"ui", "--port", "70000"}, 2, "give a port from 1 to 65535"},
		{[]string{"ui", "extra"}, 2, "unknown command"},
		{[]string{"ui", "--no-open", "--port", fmt.Sprint(taken)}, 1, "leave out --port for a free one"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, errOut, code := sb.run(tc.args...)
			require.Equal(t, tc.code, code, errOut)
			require.Contains(t, errOut, tc.stderr)
		})
	}
}
