package embedding_test

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/embedding"
	"github.com/git-mem/git-mem/embedding/embedtest"
)

// TestHostileEndpointIsCutOff: an endpoint that streams an endless header
// line, endless headers or an endless body is cut off at a bound, at once,
// instead of being buffered until the deadline; one that stalls or trickles
// is given up at the deadline.
func TestHostileEndpointIsCutOff(t *testing.T) {
	const ok = "HTTP/1.1 200 OK\r\n"
	for _, tc := range []struct {
		name    string
		answer  func(io.Writer) error
		timeout string
		within  time.Duration
		want    string
	}{
		{"endless header line", embedtest.Forever(ok+"X-Endless: ", "a"), "5s", 2 * time.Second, "too large"},
		{"endless status line", embedtest.Forever("HTTP/1.1 200 ", "O"), "5s", 2 * time.Second, "too large"},
		{"endless headers", embedtest.Forever(ok, "X-Again: a\r\n"), "5s", 2 * time.Second, "too large"},
		{"endless body", embedtest.Forever(ok+"Content-Type: application/json\r\n\r\n", "[1,"), "5s", 2 * time.Second, "too large"},
		{"endless chunks", embedtest.Forever(ok+"Transfer-Encoding: chunked\r\n\r\n", "4\r\n[1,2\r\n"), "5s", 2 * time.Second, "too large"},
		{"huge chunk", embedtest.Forever(ok+"Transfer-Encoding: chunked\r\n\r\n7fffffff\r\n", "a"), "5s", 2 * time.Second, "too large"},
		{"huge Content-Length", embedtest.Stall(ok + "Content-Length: 1099511627776\r\n\r\n"), "5s", 2 * time.Second, "too large"},
		{"stalls after the status line", embedtest.Stall(ok), "500ms", 1500 * time.Millisecond, "no answer in time"},
		{"trickles a header", embedtest.Trickle(ok+"X-Slow: ", 'a'), "500ms", 1500 * time.Millisecond, "no answer in time"},
		{"trickles the body", embedtest.Trickle(ok+"Content-Length: 100000\r\n\r\n", '1'), "500ms", 1500 * time.Millisecond, "no answer in time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, sent := embedtest.Raw(t, tc.answer)
			e := open(t, url, "mem.embed.timeout", tc.timeout)
			start := time.Now()
			_, err := e.Query(context.Background(), "where do binaries go", now)
			took := time.Since(start)
			require.ErrorIs(t, err, embedding.ErrEndpoint)
			require.ErrorContains(t, err, tc.want)
			require.Less(t, took, tc.within)
			// what the server could send is the bound plus the sockets' buffers
			require.Less(t, sent(), int64(32<<20), "bytes sent by the endpoint")
		})
	}
}

// TestLargeAnswersWithinTheBound: a batch's answer of many long vectors,
// framed by its length or by the end of the connection, is still read
// whole.
func TestLargeAnswersWithinTheBound(t *testing.T) {
	const n, dim = 32, 4096
	var body bytes.Buffer
	body.WriteString(`{"data":[`)
	for i := range n {
		if i > 0 {
			body.WriteString(",")
		}
		body.WriteString(`{"index":` + strconv.Itoa(i) + `,"embedding":[`)
		for j := range dim {
			if j > 0 {
				body.WriteString(",")
			}
			body.WriteString("-0.012345678901234567")
		}
		body.WriteString("]}")
	}
	body.WriteString("]}")
	for _, tc := range []struct {
		name string
		head string
	}{
		{"length", "Content-Length: " + strconv.Itoa(body.Len()) + "\r\n"},
		{"close", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, _ := embedtest.Raw(t, func(w io.Writer) error {
				_, err := io.WriteString(w, "HTTP/1.1 200 OK\r\n"+tc.head+"Connection: close\r\n\r\n"+body.String())
				return err
			})
			e := open(t, url)
			items := make([]embedding.Item, n)
			for i := range items {
				items[i] = embedding.Item{Key: "project:" + strconv.Itoa(i), Text: "text number " + strconv.Itoa(i)}
			}
			res, err := e.Fill(context.Background(), items, now, nil)
			require.NoError(t, err)
			require.Equal(t, n, res.Embedded)
		})
	}
}
