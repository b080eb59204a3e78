package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/require"
)

// rawServer is a git mem mcp process driven line by line.
type rawServer struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan string
	id    int
}

func startRawServer(t *testing.T) *rawServer {
	t.Helper()
	repo := newRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, "mcp")
	cmd.Dir = repo
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		cancel()
		_ = cmd.Wait()
	})
	s := &rawServer{t: t, stdin: stdin, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	return s
}

func (s *rawServer) send(line string) {
	s.t.Helper()
	_, err := io.WriteString(s.stdin, line+"\n")
	require.NoError(s.t, err)
}

// next is the next message from the server; it fails when the server stopped.
func (s *rawServer) next() map[string]any {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		require.True(s.t, ok, "the server stopped")
		var m map[string]any
		require.NoError(s.t, json.Unmarshal([]byte(l), &m), "%s", l)
		return m
	case <-time.After(20 * time.Second):
		s.t.Fatal("no answer from the server")
	}
	return nil
}

// call sends a request and returns its response.
func (s *rawServer) call(method, params string) map[string]any {
	s.t.Helper()
	s.id++
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, s.id, method, params))
	for {
		m := s.next()
		if id, ok := m["id"].(float64); ok && int(id) == s.id {
			return m
		}
	}
}

// TestProcessSurvivesMalformedLines: one malformed line from the client is
// answered with a JSON-RPC error (or ignored) and the server keeps serving.
func TestProcessSurvivesMalformedLines(t *testing.T) {
	cases := []struct {
		name, line string
		code       float64 // 0: no error expected
		id         any     // the id of the answer; nil: null, or no answer when code is 0
	}{
		{"not JSON", "hello there", -32700, nil},
		{"empty array", "[]", -32600, nil},
		{"a batch", `[{"jsonrpc":"2.0","id":90,"method":"tools/list"}]`, -32600, nil},
		{"empty object", "{}", -32600, nil},
		{"bad UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":91,\"method\":\"\xff\xfe\"}", -32700, nil},
		{"truncated object", `{"jsonrpc":"2.0","id":92,"method":"tools/list"`, -32700, nil},
		{"null", "null", -32600, nil},
		{"a number", "42", -32600, nil},
		{"a string", `"tools/list"`, -32600, nil},
		{"wrong version", `{"jsonrpc":"1.0","id":93,"method":"tools/list"}`, -32600, float64(93)},
		{"object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`, -32600, nil},
		{"unknown method", `{"jsonrpc":"2.0","id":94,"method":"no/such/method"}`, -32601, float64(94)},
		{"bad params", `{"jsonrpc":"2.0","id":95,"method":"tools/call","params":42}`, 0, float64(95)},
		{"tool call with a bad argument type", `{"jsonrpc":"2.0","id":96,"method":"tools/call","params":{"name":"memory_add","arguments":{"text":7}}}`, 0, float64(96)},
		{"blank line", "   ", 0, nil},
		{"a frame over 10 MB", `{"jsonrpc":"2.0","id":97,"method":"tools/list","params":{"x":"` + strings.Repeat("x", MaxFrameBytes) + `"}}`, -32600, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := startRawServer(t)
			init := s.call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-test","version":"1"}}`)
			require.NotNil(t, init["result"], "%v", init)
			s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			s.send(c.line)
			if c.code != 0 {
				m := s.next()
				require.Equal(t, "2.0", m["jsonrpc"])
				require.Equal(t, c.id, m["id"], "%v", m)
				e, ok := m["error"].(map[string]any)
				require.True(t, ok, "%v", m)
				require.Equal(t, c.code, e["code"], "%v", m)
			} else if c.id != nil {
				m := s.next()
				require.Equal(t, c.id, m["id"], "%v", m)
			}
			// and the server still serves
			res := s.call("tools/list", `{}`)
			require.NotNil(t, res["result"], "%v", res)
			add := s.call("tools/call", `{"name":"memory_add","arguments":{"text":"The server outlived a malformed line"}}`)
			require.NotNil(t, add["result"], "%v", add)
		})
	}
}

// FuzzFrameFilter: whatever a client sends, the filter never panics, passes
// on only lines that decode as one JSON-RPC message, and answers the rest
// with one JSON-RPC error each.
func FuzzFrameFilter(f *testing.F) {
	for _, s := range []string{"{}\n", "[]\n", "hello\n", `{"jsonrpc":"2.0","id":1,"method":"x"}` + "\n", "\xff\n", `{"jsonrpc":"2.0","id":1`, "\n\n  \n", `[{"jsonrpc":"2.0","id":1,"method":"x"}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var replies strings.Builder
		ff := newFrameFilter(strings.NewReader(string(in)), &lockedWriter{w: &replies})
		passed, err := io.ReadAll(ff)
		require.NoError(t, err)
		for _, l := range strings.Split(strings.TrimSuffix(string(passed), "\n"), "\n") {
			if l == "" {
				continue
			}
			_, err := jsonrpc.DecodeMessage([]byte(l))
			require.NoError(t, err, "%q passed", l)
		}
		for _, l := range strings.Split(strings.TrimSuffix(replies.String(), "\n"), "\n") {
			if l == "" {
				continue
			}
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct{ Code int }
			}
			require.NoError(t, json.Unmarshal([]byte(l), &r), "%q", l)
			require.Equal(t, "2.0", r.JSONRPC)
			require.NotEmpty(t, r.ID, "%q", l)
			require.NotNil(t, r.Error, "%q", l)
			require.Contains(t, []int{-32700, -32600}, r.Error.Code)
		}
	})
}
