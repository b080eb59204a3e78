package cmd_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/cmd"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/bleveindex"
	"github.com/git-mem/git-mem/mcp"
)

// serveMCPInProcess wires into this test process what git-mem-mcp's main
// wires into its own (the bleve engine and the MCP server), so that the
// mcp verb serves here, until the test ends.
func serveMCPInProcess(t *testing.T) {
	index.UseEngine(bleveindex.Engine{})
	cmd.UseMCPServer(func(ctx context.Context, o cmd.MCPOptions, in io.Reader, out io.Writer) error {
		return mcp.New(mcp.Options{Dir: o.Dir, Agent: o.Agent, Session: o.Session, Version: o.Version, Now: o.Now, Logger: o.Logger}).Run(ctx, in, out)
	})
	t.Cleanup(func() {
		cmd.UseMCPServer(nil)
		index.UseEngine(nil)
	})
}

// mcpSession runs `git mem ARGS` in-process with stdin and stdout as pipes,
// speaks raw JSON-RPC to it as a client named client, adds one memory with
// memory_add, and returns the tool result and the exit code once stdin is
// closed.
func mcpSession(t *testing.T, dir string, getenv map[string]string, client string, args ...string) (map[string]any, int) {
	t.Helper()
	serveMCPInProcess(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	env := &cmd.Env{
		Streams: cmd.Streams{In: inR, Out: outW, Err: &errb},
		Dir:     dir,
		Getenv:  func(k string) string { return getenv[k] },
		Now:     time.Now,
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		code := cmd.Run(ctx, env, args)
		outW.Close()
		done <- code
	}()
	rpc := newRPCClient(t, inW, outR, &errb)
	rpc.initialize(client)
	rpc.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	rpc.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_add","arguments":{"text":"The mcp verb writes through the same store as the CLI"}}}`)
	res := rpc.recv(2)
	inW.Close()
	go io.Copy(io.Discard, outR)
	select {
	case code := <-done:
		return res["result"].(map[string]any), code
	case <-ctx.Done():
		t.Fatal("git mem mcp did not stop when stdin closed")
	}
	return nil, -1
}

func TestMCPVerb(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    map[string]string
		client string
		args   []string
		agent  string
	}{
		{"client name", nil, "Claude Code", []string{"mcp"}, "claude-code"},
		{"agent flag", map[string]string{"GIT_MEM_AGENT": "codex"}, "claude-code", []string{"mcp", "--agent", "gemini"}, "gemini"},
		{"GIT_MEM_AGENT", map[string]string{"GIT_MEM_AGENT": "codex"}, "claude-code", []string{"mcp"}, "codex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			sb.isolate()
			res, code := mcpSession(t, sb.repo, tc.env, tc.client, tc.args...)
			require.Equal(t, 0, code)
			require.NotEqual(t, true, res["isError"], res)
			require.Contains(t, fmt.Sprint(res["content"]), "as "+tc.agent)
			log := sb.git("log", "-1", "--format=%B", "refs/memory/main")
			require.Contains(t, log, "Agent: "+tc.agent)
		})
	}
}

func TestMCPVerbDirectoryFlag(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	// started elsewhere, -C points it at the repository
	res, code := mcpSession(t, t.TempDir(), nil, "cursor-vscode", "-C", sb.repo, "mcp")
	require.Equal(t, 0, code)
	require.Contains(t, fmt.Sprint(res["content"]), "project memory")
	require.Contains(t, sb.git("log", "-1", "--format=%B", "refs/memory/main"), "Agent: cursor")
}

func TestMCPVerbUsage(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	_, stderr, code := sb.run("mcp", "extra")
	require.Equal(t, 2, code, stderr)
	_, stderr, code = sb.run("mcp", "--agent", " ")
	require.Equal(t, 2, code, stderr)
	require.True(t, strings.Contains(stderr, "--agent needs a name"), stderr)
	out, _, code := sb.run("mcp", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "clientInfo.name")
}

// TestMCPVerbWithoutServer: in a process that serves no MCP itself (git-mem)
// and finds no git-mem-mcp, the verb fails with how to install it.
func TestMCPVerbWithoutServer(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	out, stderr, code := sb.run("mcp")
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Contains(t, stderr, "git mem: the MCP server's binary, git-mem-mcp, is neither beside git-mem nor on PATH")
	require.Contains(t, stderr, "CGO_ENABLED=0 go install ./cmd/...")
}
