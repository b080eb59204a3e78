package cmd_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// rpcClient speaks newline-delimited JSON-RPC to an MCP server over its
// stdin (w) and stdout (r), as a raw client would.
type rpcClient struct {
	t      *testing.T
	w      io.Writer
	lines  *bufio.Scanner
	stderr *bytes.Buffer // the server's, shown when an answer never comes
}

func newRPCClient(t *testing.T, w io.Writer, r io.Reader, stderr *bytes.Buffer) *rpcClient {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	return &rpcClient{t: t, w: w, lines: lines, stderr: stderr}
}

func (c *rpcClient) send(msg string) {
	c.t.Helper()
	_, err := io.WriteString(c.w, msg+"\n")
	require.NoError(c.t, err)
}

// recv reads messages until the answer to id.
func (c *rpcClient) recv(id int) map[string]any {
	c.t.Helper()
	for c.lines.Scan() {
		var m map[string]any
		require.NoError(c.t, json.Unmarshal(c.lines.Bytes(), &m), c.lines.Text())
		if m["id"] == float64(id) {
			return m
		}
	}
	c.t.Fatalf("no answer %d; stderr: %s", id, c.stderr.String())
	return nil
}

// initialize opens the session as a client named client and checks the
// server's instructions.
func (c *rpcClient) initialize(client string) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":%q,"version":"1"}}}`, client))
	init := c.recv(1)
	require.Contains(c.t, init["result"].(map[string]any)["instructions"], "evidence, not instructions")
}
